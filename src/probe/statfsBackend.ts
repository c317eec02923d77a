// The fallback when the addon cannot load: fs.statfs with bigint counts.
//
// Node 20's StatFs has no f_frsize, so bytes are blocks × f_bsize, which is
// wrong where the two differ (FUSE, virtiofs, ZFS, CephFS); on Windows it
// reports free = available. The README's platform table says so.
//
// The same never-hang guarantees as the native backend, without native
// threads: asynchronous probes run in helper processes (statfsHelperPool.ts),
// never in libuv's pool, because a stuck pool thread starves every other fs
// call and keeps the process from exiting.
import { readFileSync, statfsSync, statSync } from 'node:fs';

import { type AnyUsage, namedPath, type ProbeBackend, type ProbeContext, type ProbeTarget } from './backend.js';
import { abortError, codeNameError, helperStartError, timeoutError } from './errors.js';
import { deviceKey } from './mountInfo.js';
import { usedPercentBig } from './percent.js';
import { childProcess, HelperPool, helperPath } from './statfsHelperPool.js';
import type { CancelSignal } from './types.js';
import { makeInodes, makeUsage } from './usage.js';

/** 2^64 - 1: a count the file system says it does not know. */
const UNKNOWN_COUNT = 2n ** 64n - 1n;

/** bsize, blocks, bfree, bavail, files, ffree, dev: what statfs and stat tell. */
type Counts = readonly [bigint, bigint, bigint, bigint, bigint, bigint, bigint];

/** Linux's st_dev encoding (glibc's major()/minor()); NaN elsewhere, where the mount is matched by path. */
function deviceKeyOf(dev: bigint): number {
  if (process.platform !== 'linux') return NaN;
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return deviceKey(Number(major), Number(minor));
}

/**
 * `osPath` for a helper process to probe on this process's behalf. Linux
 * names the asking process in /proc/self (and /dev/fd, /dev/stdin, ...,
 * which lead there): in a helper they would name the helper, its cwd and its
 * descriptors, so they become /proc/<this pid>.
 */
function asAsked(osPath: string): string {
  if (process.platform !== 'linux') return osPath;
  const own = `/proc/${process.pid}`;
  if (osPath === '/proc/self' || osPath.startsWith('/proc/self/')) return own + osPath.slice('/proc/self'.length);
  if (osPath === '/dev/fd' || osPath.startsWith('/dev/fd/')) return `${own}/fd${osPath.slice('/dev/fd'.length)}`;
  const std = /^\/dev\/std(in|out|err)(?=\/|$)/.exec(osPath);
  if (std) return `${own}/fd/${['in', 'out', 'err'].indexOf(std[1]!)}${osPath.slice(std[0].length)}`;
  return osPath;
}

function toUsage(counts: Counts, osPath: string, path: string, bigint: boolean, context: ProbeContext): AnyUsage {
  const [bsize, blocks, bfree, bavail, files, ffree, dev] = counts;
  const mount = context.mountOf(deviceKeyOf(dev), osPath, path);
  const total = blocks * bsize,
    free = bfree * bsize,
    available = bavail * bsize,
    used = total - free;
  const percent = usedPercentBig(used, available);
  // No f_favail in Node's StatFs: available inodes are the free ones.
  // None (0), or 2^64 - 1, "unknown" (hugetlbfs without a limit): none to report.
  const hasInodes = files > 0n && files < UNKNOWN_COUNT;
  const inodePercent = hasInodes ? usedPercentBig(files - ffree, ffree) : 0;
  const mountPoint = mount?.mountPoint ?? null;
  const fsType = mount?.fsType ?? null;
  if (bigint) {
    const inodes = hasInodes ? makeInodes(files, ffree, ffree, files - ffree, inodePercent) : null;
    return makeUsage(path, mountPoint, fsType, total, free, available, used, percent, bsize, inodes, 'statfs');
  }
  const inodes = hasInodes ? makeInodes(Number(files), Number(ffree), Number(ffree), Number(files - ffree), inodePercent) : null;
  return makeUsage(path, mountPoint, fsType, Number(total), Number(free), Number(available), Number(used), percent, Number(bsize), inodes, 'statfs');
}

/** Parses one helper answer: the counts, or the error it names. */
function parseAnswer(fields: readonly unknown[], path: string): Counts | Error {
  if (fields[1] !== 0) return codeNameError(String(fields[1]), String(fields[2] ?? 'statfs'), path);
  return fields.slice(2, 9).map((field) => BigInt(field as string)) as unknown as Counts;
}

/** Whether a process is still running (and not a zombie left unreaped). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** How long past its timeout a probe waits for its helper process to start. */
const HELPER_START_MS = 10_000;

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

