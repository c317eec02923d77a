// The fallback when the addon cannot load: fs.statfs with bigint counts.
//
// Node 20's StatFs has no f_frsize, so bytes are blocks × f_bsize, which is
// wrong where the two differ (FUSE, virtiofs, ZFS, CephFS); on Windows it
// reports free = available. The README's platform table says so.
//
// The same never-hang guarantees as the native backend, without native
// threads: asynchronous probes run in a helper process (statfsHelper.ts),
// never in libuv's pool, because a stuck pool thread starves every other fs
// call and keeps the process from exiting. A helper stuck on a dead mount is
// retired and a fresh one serves everything else.
import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { readFileSync, statfsSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import type { AnyUsage, ProbeBackend, ProbeContext, ProbeTarget } from './backend.js';
import { abortError, codeNameError, timeoutError } from './errors.js';
import { deviceKey } from './mountTable.js';
import { usedPercentBig } from './percent.js';
import { makeInodes, makeUsage } from './usage.js';

const helperPath = fileURLToPath(new URL('./statfsHelper.js', import.meta.url));

/** bsize, blocks, bfree, bavail, files, ffree, dev: what statfs and stat tell. */
type Counts = readonly [bigint, bigint, bigint, bigint, bigint, bigint, bigint];

/** Linux's st_dev encoding (glibc's major()/minor()); NaN elsewhere, where the mount is matched by path. */
function deviceKeyOf(dev: bigint): number {
  if (process.platform !== 'linux') return NaN;
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return deviceKey(Number(major), Number(minor));
}

function toUsage(counts: Counts, path: string, bigint: boolean, context: ProbeContext): AnyUsage {
  const [bsize, blocks, bfree, bavail, files, ffree, dev] = counts;
  const mount = context.mountOf(deviceKeyOf(dev), path);
  const total = blocks * bsize, free = bfree * bsize, available = bavail * bsize, used = total - free;
  const percent = usedPercentBig(used, available);
  // No f_favail in Node's StatFs: available inodes are the free ones.
  const inodePercent = files > 0n ? usedPercentBig(files - ffree, ffree) : 0;
  const mountPoint = mount?.mountPoint ?? null;
  const fsType = mount?.fsType ?? null;
  if (bigint) {
    const inodes = files > 0n ? makeInodes(files, ffree, ffree, files - ffree, inodePercent) : null;
    return makeUsage(path, mountPoint, fsType, total, free, available, used, percent, bsize, inodes, 'statfs');
  }
  const inodes = files > 0n ? makeInodes(Number(files), Number(ffree), Number(ffree), Number(files - ffree), inodePercent) : null;
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

interface Job {
  readonly id: number;
  readonly target: ProbeTarget;
  readonly bigint: boolean;
  readonly resolve: (usage: AnyUsage) => void;
  readonly reject: (error: Error) => void;
  readonly started: number;
  helper: Helper | undefined;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** One helper process and the requests it has not answered yet. */
class Helper {
  readonly outstanding = new Set<number>();
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private buffered = '';

  constructor(onAnswer: (helper: Helper, fields: unknown[]) => void, onExit: (helper: Helper) => void) {
    this.child = spawn(process.execPath, [helperPath], { stdio: ['pipe', 'pipe', 'inherit'], windowsHide: true });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        onAnswer(this, JSON.parse(line) as unknown[]);
      }
    });
    this.child.on('exit', () => onExit(this));
    this.child.on('error', () => onExit(this));
    this.child.stdin.on('error', () => {});  // it exited; 'exit' handles that
    this.idle();
  }

  send(id: number, osPath: string): void {
    if (this.outstanding.size === 0) this.busy();
    this.outstanding.add(id);
    this.child.stdin.write(`${id}\t${JSON.stringify(osPath)}\n`);
  }

  answered(id: number): boolean {
    const had = this.outstanding.delete(id);
    if (had && this.outstanding.size === 0) this.idle();
    return had;
  }

  /** Stops sending it work; it exits once its stuck call returns and it reads EOF. */
  retire(): void {
    this.child.stdin.end();
    this.idle();
  }

  // The helper keeps the event loop alive only while it owes answers.
  private busy(): void {
    this.child.ref();
    (this.child.stdout as unknown as { ref(): void }).ref();
  }

  private idle(): void {
    this.child.unref();
    (this.child.stdout as unknown as { unref(): void }).unref();
    (this.child.stdin as unknown as { unref(): void }).unref();
  }
}

