// A walk in progress, whichever backend runs it, and the one way to wait for
// it: until it is done, a deadline passes, the caller cancels, or it stalls
// on directories that do not answer.
import { availableParallelism } from 'node:os';

import { abortError } from '../probe/errors.js';
import type { CancelSignal } from '../probe/types.js';
import type { ScanTree } from './scanTree.js';
import type { WalkProgress } from './types.js';

/** How a walk is started (both backends). */
export interface WalkOptions {
  readonly threads: number | undefined;
  readonly oneFileSystem: boolean;
  /** A record of every entry that is not a directory (du -a). */
  readonly keepFiles: boolean;
  /** The largest files kept per directory. */
  readonly topFiles: number;
  /** Errors kept with their names. */
  readonly maxErrors: number;
  /** [path, major, minor, stuck]: the mount points below the start. */
  readonly mounts: ReadonlyArray<readonly [string, number, number, boolean]>;
}

export interface Walk {
  /** Date.now() when it started. */
  readonly startedAt: number;
  /** Resolves once every directory has been listed; never rejects. */
  readonly finished: Promise<void>;
  readonly done: boolean;
  /** Date.now() when it was done (undefined until then): the age of what a kept walk says. */
  readonly endedAt: number | undefined;
  progress(): WalkProgress;
  /** The directories (node indexes) its threads are on now: after stop(), those held in a call that has not returned. */
  busy(): readonly number[];
  /** The tree as it stands: whole once done. */
  tree(): Promise<ScanTree>;
  /** Ends it soon; tree() still answers with what it found. */
  stop(): void;
  /** Ends it and frees its tree as soon as nothing of it runs. */
  release(): void;
  /** It no longer keeps the process alive (the caller stopped waiting for it). */
  unref(): void;
}

/**
 * Threads a walk runs on unless told otherwise: one a core, at least two (so
 * that a directory on a dead mount never holds the only thread) and at most
 * sixteen. Measured (`npm run bench:du`, docs/du.md): on 2 cores, 2 threads
 * walk 1.7-1.8 times as fast as 1, and 3 to 8 no faster (slower on ext4).
 */
export function defaultWalkThreads(): number {
  return Math.min(16, Math.max(2, availableParallelism()));
}

/** How long a walk may make no progress at all before it is given up: its threads wait on directories that do not answer. */
export const STALL_MS = 5000;
const POLL_MS = 200;

export type WaitOutcome = 'done' | 'deadline' | 'stalled';

/**
 * Waits for `walk`: until it is done, `timeoutMs` pass, or it makes no
 * progress for `stallMs` (a dead mount holds every thread still busy).
 * Reports progress to `onProgress` as it goes. Rejects with an AbortError
 * when `signal` aborts; the walk is not stopped here, in any case.
 */
export function waitForWalk(
  walk: Walk,
  options: {
    readonly timeoutMs: number;
    readonly stallMs: number;
    readonly signal?: CancelSignal | undefined;
    readonly onProgress?: ((progress: WalkProgress) => void) | undefined;
  },
): Promise<WaitOutcome> {
  const { signal, onProgress, stallMs } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (walk.done) return Promise.resolve('done');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let last = walk.progress();
    let lastChange = started;
    let settled = false;
    const finish = (outcome: WaitOutcome | Error): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      if (deadline !== undefined) clearTimeout(deadline);
      signal?.removeEventListener('abort', aborted);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const aborted = (): void => finish(abortError(signal!));
    const poll = setInterval(() => {
      const now = performance.now();
      const progress = walk.progress();
      if (progress.entries !== last.entries || progress.directories !== last.directories) {
        last = progress;
        lastChange = now;
        onProgress?.(progress);
      } else if (now - lastChange >= stallMs) {
        finish('stalled');
      }
    }, POLL_MS);
    const deadline = Number.isFinite(options.timeoutMs)
      ? setTimeout(() => finish('deadline'), Math.max(0, options.timeoutMs - (performance.now() - started)))
      : undefined;
    signal?.addEventListener('abort', aborted, { once: true });
    void walk.finished.then(() => finish('done'));
  });
}
