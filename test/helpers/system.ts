// Real mounts for tests: tmpfs, loop-mounted ext4, and the project's FUSE
// fixture (test/fixtures/fusefix.c). Everything here needs root; `rootSkipReason` says why a test
// cannot run, and callers skip with that reason printed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildFuseFixture, fuseMachineSkipReason, startFuseFixture } from '../fixtures/fusefix.mjs';
import { NO_PRIVATE_MOUNTS, ownsMountNamespace } from './privateMounts.mjs';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export const isRoot = process.getuid?.() === 0;

/** Whether `command` is on the PATH. */
export function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/**
 * Why tests that rely on Linux itself (/proc/self/mountinfo, /dev/shm, tmpfs,
 * loop and FUSE mounts) cannot run here, or undefined on Linux.
 */
export const linuxSkipReason: string | undefined =
  process.platform === 'linux' ? undefined : `Linux only (/proc/self/mountinfo, /dev/shm, Linux mounts); this is ${process.platform}`;

/**
 * Why tests that speak POSIX paths ('/' as the root mount, '/etc', '/usr')
 * cannot run here: on Windows such a path means the current drive, and the
 * MCP tools refuse it as not absolute. The Windows prebuilds are checked by
 * the prebuild workflow's smoke step instead (and here by `npm run
 * test:prebuilds`, under wine).
 */
export const posixPathsSkipReason: string | undefined =
  process.platform === 'win32' ? "POSIX paths ('/' as the root mount) mean something else on win32" : undefined;

