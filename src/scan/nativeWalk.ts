// A walk on the addon's threads (native/walk/scan.h): started with the mount
// points below the start, answered as typed arrays.
import { type NativeBinding, WALK_SYSCALLS } from '../probe/nativeBinding.js';
import { ScanTree } from './scanTree.js';
import type { Walk, WalkOptions } from './walk.js';

/** Directories named in a snapshot's unfinished list at most. */
const UNFINISHED_LISTED = 50;

export function startNativeWalk(binding: NativeBinding, path: string, options: WalkOptions): Walk {
  const startedAt = Date.now();
  const started = performance.now();
  let done = false;
  let ended: number | undefined;
  let endedAt: number | undefined;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => {
    resolveFinished = resolve;
  });
  const id = binding.scanStart(
    path,
    {
      threads: options.threads,
      oneFileSystem: options.oneFileSystem,
      keepFiles: options.keepFiles,
      topFiles: options.topFiles,
      maxErrors: options.maxErrors,
      mounts: options.mounts,
    },
    () => {
      done = true;
      ended = performance.now();
      endedAt = Date.now();
      resolveFinished();
    },
  );
  let released = false;
  return {
    startedAt,
    finished,
    get done() {
      return done;
    },
    get endedAt() {
      return endedAt;
    },
    progress() {
      const [entries, allocated, directories] = binding.scanProgress(id);
      return { entries, allocated, directories };
    },
    busy() {
      return [...binding.scanBusy(id)];
    },
    async tree() {
      const data = released ? null : binding.scanSnapshot(id, UNFINISHED_LISTED);
      if (data === null) throw new Error('the walk was released: its tree is gone');
      return new ScanTree(data, startedAt, (ended ?? performance.now()) - started, 'native', WALK_SYSCALLS);
    },
    stop() {
      if (!done) binding.scanStop(id);
    },
    release() {
      released = true;
      binding.scanRelease(id);
    },
    unref() {
      binding.scanUnref(id);
    },
  };
}
