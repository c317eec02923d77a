// diskprobe df in its own process: it answers there when every probe it
// needs can run on its thread without any risk of blocking, and otherwise
// gives way, having written nothing, to the child process it can leave
// behind (isolated.ts; the dead-mount tests cover that one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runDfHere } from '../../../dist/cli/df/df.js';
import { type DfOptions, parseDfCommandLine } from '../../../dist/cli/df/dfCommandLine.js';
import { parseMountInfo } from '../../../dist/probe/mountInfo.js';
import { MountTable } from '../../../dist/probe/mountTable.js';
import { announceSkip, type FuseMount, fuseSkipReason, linuxSkipReason, mountFuse } from '../../helpers/system.js';

const options = (paths: string[] = []): DfOptions => (parseDfCommandLine(['--timeout', '2000', ...paths], {}) as { options: DfOptions }).options;

function capture() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    output: { stdout: { write: (text: string) => (out.stdout += text), isTTY: false }, stderr: { write: (text: string) => (out.stderr += text) } },
  };
}

describe.skipIf(announceSkip('diskprobe df in its own process', linuxSkipReason))('diskprobe df in its own process', () => {
  it('answers every mount here exactly when each one walks and answers in memory', async () => {
    const { readFileSync } = await import('node:fs');
    const table = new MountTable(parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')));
    const allInMemory = table.dfCandidates().every((entry) => table.walksInMemory(entry.mountPoint));
    const { out, output } = capture();
    const status = await runDfHere(options(), output);
    if (allInMemory) {
      expect(status).toBe(0);
      expect(out.stdout).toMatch(/^Filesystem +Type +Size +Used +Avail +Use% +Mounted on\n/);
    } else {
      expect(status).toBeUndefined();
      expect(out).toEqual({ stdout: '', stderr: '' });
    }
  });

  it('answers a cached path on a file system that keeps its counts in memory', async () => {
    const { out, output } = capture();
    expect(await runDfHere(options(['/']), output)).toBe(0);
    expect(out.stdout.trimEnd().split('\n').at(-1)).toMatch(/ \/$/);
  });
});

describe.skipIf(announceSkip('diskprobe df beside a FUSE mount', fuseSkipReason))('diskprobe df beside a FUSE mount', () => {
  let fuse: FuseMount;
  beforeAll(async () => {
    fuse = await mountFuse('odd');
  });
  afterAll(() => fuse?.cleanup());

  it('gives way to the child process, having written nothing, when a mount could block', async () => {
    for (const paths of [[], [fuse.dir], ['/', fuse.dir]]) {
      const { out, output } = capture();
      expect(await runDfHere(options(paths), output), paths.join(' ')).toBeUndefined();
      expect(out).toEqual({ stdout: '', stderr: '' });
    }
  });
});
