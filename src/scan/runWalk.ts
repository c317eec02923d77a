// Starting a walk on this process's backend and seeing it through: until it
// is done, its deadline passes, the caller cancels, or it stalls on
// directories that do not answer. Then, for a walk that did not finish, the
// threads still held are taken as held by a dead mount, whose mount is
// marked stuck, so that the next walk skips it at once.
import { errnoError } from '../probe/errors.js';
import { NodeFlag } from '../probe/nativeBinding.js';
import type { CancelSignal } from '../probe/types.js';
import { markWalkStuck, mountsBelow, walkBinding } from '../probe/walkSupport.js';
import type { ScanTree } from './scanTree.js';
import type { WalkProgress } from './types.js';
import { defaultWalkThreads, STALL_MS, type Walk, type WalkOptions, waitForWalk } from './walk.js';

/** After a walk is stopped, how long its threads have to come back before the ones still out are taken as held by a dead mount. */
const HELD_AFTER_STOP_MS = 150;

/** What a walk from `path` is given of the mount table: the mount points below it, stuck ones marked (no file system is asked). */
export function mountsFor(path: string): WalkOptions['mounts'] {
  return mountsBelow(path).map(({ mountPoint, major, minor, stuck }) => [mountPoint, major, minor, stuck] as const);
}

/** Starts a walk from `path` (absolute) on this process's backend: the addon's threads, or the fallback's helper process. */
export async function startWalk(path: string, given: WalkOptions): Promise<Walk> {
  const options = { ...given, threads: given.threads ?? defaultWalkThreads() };
  const binding = walkBinding();
  if (binding !== undefined) {
    const { startNativeWalk } = await import('./nativeWalk.js');
    return startNativeWalk(binding, path, options);
  }
  const { startFallbackWalk } = await import('./fallbackWalk.js');
  return startFallbackWalk(path, options);
}

/** The start itself could not be read: the one failure that is an error rather than part of the answer. */
export function startFailure(tree: ScanTree): Error | undefined {
  if ((tree.flags(0) & NodeFlag.unreadable) === 0) return undefined;
  const failed = tree.data.errors.find((error) => error.dir === 0 && error.name.length === 0);
  if (failed === undefined) return undefined;
  return errnoError(failed.errno, tree.syscalls[failed.syscall] ?? 'stat', tree.name(0));
}

/**
 * A walk that did not finish: stop it, wait a moment for its threads, and
 * take those still out as held by a dead mount: their mounts are marked
 * stuck until their calls return. The walk no longer keeps the process alive.
 */
async function giveUp(walk: Walk, heldForMs: number): Promise<ScanTree> {
  walk.stop();
  await new Promise((resolve) => setTimeout(resolve, HELD_AFTER_STOP_MS));
  const tree = await walk.tree();
  const since = performance.now() - heldForMs;
  for (const node of walk.busy()) {
    const busy = tree.data.inProgress.find((entry) => entry.dir === node);
    const path = busy !== undefined && busy.name.length > 0 ? tree.entryPath(tree.data.parent[node]!, busy.name) : tree.path(node);
    markWalkStuck(path, since, heldForMs, () => !walk.busy().includes(node));
  }
  walk.unref();
  return tree;
}

export interface RunOptions {
  /** Milliseconds it may take in all; Infinity for no deadline. */
  readonly timeoutMs: number;
  /** Milliseconds it may make no progress before it is given up as stalled (STALL_MS by default). */
  readonly stallMs?: number;
  readonly signal?: CancelSignal | undefined;
  readonly onProgress?: ((progress: WalkProgress) => void) | undefined;
  /** At the deadline, leave it running (for a later call to answer from) rather than stop it. */
  readonly keepWalking?: boolean;
}

export interface RunOutcome {
  /** The tree as it stands: whole when `done`. */
  readonly tree: ScanTree;
  /** Every directory was listed. */
  readonly done: boolean;
  /** It made no progress for `stallMs`: its threads wait on directories that do not answer. */
  readonly stalled: boolean;
}

/**
 * Sees `walk` through (see the file's head). Rejects with an AbortError when
 * `signal` aborts; the walk is then released: it stops within one call of
 * each thread, and its memory goes as they return.
 */
export async function runWalk(walk: Walk, options: RunOptions): Promise<RunOutcome> {
  const started = performance.now();
  let outcome: Awaited<ReturnType<typeof waitForWalk>>;
  try {
    outcome = await waitForWalk(walk, {
      timeoutMs: options.timeoutMs,
      stallMs: options.stallMs ?? STALL_MS,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  } catch (error) {
    if (options.keepWalking !== true) walk.release();
    throw error;
  }
  if (outcome === 'done') return { tree: await walk.tree(), done: true, stalled: false };
  if (outcome === 'deadline' && options.keepWalking === true) return { tree: await walk.tree(), done: false, stalled: false };
  return { tree: await giveUp(walk, performance.now() - started), done: false, stalled: outcome === 'stalled' };
}
