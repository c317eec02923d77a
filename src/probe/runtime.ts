// What every probe of this process shares: the backend, chosen once when
// the module loads (the addon, or the fs.statfs fallback and why); the
// dead-mount guard; the mount table, cached, and its watch.
import { realpathSync } from 'node:fs';

import type { ProbeBackend, ProbeContext } from './backend.js';
import { DeadMountGuard, type MountEvent } from './deadMountGuard.js';
import { codeError } from './errors.js';
import { loadFallback } from './fallbackLoader.js';
import { announcedAtFirstProbe, BUILD_COMMAND, describeFallback, type FallbackCause } from './fallbackNotice.js';
import type { MountEntry } from './mountEntry.js';
import { readMountTable } from './mountSources.js';
import type { MountTable } from './mountTable.js';
import { MountTableCache } from './mountTableCache.js';
import { createNativeBackend } from './nativeBackend.js';
import { loadNativeBinding, type NativeBinding } from './nativeBinding.js';
import type { Backend } from './types.js';

export const windows = process.platform === 'win32';

/** The addon, or why the fallback answers instead. */
function loadBinding(): NativeBinding | FallbackCause {
  const forced = process.env.DISKPROBE_BACKEND;
  if (forced !== undefined && forced !== '' && forced !== 'native' && forced !== 'statfs') {
    throw codeError(Error, 'ERR_INVALID_ARG_VALUE', `DISKPROBE_BACKEND must be "native" or "statfs", not ${JSON.stringify(forced)}`);
  }
  if (forced === 'statfs') return { kind: 'chosen' };
  const loaded = loadNativeBinding();
  if (!(loaded instanceof Error)) return loaded;
  if (forced === 'native') {
    throw codeError(
      Error,
      'ERR_DLOPEN_FAILED',
      `DISKPROBE_BACKEND=native, but diskprobe's native addon could not be loaded: ${loaded.message}\n` +
        `Build it (${BUILD_COMMAND}), or unset DISKPROBE_BACKEND to use the fs.statfs fallback.`,
    );
  }
  return { kind: 'notLoaded', reason: loaded.message }; // the fallback's first probe says so (fallbackNotice.ts)
}

const loaded = loadBinding();
/** The addon; undefined where the fallback answers. */
export const binding = 'slots' in loaded ? loaded : undefined;
const fallbackCause = 'slots' in loaded ? undefined : loaded;
/** Why the fs.statfs fallback answers in this process, and what that costs, in one line; undefined when the addon does. */
export const fallbackDescription: string | undefined = fallbackCause && describeFallback(fallbackCause);
export const guard = new DeadMountGuard();
export const tables = new MountTableCache(
  () => readMountTable(binding),
  binding && process.platform === 'linux' ? () => binding.mountTableChanged() : undefined,
  (added, removed) => guard.emit({ type: 'mounts-changed', added, removed }),
);

const context: ProbeContext = {
  guard,

  mountOf(key: number, osPath: string, path: string): MountEntry | undefined {
    // What the kernel was given, on POSIX: "link/.." is the parent of the
    // link's target there, not the link's own directory.
    const asked = windows ? path : osPath;
    const table = tables.knowing(key);
    const held = table.containing(key, asked);
    if (held) return held;
    // No mount has that device (btrfs subvolumes, another namespace's view):
    // go by the real path's name instead.
    try {
      return table.lexical(realpathSync.native(asked));
    } catch {
      return table.lexical(path);
    }
  },
};

// The fallback is loaded only when it is needed (see fallbackLoader.ts).
export const impl: ProbeBackend = binding
  ? createNativeBackend(binding, context)
  : announcedAtFirstProbe(loadFallback().createStatfsBackend(context), fallbackCause ?? { kind: 'chosen' });

/** Which backend answers in this process: the native addon, or the fs.statfs fallback. */
export const backend: Backend = impl.name;

/** The system call the backend's own errors name, for the errors raised before it is called. */
export const SYSCALL = impl.name === 'statfs' || process.platform === 'darwin' ? 'statfs' : process.platform === 'win32' ? 'GetDiskFreeSpaceExW' : 'statvfs';

/** Subscribes to mounts going stuck, answering again, and coming and going; returns the unsubscribe function. */
export function onMountEvent(listener: (event: MountEvent) => void): () => void {
  return guard.on(listener);
}

let watchers = 0;
let watchTimer: NodeJS.Timeout | undefined;

/**
 * Checks the mount table every `intervalMs` until the returned function is
 * called, so 'mounts-changed' events come without waiting for a probe. On
 * Linux with the addon a check reads the kernel's change flag on mountinfo
 * (the table is re-read only when it is set); elsewhere the table is re-read
 * once it is a second old. The table is read when the watch starts, so any
 * change after the call is reported. The timer keeps no process alive.
 * Watches share one timer.
 */
export function watchMountTable(intervalMs = 500): () => void {
  const check = (): void => {
    try {
      tables.current();
    } catch {
      // unreadable this time (a /proc hiccup): the next tick tries again
    }
  };
  watchers++;
  if (watchTimer === undefined) {
    // The table as it is now is what the first change is told against: read
    // it here, or a change before the first tick would be taken for the start.
    check();
    watchTimer = setInterval(check, intervalMs).unref();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--watchers === 0) {
      clearInterval(watchTimer);
      watchTimer = undefined;
    }
  };
}

/**
 * Where a real path lies in its file system (see MountTable.source): from
 * the cached mount table only. Linux; undefined elsewhere.
 */
export function mountSource(path: string): ReturnType<MountTable['source']> {
  return tables.current().source(path);
}

/** The other names of a real path through other mounts of its device (see MountTable.aliases). */
export function mountAliases(path: string): string[] {
  return tables.current().aliases(path);
}

/** Mount points whose last probe timed out and has not returned. */
export function stuckMounts(): string[] {
  return guard.stuckMounts();
}
