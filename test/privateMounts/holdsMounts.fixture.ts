// Run by interrupted.test.ts, in a vitest run of its own (holdsMounts.config.ts),
// never by the suite: mounts what test files mount (a tmpfs, a loop-mounted
// ext4, the FUSE fixture in mode `dead`, with a process stuck on it, as a
// test walking that mount would be), says so in the file named by
// DISKPROBE_REPORT, then waits to be interrupted.
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { test } from 'vitest';

import { fuseSkipReason, mountExt4, mountFuse, mountTmpfs } from '../helpers/system.js';

/** Writes the report whole, by a rename, so that the test never reads half of it. */
function say(report: object): void {
  const file = process.env.DISKPROBE_REPORT;
  if (file === undefined)
    throw new Error('holdsMounts.fixture.ts is run by test/privateMounts/interrupted.test.ts, which names its report file in DISKPROBE_REPORT');
  writeFileSync(`${file}.part`, JSON.stringify(report));
  renameSync(`${file}.part`, file);
}

test('holds its mounts until it is interrupted', async () => {
  if (fuseSkipReason !== undefined) {
    say({ cannot: fuseSkipReason });
    return;
  }
  const tmpfs = mountTmpfs('size=1m');
  const ext4 = mountExt4(16, 0);
  const fuse = await mountFuse('dead');
  // stat asks the dead mount, which never answers: it waits until the daemon dies.
  const stuck = spawn('stat', [fuse.dir], { stdio: 'ignore' });
  say({
    mounts: [tmpfs.dir, ext4.dir, fuse.dir],
    image: join(dirname(ext4.dir), 'fs.img'),
    dirs: [tmpfs.dir, dirname(ext4.dir), fuse.dir],
    pids: { testProcess: process.pid, fuseDaemon: fuse.pid, stuckOnDeadMount: stuck.pid },
  });
  await new Promise(() => {});
});
