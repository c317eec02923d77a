// The native walk's memory at scale: a tree of 1M entries on a tmpfs
// (test/fixtures/mktree.c: directories of 99 files, every 97th holding a
// byte), walked in a child process that reports its peak RSS (VmHWM).
// The walk keeps a node per directory and a few of the largest files of
// each, never a record per file: 1M entries must stay within 150 MB. The
// totals must be du's. Native backend only: the fallback walks in a helper
// process about 20 times slower. Larger trees (4M entries, their peak RSS
// beside du's, gdu's and ncdu's) are the benchmark's: npm run bench:du.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { buildCFixture, compilerSkipReason } from '../fixtures/cFixture.mjs';
import { announceSkip, mountTmpfs, projectRoot, rootSkipReason, run, type TestMount, tempDir } from '../helpers/system.js';
import { duTotal, gnuDuSkipReason } from './duOracle.js';
import { backendUnderTest } from './expectations.js';

const MB = 2 ** 20;

const skipReason =
  backendUnderTest === 'native'
    ? (rootSkipReason ?? gnuDuSkipReason ?? compilerSkipReason())
    : 'native backend only: the fallback walks 1M entries in about 45 s, in a helper process whose memory is its own';

/** Prints what directoryUsage() of argv[2] found, and this process's peak RSS before and after the walk. */
const WALKER = `import { readFileSync } from 'node:fs';
import { directoryUsage } from ${JSON.stringify(`${projectRoot}dist/index.js`)};
const peak = () => Number(/^VmHWM:\\s+(\\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const before = peak();
const usage = await directoryUsage(process.argv[2], { bigint: true });
process.stdout.write(JSON.stringify({ before, after: peak(), allocated: String(usage.allocated), files: String(usage.files),
  directories: String(usage.directories), complete: usage.complete, elapsedMs: usage.elapsedMs, backend: usage.backend }));`;

describe.skipIf(announceSkip(`walk memory at scale (${backendUnderTest})`, skipReason))('walk memory at scale, native', () => {
  let mount: TestMount | undefined;
  afterEach(() => {
    mount?.cleanup();
    mount = undefined;
  });

  /** Makes a tree of top × sub directories of 99 files, walks it in a child process, and checks it against du and the shape. */
  async function walkTree(top: number, sub: number, limitMB: number): Promise<void> {
    const started = performance.now();
    mount = mountTmpfs(`size=1G,nr_inodes=${Math.ceil((top * sub * 100 + top) * 1.05)}`);
    const root = join(mount.dir, 'tree');
    run('mkdir', [root]);
    run(buildCFixture('mktree', join(projectRoot, 'test/.fixtures')), [root, String(top), String(sub), '99']);
    const made = performance.now();
    const script = join(tempDir(), 'walk.mjs');
    writeFileSync(script, WALKER);
    const walked = JSON.parse(execFileSync(process.execPath, [script, root], { encoding: 'utf8', env: { ...process.env, DISKPROBE_BACKEND: 'native' } }));
    const duStarted = performance.now();
    const expected = duTotal(['-B1'], root);
    const ended = performance.now();
    const entries = top * sub * 99 + top * sub + top;
    console.log(
      `[scale] ${entries.toLocaleString('en')} entries: peak RSS ${(walked.after / MB).toFixed(1)} MB (${(walked.before / MB).toFixed(1)} MB before the walk); ` +
        `made in ${((made - started) / 1000).toFixed(1)} s, walked in ${(walked.elapsedMs / 1000).toFixed(1)} s, du in ${((ended - duStarted) / 1000).toFixed(1)} s, ` +
        `${((ended - started) / 1000).toFixed(1)} s in all`,
    );
    expect(walked).toMatchObject({ backend: 'native', complete: true, allocated: String(expected) });
    expect(BigInt(walked.files)).toBe(BigInt(top * sub * 99));
    expect(BigInt(walked.directories)).toBe(BigInt(top * sub + top + 1));
    expect(walked.after / MB).toBeLessThanOrEqual(limitMB);
  }

  it('walks 1M entries within 150 MB of peak RSS, with du -s -B1 totals', () => walkTree(100, 100, 150), 300_000);
});