/** Why tests that compare with GNU df (its --output and -B1, df -hT's layout) cannot run here. */
export const gnuDfSkipReason: string | undefined =
  spawnSync('df', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') === true
    ? undefined
    : `GNU df (coreutils) is not installed${process.platform === 'linux' ? '' : ` (${process.platform})`}: these tests compare with its --output, -B1 and -hT`;

/**
 * Whether this process may mount: a container without CAP_SYS_ADMIN (Docker's
 * default, as in the prebuild workflow's Linux jobs) refuses mount(2) even to root.
 */
function mayMount(): boolean {
  try {
    const effective = /^CapEff:\s*([0-9a-fA-F]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return effective === undefined || (BigInt(`0x${effective}`) & (1n << 21n)) !== 0n; // CAP_SYS_ADMIN is bit 21
  } catch {
    return true;
  }
}

/**
 * Why root-only mount tests cannot run here, or undefined when they can. A
 * test file mounts only in a mount namespace of its own, which the vitest pool
 * makes for it (test/privateMountsPool.ts): elsewhere its mounts would be
 * every other process's to see, and an interrupted run's to leave behind.
 */
export const rootSkipReason: string | undefined =
  linuxSkipReason ??
  (!isRoot
    ? 'needs root to mount tmpfs and loop images'
    : !has('mount')
      ? 'mount(8) is missing'
      : !mayMount()
        ? 'root without CAP_SYS_ADMIN (an unprivileged container): mount(2) is refused'
        : !ownsMountNamespace()
          ? `not in a mount namespace of its own, where its mounts would stay unseen and go with it (${process.env[NO_PRIVATE_MOUNTS] ?? "not started by vitest.config.ts's pool"})`
          : undefined);

/**
 * Why FUSE fixture tests cannot run here, or undefined when they can: only
 * what the machine lacks. The fixture itself ships with the repository, so
 * failing to build or start it fails the test (mountFuse throws).
 */
export const fuseSkipReason: string | undefined = rootSkipReason ?? fuseMachineSkipReason();

/** Prints why a suite is skipped, so a skip is never silent. */
export function announceSkip(suite: string, reason: string | undefined): boolean {
  if (reason) console.warn(`[skipped] ${suite}: ${reason}`);
  return reason !== undefined;
}

export function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The mount points df lists, and the ones it could not stat. A mount left
 * dead by someone else (a FUSE daemon that died: "Transport endpoint is not
 * connected") makes df exit 1 while it still lists every other mount; that is
 * the machine's state, not a failure of the code under test.
 */
export function dfTargets(args: string[]): { targets: string[]; unreadable: string[] } {
  const result = spawnSync('df', [...args, '--output=target'], { encoding: 'utf8' });
  const unreadable = [...result.stderr.matchAll(/^df: (.*): [^:\n]+$/gm)].map((m) => m[1]!);
  const stderrLines = result.stderr.split('\n').filter(Boolean);
  if (result.status !== 0 && (result.status !== 1 || unreadable.length !== stderrLines.length)) {
    throw new Error(`df ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  }
  return { targets: result.stdout.trim().split('\n').slice(1), unreadable };
}

/** Temp dirs made by this process, not yet removed (removeTempDirs). */
const madeDirs: string[] = [];

/**
 * A fresh directory under the system's temp dir, removed after the test file
 * (test/setup.ts) or at the process's exit, whichever comes first
 * (removeTempDirs). Tests unmount what they mount in it.
 */
export function tempDir(name = 'diskprobe-'): string {
  if (madeDirs.length === 0) process.once('exit', removeTempDirs);
  const dir = mkdtempSync(join(tmpdir(), name));
  madeDirs.push(dir);
  return dir;
}

/**
 * Removes the temp dirs made so far, and what tests left in them, without a
 * recursive walk or a stat: a walk could reach into a mount another test left
 * dead, and hang. Files and symlinks (by their directory entry's type) are
 * unlinked, subdirectories rmdir'ed if empty, and a mount point (EBUSY) or
 * anything else that cannot go is left where it is.
 */
export function removeTempDirs(): void {
  // A daemon still alive here is a test's that never cleaned up: its mount
  // is one of these dirs, and on a `dead` one even this readdir would wait
  // for that daemon, which lives as long as this process: for ever.
  killDaemons();
  for (const dir of madeDirs.splice(0).reverse()) {
    try {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        try {
          if (entry.isDirectory()) rmdirSync(path);
          else unlinkSync(path);
        } catch {
          // a mount point, or not empty: left as it is
        }
      }
      rmdirSync(dir);
    } catch {
      // gone, or not empty: left as it is
    }
  }
}

/** A mounted file system that `cleanup` unmounts and removes. */
export interface TestMount {
  readonly dir: string;
  cleanup(): void;
}

function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir]);
  rmSync(dir, { recursive: true, force: true });
}

/** A tmpfs at `dir`; `source` is what the mount table names as its device ("tmpfs", as mount(8) is usually given). */
export function mountTmpfs(options: string, dir = tempDir(), source = 'tmpfs'): TestMount {
  mkdirSync(dir, { recursive: true });
  run('mount', ['-t', 'tmpfs', '-o', options, source, dir]);
  return { dir, cleanup: () => unmount(dir) };
}

/**
 * An ext4 image of `sizeMiB`, with `reservedPercent` of its blocks reserved for root, loop-mounted.
 * `populate` fills it first; it is then mounted afresh, so that nothing below its root is in the kernel's cache.
 */
export function mountExt4(sizeMiB: number, reservedPercent: number, populate?: (dir: string) => void): TestMount {
  const work = tempDir();
  const image = join(work, 'fs.img');
  const dir = join(work, 'mnt');
  mkdirSync(dir);
  run('truncate', ['-s', `${sizeMiB}M`, image]);
  run('mkfs.ext4', ['-q', '-F', '-m', String(reservedPercent), image]);
  run('mount', ['-o', 'loop', image, dir]);
  if (populate) {
    try {
      populate(dir);
    } finally {
      run('umount', ['-d', dir]);
    }
    run('mount', ['-o', 'loop', image, dir]);
  }
  return {
    dir,
    cleanup: () => {
      spawnSync('umount', ['-d', dir]);
      rmSync(work, { recursive: true, force: true });
    },
  };
}

export function bindMount(source: string, target: string): TestMount {
  mkdirSync(target, { recursive: true });
  run('mount', ['--bind', source, target]);
  return { dir: target, cleanup: () => unmount(target) };
}

/** A running fusefix daemon. `cleanup` SIGKILLs it by pid, which frees every call stuck on it. */
export interface FuseMount extends TestMount {
  readonly pid: number;
}

const liveDaemons = new Set<number>();

/** SIGKILLs every fusefix daemon this process started and has not cleaned up. */
function killDaemons(): void {
  for (const pid of liveDaemons) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  liveDaemons.clear();
}

// Whatever happens to the test, no daemon may outlive it: a thread stuck on
// a `hang` or `dead` mount cannot even be killed until its daemon is gone.
process.on('exit', killDaemons);

/**
 * The FUSE fixture mounted in `mode` (see fusefix.c) on a fresh temp dir, or
 * on `target` (made if missing; a directory inside a tree a test walks).
 * Nothing here touches the mount, so a `dead` one cannot block it; the caller
 * must not either (no stat, readdir or walk of `dir` in its own process, but
 * on a walk's own threads, which the daemon's death frees).
 */
export async function mountFuse(mode: 'odd' | 'hang' | 'dead' | 'vanish' | 'slow', target?: string): Promise<FuseMount> {
  const binary = buildFuseFixture(join(projectRoot, 'test/.fixtures'));
  const dir = target ?? tempDir(`diskprobe-${mode}-`);
  if (target !== undefined) mkdirSync(target, { recursive: true });
  const pid = await startFuseFixture(binary, mode, dir).catch((error: unknown) => {
    unmount(dir); // it may have mounted before it failed
    throw error;
  });
  liveDaemons.add(pid);
  return {
    dir,
    pid,
    cleanup: () => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      liveDaemons.delete(pid);
      unmount(dir);
    },
  };
}

/** `stat -f` of a path: the kernel's own counts, for exact comparisons. */
export function statFs(path: string): { frsize: bigint; blocks: bigint; bfree: bigint; bavail: bigint; files: bigint; ffree: bigint } {
  const [frsize, blocks, bfree, bavail, files, ffree] = run('stat', ['-f', '-c', '%S %b %f %a %c %d', path]).trim().split(' ').map(BigInt);
  return { frsize: frsize!, blocks: blocks!, bfree: bfree!, bavail: bavail!, files: files!, ffree: ffree! };
}

/** One `df` row for a path, in bytes: size, used, avail, and Use% as df prints it. */
export function df(path: string): {
  size: bigint;
  used: bigint;
  avail: bigint;
  percent: string;
  target: string;
  itotal: string;
  iused: string;
  ifree: string;
  ipercent: string;
} {
  const lines = run('df', ['-B1', '--output=size,used,avail,pcent,itotal,iused,iavail,ipcent,target', path]).trim().split('\n');
  const [size, used, avail, percent, itotal, iused, ifree, ipercent, ...target] = lines[1]!.trim().split(/\s+/);
  return {
    size: BigInt(size!),
    used: BigInt(used!),
    avail: BigInt(avail!),
    percent: percent!,
    itotal: itotal!,
    iused: iused!,
    ifree: ifree!,
    ipercent: ipercent!,
    target: target.join(' '),
  };
}
