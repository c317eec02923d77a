// `diskprobe metrics` printed once must exit on time, whatever is mounted
// (issue 17): with a dead FUSE mount (the `hang` fixture) the dead mount is
// printed as "mountpoint timeout" and the command ends within its
// --timeout, and so does a pipeline reading its output, on both backends.
// Before, the thread stuck on the mount held the process (unkillable) until
// the daemon died. With nothing that can block, it answers in its own
// process, as `diskprobe df` does.
import { readFileSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';

import { printMetricsHere } from '../../dist/cli/metrics/metricsOnce.js';
import { parseMountInfo } from '../../dist/probe/mountInfo.js';
import { MountTable } from '../../dist/probe/mountTable.js';
import { runCliUntil, runPipedThroughCat } from '../cli/cliProcess.js';
import { announceSkip, type FuseMount, fuseSkipReason, linuxSkipReason, mountFuse } from '../helpers/system.js';

const TIMEOUT = 500;
/** Bounds a failure only: the command needs about TIMEOUT plus a Node start-up or two. */
const EXIT_DEADLINE_MS = 10_000;

const ONCE = { timeout: 2000, prefix: 'node_filesystem', mountPointsExclude: '^/(dev|proc|sys)($|/)', fsTypesExclude: '^(proc|sysfs)$' };

describe.skipIf(announceSkip('diskprobe metrics once, in its own process', linuxSkipReason))('diskprobe metrics once, in its own process', () => {
  it('answers here exactly when every mount walks and answers in memory, and otherwise prints nothing and gives way', async () => {
    const table = new MountTable(parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')));
    const allInMemory = table.entries.every((entry) => /^\/(dev|proc|sys)($|\/)/.test(entry.mountPoint) || table.walksInMemory(entry.mountPoint));
    let stdout = '';
    const output = { stdout: { write: (text: string) => (stdout += text), isTTY: false }, stderr: { write: () => {} } };
    const status = await printMetricsHere(ONCE, output);
    if (allInMemory) {
      expect(status).toBe(0);
      expect(stdout).toContain('node_filesystem_avail_bytes{');
    } else {
      expect([status, stdout]).toEqual([undefined, '']);
    }
  });
});

describe.skipIf(announceSkip('diskprobe metrics once with a dead mount', fuseSkipReason)).each(['native', 'statfs'])(
  'diskprobe metrics once with a dead mount (%s backend)',
  (backend) => {
    let dead: FuseMount | undefined;
    // Killing the daemon frees the call the command's child left stuck.
    afterEach(() => {
      dead?.cleanup();
      dead = undefined;
    });

    it('prints the dead mount as "mountpoint timeout", the others exact, and exits 0 within the timeout', async () => {
      dead = await mountFuse('hang');
      const started = performance.now();
      const result = await runCliUntil(['metrics', '--timeout', String(TIMEOUT)], { DISKPROBE_BACKEND: backend }, EXIT_DEADLINE_MS);
      const took = performance.now() - started;
      expect(result.status, `the process must exit, not wait for the dead mount: ${result.stderr}`).toBe(0);
      const escaped = dead.dir.replaceAll('\\', '\\\\');
      expect(result.stdout).toContain(
        `node_filesystem_device_error{device="fusefix",device_error="mountpoint timeout",fstype="fuse.fusefix",mountpoint="${escaped}"} 1`,
      );
      expect(result.stdout).toMatch(/^node_filesystem_avail_bytes\{device="[^"]*",device_error="",fstype="[^"]+",mountpoint="\/"\} \d+$/m);
      console.log(`diskprobe metrics --timeout ${TIMEOUT} with a dead mount (${backend}): exited in ${Math.round(took)} ms`);
    });

    it('ends a pipeline reading its stdout and stderr: the probing child, left stuck, holds neither', async () => {
      dead = await mountFuse('hang');
      const { status, text } = await runPipedThroughCat(['metrics', '--timeout', String(TIMEOUT)], { DISKPROBE_BACKEND: backend }, EXIT_DEADLINE_MS);
      expect(status, 'the pipeline must end').toBe(0);
      expect(text).toContain('device_error="mountpoint timeout"');
    });
  },
);