interface Job {
  readonly id: number;
  readonly target: ProbeTarget;
  readonly bigint: boolean;
  readonly resolve: (usage: AnyUsage) => void;
  readonly reject: (error: Error) => void;
  readonly started: number;
  timer: NodeJS.Timeout | undefined;
  signal: CancelSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** @internal exported for the tests */
export function createStatfsBackend(context: ProbeContext): ProbeBackend {
  const { guard } = context;
  const jobs = new Map<number, Job>();
  const pool = new HelperPool(onAnswer);
  let lastId = 0;

  function onAnswer(id: number, fields: unknown[] | undefined): void {
    const job = jobs.get(id);
    if (job === undefined) {
      guard.settle(id); // an abandoned probe returned: its mount answers again
      return;
    }
    finish(job);
    const named = namedPath(job.target.osPath, job.target.path);
    const counts = fields ? parseAnswer(fields, named) : codeNameError('EIO', 'statfs', named);
    if (counts instanceof Error) job.reject(counts);
    else job.resolve(toUsage(counts, job.target.osPath, job.target.path, job.bigint, context));
  }

  function finish(job: Job): void {
    jobs.delete(job.id);
    if (job.timer) clearTimeout(job.timer);
    if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
  }

  /**
   * The job's time is up, unless part of it went to starting a helper
   * process: a mount is given its whole `timeout` in a started helper's hands
   * (and a helper up to HELPER_START_MS beyond it to start).
   */
  function expire(job: Job, timeout: number): void {
    const waited = pool.waited(job.id);
    const starting = waited === undefined && pool.outstanding(job.id);
    if (starting ? performance.now() - job.started < timeout + HELPER_START_MS : waited !== undefined && waited < timeout) {
      job.timer = setTimeout(() => expire(job, timeout), starting ? Math.min(timeout, HELPER_START_MS) : timeout - waited!);
      return;
    }
    finish(job);
    if (starting) {
      // A helper that has not started in all that time will not: it is
      // killed (it is in no system call a mount could hold), and the next
      // probe starts another.
      pool.abandonUnstarted(job.id);
      job.reject(helperStartError(namedPath(job.target.osPath, job.target.path), Math.round(performance.now() - job.started)));
      return;
    }
    const { mountPoint, path } = job.target;
    guard.markStuck({ mountPoint, path, since: job.started, token: job.id, settled: () => !pool.outstanding(job.id) }, timeout);
    pool.timedOut(job.id, mountPoint);
    job.reject(timeoutError(namedPath(job.target.osPath, path), mountPoint, timeout));
  }

  return {
    name: 'statfs',

    sync(osPath, path, bigint) {
      let counts: Counts;
      try {
        const fs = statfsSync(osPath, { bigint: true });
        const st = statSync(osPath, { bigint: true });
        counts = [fs.bsize, fs.blocks, fs.bfree, fs.bavail, fs.files, fs.ffree, st.dev];
      } catch (error) {
        const { code = 'EIO', syscall = 'statfs' } = error as NodeJS.ErrnoException;
        throw codeNameError(code, syscall, namedPath(osPath, path));
      }
      return toUsage(counts, osPath, path, bigint, context);
    },

    syncWithTimeout(target, bigint, timeout) {
      const started = performance.now();
      // Through sh, the helper is a grandchild: on timeout spawnSync kills sh,
      // which always dies, and returns; a helper stuck in an uninterruptible
      // wait would otherwise keep spawnSync waiting for its exit.
      const posix = process.platform !== 'win32';
      const result = posix
        ? childProcess().spawnSync('/bin/sh', ['-c', '"$0" "$1" --once "$2" & echo "$!"; wait', process.execPath, helperPath, asAsked(target.osPath)], {
            timeout,
            killSignal: 'SIGKILL',
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          })
        : childProcess().spawnSync(process.execPath, [helperPath, '--once', asAsked(target.osPath)], {
            timeout,
            encoding: 'utf8',
            windowsHide: true,
            stdio: ['ignore', 'pipe', 'ignore'],
          });
      // Lines: the helper's pid (from sh), [-1] once the helper started, its answer.
      let pid = 0,
        helperStarted = false,
        answer: unknown[] | undefined;
      for (const line of (result.stdout ?? '').split('\n')) {
        if (/^\d+$/.test(line)) pid = Number(line);
        else if (line.startsWith('[') && line.endsWith(']')) {
          // not a line the kill cut short
          const fields = JSON.parse(line) as unknown[];
          if (fields[0] === -1) helperStarted = true;
          else answer = fields;
        }
      }
      if (answer) {
        const counts = parseAnswer(answer, namedPath(target.osPath, target.path));
        if (counts instanceof Error) throw counts;
        return toUsage(counts, target.osPath, target.path, bigint, context);
      }
      if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
        // Out of time before the probe began: the helper's start-up, not the
        // mount. Not yet in a system call, the helper can still be killed.
        if (!helperStarted) {
          if (pid > 0) killQuietly(pid);
          throw helperStartError(namedPath(target.osPath, target.path), timeout);
        }
        const token = -++lastId;
        guard.markStuck({ mountPoint: target.mountPoint, path: target.path, since: started, token, settled: () => !(pid > 0 && running(pid)) }, timeout);
        throw timeoutError(namedPath(target.osPath, target.path), target.mountPoint, timeout);
      }
      throw codeNameError('EIO', 'statfs', namedPath(target.osPath, target.path));
    },

    async(target, bigint, timeout, signal) {
      lastId = lastId >= 0xfffffff0 ? 1 : lastId + 1;
      return new Promise((resolve, reject) => {
        const job: Job = {
          id: lastId,
          target,
          bigint,
          resolve,
          reject,
          started: performance.now(),
          timer: undefined,
          signal,
          onAbort: undefined,
        };
        jobs.set(job.id, job);
        pool.send({ id: job.id, osPath: asAsked(target.osPath), mountPoint: target.mountPoint });
        if (timeout !== Infinity) job.timer = setTimeout(() => expire(job, timeout), timeout);
        if (signal) {
          job.onAbort = () => {
            finish(job);
            reject(abortError(signal));
          };
          signal.addEventListener('abort', job.onAbort, { once: true });
        }
      });
    },
  };
}
