// Run by interrupted.test.ts, as the scripts that mount are run
// (scripts/test-native-safety.mjs): runs itself again in a mount namespace of
// its own (reExecInPrivateMounts), mounts a tmpfs, a loop-mounted ext4 and the
// FUSE fixture in mode `dead` with a process stuck on it, says so in the file
// named by DISKPROBE_REPORT, then waits to be interrupted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildFuseFixture, startFuseFixture } from '../fixtures/fusefix.mjs';
import { reExecInPrivateMounts } from '../helpers/privateMounts.mjs';

const reportFile = process.env.DISKPROBE_REPORT;
if (reportFile === undefined)
  throw new Error('holdsMounts.mjs is run by test/privateMounts/interrupted.test.ts, which names its report file in DISKPROBE_REPORT');

/** Writes the report whole, by a rename, so that the test never reads half of it. */
function say(report) {
  writeFileSync(`${reportFile}.part`, JSON.stringify(report));
  renameSync(`${reportFile}.part`, reportFile);
}

const cannot = await reExecInPrivateMounts('holdsMounts.mjs');
if (cannot !== undefined) {
  say({ cannot });
  process.exit(0);
}

function must(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
}

const work = mkdtempSync(join(tmpdir(), 'diskprobe-holds-'));
const [tmpfs, ext4, fuse] = ['tmpfs', 'ext4', 'fuse'].map((name) => join(work, name));
for (const dir of [tmpfs, ext4, fuse]) mkdirSync(dir);
must('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', tmpfs]);
const image = join(work, 'fs.img');
must('truncate', ['-s', '16M', image]);
must('mkfs.ext4', ['-q', '-F', image]);
must('mount', ['-o', 'loop', image, ext4]);
const daemon = await startFuseFixture(buildFuseFixture(fileURLToPath(new URL('../.fixtures', import.meta.url))), 'dead', fuse);
// stat asks the dead mount, which never answers: it waits until the daemon dies.
const stuck = spawn('stat', [fuse], { stdio: 'ignore' });
say({
  mounts: [tmpfs, ext4, fuse],
  image,
  dirs: [work],
  pids: { testProcess: process.pid, fuseDaemon: daemon, stuckOnDeadMount: stuck.pid },
});
setInterval(() => {}, 60_000);
