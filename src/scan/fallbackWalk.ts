// A walk in the fallback's helper process (fallbackWalker.ts), for when no
// addon loads: a directory on a dead mount holds that process's threads,
// never this one's. The helper is left behind, never waited for, when its
// walk is given up: a thread stuck on a dead FUSE mount cannot be killed.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { NativeScanSnapshot } from '../probe/nativeBinding.js';
import { FALLBACK_SYSCALLS } from './fallbackWalker.js';
import { ScanTree } from './scanTree.js';
import type { Walk, WalkOptions } from './walk.js';

// Beside this module in dist/scan/, and beside the bundled command in dist/bin/ (scripts/bundle-cli.mjs).
const walkerPath = fileURLToPath(new URL('./fallbackWalker.js', import.meta.url));
const UNFINISHED_LISTED = 50;

type Reply = { progress: [number, number, number]; busy: number[] } | { done: true } | { snapshot: number; data: NativeScanSnapshot };

export function startFallbackWalk(path: string, options: WalkOptions): Walk {
  const startedAt = Date.now();
  const started = performance.now();
  // libuv's pool is the walk's threads here: one per lstat in flight, as many as it was asked for and more.
  const threads = options.threads ?? 4;
  const child: ChildProcess = fork(walkerPath, [], {
    // Not the caller's Node flags (--input-type, --inspect, a loader...): the helper is a plain script.
    execArgv: [],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
    env: { ...process.env, UV_THREADPOOL_SIZE: String(Math.min(128, Math.max(4, threads * 4))) },
  });
  let progress: [number, number, number] = [0, 0, 0];
  let busy: number[] = [];
  let done = false;
  let ended: number | undefined;
  let endedAt: number | undefined;
  let gone = false;
  /** Why the helper ended before its walk was done, if it did. */
  let died: Error | undefined;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => {
    resolveFinished = resolve;
  });
  const snapshots = new Map<number, (data: NativeScanSnapshot) => void>();
  let whole: ScanTree | undefined;
  let nextSnapshot = 0;
  child.on('message', (reply: Reply) => {
    if ('progress' in reply) {
      progress = reply.progress;
      busy = reply.busy;
    } else if ('done' in reply) {
      done = true;
      ended = performance.now();
      endedAt = Date.now();
      resolveFinished();
    } else {
      snapshots.get(reply.snapshot)?.(reply.data);
      snapshots.delete(reply.snapshot);
    }
  });
  child.once('exit', (code, signal) => {
    if (!gone && !done) {
      // Not stopped by us, and not done: say so at once rather than wait for the walk to be taken as stalled.
      died = new Error(`the fallback walk's helper process ended before the walk was done (${signal ?? `exit status ${code}`})`);
      resolveFinished();
    }
    gone = true;
  });
  child.send({ start: { path, options } });
  const leave = (): void => {
    gone = true;
    if (child.connected) child.disconnect();
    child.kill('SIGKILL');
    child.unref();
  };
  return {
    startedAt,
    finished,
    get done() {
      return done;
    },
    get endedAt() {
      return endedAt;
    },
    progress: () => ({ entries: progress[0], allocated: progress[1], directories: progress[2] }),
    busy: () => busy,
    tree: () =>
      new Promise((resolve, reject) => {
        if (whole !== undefined) {
          resolve(whole);
          return;
        }
        if (died !== undefined) {
          reject(died);
          return;
        }
        if (gone || !child.connected) {
          reject(new Error('the walk was released: its tree is gone'));
          return;
        }
        const id = nextSnapshot++;
        snapshots.set(id, (data) => {
          const tree = new ScanTree(data, startedAt, (ended ?? performance.now()) - started, 'statfs', FALLBACK_SYSCALLS);
          // Done, the tree will not change: the helper has nothing left to do.
          if (data.done) {
            whole = tree;
            leave();
          }
          resolve(tree);
        });
        child.send({ snapshot: id, maxUnfinished: UNFINISHED_LISTED });
      }),
    stop() {
      if (!done && child.connected) child.send({ stop: true });
    },
    release: leave,
    unref() {
      child.unref();
      (child.channel as { unref?: () => void } | undefined)?.unref?.();
    },
  };
}