export function createStatfsBackend(context: ProbeContext): ProbeBackend {
  const { guard } = context;
  const jobs = new Map<number, Job>();
  let helper: Helper | undefined;
  let lastId = 0;

  function onAnswer(from: Helper, fields: unknown[]): void {
    const id = Number(fields[0]);
    if (!from.answered(id)) return;
    const job = jobs.get(id);
    if (job === undefined) {
      guard.settle(id);  // an abandoned probe returned: its mount answers again
      return;
    }
    finish(job);
    const counts = parseAnswer(fields, job.target.path);
    if (counts instanceof Error) job.reject(counts);
    else job.resolve(toUsage(counts, job.target.path, job.bigint, context));
  }

  function onExit(gone: Helper): void {
    if (helper === gone) helper = undefined;
    for (const id of gone.outstanding) {
      guard.settle(id);
      const job = jobs.get(id);
      if (job) {
        finish(job);
        job.reject(codeNameError('EIO', 'statfs', job.target.path));
      }
    }
    gone.outstanding.clear();
  }

  function dispatch(job: Job): void {
    helper ??= new Helper(onAnswer, onExit);
    job.helper = helper;
    helper.send(job.id, job.target.osPath);
  }

  function finish(job: Job): void {
    jobs.delete(job.id);
    if (job.timer) clearTimeout(job.timer);
    if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
  }

  /** The probe timed out: mark its mount, retire its helper, move the rest of its work to a fresh one. */
  function expire(job: Job, timeout: number): void {
    finish(job);
    guard.markStuck(
      { mountPoint: job.target.mountPoint, path: job.target.path, since: job.started, token: job.id, settled: () => !job.helper?.outstanding.has(job.id) },
      timeout,
    );
    job.reject(timeoutError(job.target.path, job.target.mountPoint, timeout));
    const stuck = job.helper;
    if (stuck === undefined || !stuck.outstanding.has(job.id)) return;
    if (helper === stuck) helper = undefined;
    stuck.retire();
    for (const id of stuck.outstanding) {
      const other = jobs.get(id);
      if (other === undefined) continue;
      stuck.answered(id);
      if (other.target.mountPoint === job.target.mountPoint) {
        finish(other);
        other.reject(timeoutError(other.target.path, other.target.mountPoint, timeout, performance.now() - job.started));
      } else {
        dispatch(other);
      }
    }
  }

  return {
    name: 'statfs',

    sync(target, bigint) {
      let counts: Counts;
      try {
        const fs = statfsSync(target.osPath, { bigint: true });
        const st = statSync(target.osPath, { bigint: true });
        counts = [fs.bsize, fs.blocks, fs.bfree, fs.bavail, fs.files, fs.ffree, st.dev];
      } catch (error) {
        const { code = 'EIO', syscall = 'statfs' } = error as NodeJS.ErrnoException;
        throw codeNameError(code, syscall, target.path);
      }
      return toUsage(counts, target.path, bigint, context);
    },

    syncWithTimeout(target, bigint, timeout) {
      const started = performance.now();
      // Through sh, the helper is a grandchild: on timeout spawnSync kills sh,
      // which always dies, and returns; a helper stuck in an uninterruptible
      // wait would otherwise keep spawnSync waiting for its exit.
      const posix = process.platform !== 'win32';
      const result = posix
        ? spawnSync('/bin/sh', ['-c', '"$0" "$1" --once "$2" & echo "$!"; wait', process.execPath, helperPath, target.osPath], {
            timeout,
            killSignal: 'SIGKILL',
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'inherit'],
          })
        : spawnSync(process.execPath, [helperPath, '--once', target.osPath], { timeout, encoding: 'utf8', windowsHide: true });
      const lines = (result.stdout ?? '').split('\n');
      const answer = posix ? lines[1] : lines[0];
      if (answer) {
        const counts = parseAnswer(JSON.parse(answer) as unknown[], target.path);
        if (counts instanceof Error) throw counts;
        return toUsage(counts, target.path, bigint, context);
      }
      const pid = Number(lines[0]);
      if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
        const token = -(++lastId);
        guard.markStuck(
          { mountPoint: target.mountPoint, path: target.path, since: started, token, settled: () => !(pid > 0 && running(pid)) },
          timeout,
        );
        throw timeoutError(target.path, target.mountPoint, timeout);
      }
      throw codeNameError('EIO', 'statfs', target.path);
    },

    async(target, bigint, timeout, signal) {
      return new Promise((resolve, reject) => {
        const job: Job = {
          id: (lastId = lastId >= 0xfffffff0 ? 1 : lastId + 1),
          target, bigint, resolve, reject,
          started: performance.now(),
          helper: undefined, timer: undefined, signal, onAbort: undefined,
        };
        jobs.set(job.id, job);
        dispatch(job);
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
