// The file systems npm run bench:du builds its trees on, and their cleanup.
//
// The bench runs in a private mount namespace (util-linux unshare), so its
// mounts are seen by nothing else and go away with its last process, even
// when it is killed. Besides that, every mount and temporary file is
// registered here and removed on exit, on an uncaught error and on Ctrl-C:
// a 4,000,000-entry tmpfs holds gigabytes of RAM, and it must be gone before
// the next tree is built, not at the end of the run. The ext4 image is
// unlinked as soon as it is mounted: the loop device keeps it alive, and its
// disk space comes back when the mount goes, however the bench ends.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, statfsSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const cleanups = [];
// Commands running now (run() below), each in its own process group: ended
// first, with whatever they started (/usr/bin/time's command), so none
// still uses a mount being removed.
const running = new Set();

/** Ends every command still running, then runs every cleanup registered so far, newest first; each once. */
export function cleanUp() {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  while (cleanups.length > 0) {
    try {
      cleanups.pop()();
    } catch (error) {
      console.error(`bench:du: cleanup: ${error.message}`);
    }
  }
}

/** Registers `step`, to run at exit or at cleanUp(); returns a function that runs it now. */
function onCleanup(step) {
  cleanups.push(step);
  return () => {
    const at = cleanups.indexOf(step);
    if (at >= 0) cleanups.splice(at, 1);
    step();
  };
}

process.on('exit', cleanUp);
for (const [signal, number] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
]) {
  process.on(signal, () => {
    console.error(`\nbench:du: ${signal}, cleaning up`);
    cleanUp();
    process.exit(128 + number);
  });
}

const NAMESPACE_MARK = 'DISKPROBE_BENCH_DU_NAMESPACE';

/**
 * Re-runs this script in a private mount namespace and exits with its
 * status: in this process the promise never settles. Resolves at once in
 * the re-run (or when `unshare` is missing, with a note: the cleanup above
 * still runs).
 */
export function enterPrivateMountNamespace() {
  if (process.env[NAMESPACE_MARK] === '1') return Promise.resolve();
  if (spawnSync('unshare', ['--version']).status !== 0) {
    console.error('bench:du: no unshare (util-linux); mounting in the shared namespace');
    return Promise.resolve();
  }
  const child = spawn('unshare', ['--mount', '--propagation', 'private', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [NAMESPACE_MARK]: '1' },
  });
  // A signal sent to this process alone (kill PID, a CI timeout) is passed
  // on, so the re-run cleans up; wait for it rather than exit first.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(signal).on(signal, () => child.kill(signal));
  child.on('exit', (status, signal) => process.exit(status ?? 128 + (signal === 'SIGINT' ? 2 : 15)));
  return new Promise(() => {});
}

/** A fresh temporary directory, removed at cleanup. */
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(os.tmpdir(), `diskprobe-bench-du-${prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function mustRun(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${(result.stderr || result.error?.message || '').trim()}`);
}

/** Mounts `target`'s file system on `dir`; returns the function that unmounts it (also run at cleanup). */
function mounted(dir, mountArgs) {
  mustRun('mount', [...mountArgs, dir]);
  // Lazy: a child killed by Ctrl-C may still hold the tree for a moment.
  return onCleanup(() => spawnSync('umount', ['--lazy', dir]));
}

/** A tmpfs on `dir` big enough for `entries`: a limit only, it takes RAM as files are written. */
export function mountTmpfs(dir, entries) {
  const size = Math.max(4 * 2 ** 30, entries * 16 * 1024);
  return { unmount: mounted(dir, ['-t', 'tmpfs', '-o', `size=${size},nr_inodes=0,mode=755`, 'tmpfs']), diskBytes: () => 0 };
}

/**
 * The disk an ext4 image of `entries` needs, as an estimate to check before
 * making it: about 2 KiB an entry for data and directories (the tree
 * generator writes ~1.3 KiB of pages an entry), its 256-byte inode, and a
 * journal.
 */
export function ext4DiskEstimate(entries) {
  return entries * (2048 + 256) + 2 ** 30;
}

/** Where the ext4 images go, and the bytes free there. */
export function imageDirectory() {
  const dir = '/var/tmp';
  const fs = statfsSync(dir);
  return { dir, free: fs.bavail * fs.bsize };
}

/**
 * A fresh ext4 on a loop-mounted image in /var/tmp, mounted on `dir`, with
 * an inode for every entry. Returns { unmount, diskBytes() }: diskBytes is
 * what the image takes on disk now (it is sparse; the image is unlinked
 * once mounted, and measured through a descriptor kept open).
 */
export function mountExt4(dir, entries) {
  const image = join(imageDirectory().dir, `diskprobe-bench-du-${process.pid}-${entries}.img`);
  const removeImage = onCleanup(() => rmSync(image, { force: true }));
  const nominal = Math.ceil((entries * 8 * 1024 + 2 ** 30) / 2 ** 20);
  mustRun('truncate', ['-s', `${nominal}M`, image]);
  // Inode tables and journal written now, not by ext4lazyinit in the background while the bench times walks.
  mustRun('mkfs.ext4', ['-q', '-F', '-N', String(Math.ceil(entries * 1.05) + 1024), '-m', '0', '-E', 'lazy_itable_init=0,lazy_journal_init=0', image]);
  const fd = openSync(image, 'r');
  const closeImage = onCleanup(() => closeSync(fd));
  const unmount = mounted(dir, ['-o', 'loop', image]);
  // Direct I/O on the image: otherwise its pages are cached twice (ext4's and
  // the image file's), and at 4,000,000 entries the walks' metadata no longer
  // stays in the cache between rounds: "warm" walks would read the disk.
  const device = spawnSync('findmnt', ['-n', '-o', 'SOURCE', dir], { encoding: 'utf8' }).stdout.trim();
  mustRun('losetup', ['--direct-io=on', device]);
  unlinkSync(image);
  removeImage();
  return {
    unmount: () => {
      unmount();
      closeImage();
    },
    diskBytes: () => fstatSync(fd).blocks * 512,
  };
}

/** MemAvailable, Shmem (tmpfs pages) and Slab (inodes, dentries), in bytes. */
export function memory() {
  const info = readFileSync('/proc/meminfo', 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? Number.NaN) * 1024;
  return { available: field('MemAvailable'), shmem: field('Shmem'), slab: field('Slab') };
}

/**
 * Runs `command args` to its end without blocking the event loop (so
 * Ctrl-C is handled at once). Resolves to { status, stdout, stderr }.
 */
export function run(command, args, { env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: env ? { ...process.env, ...env } : process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (status, signal) => {
      running.delete(child);
      resolve({ status: status ?? 128, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}
