// The public probe: picks the backend, validates input, and applies the
// dead-mount guard before any backend is asked.
import { setMaxListeners } from 'node:events';
import { realpathSync } from 'node:fs';
import { dirname, parse, resolve, toNamespacedPath } from 'node:path';

import { type AnyUsage, namedPath, type ProbeBackend, type ProbeContext, type ProbeTarget } from './backend.js';
import { DeadMountGuard, type MountEvent } from './deadMountGuard.js';
import {
  abortError,
  codeError,
  codeNameError,
  timeoutError,
  validateOptions,
  validatePath,
  validatePathLength,
  validateSignal,
  validateTimeout,
} from './errors.js';
import { loadFallback } from './fallbackLoader.js';
import { announcedAtFirstProbe, BUILD_COMMAND, describeFallback, type FallbackCause } from './fallbackNotice.js';
import { DEFAULT_TIMEOUT_MS } from './limits.js';
import { readMountTable } from './mountSources.js';
import { type MountEntry, type MountTable, MountTableCache, mayHang } from './mountTable.js';
import { createNativeBackend } from './nativeBackend.js';
import { loadNativeBinding, type NativeBinding } from './nativeBinding.js';
import type {
  Backend,
  CancelSignal,
  DiskUsage,
  DiskUsageOptions,
  DiskUsageSyncOptions,
  ListMountsOptions,
  Mount,
  MountsUsageOptions,
  MountUsage,
  ProbeError,
} from './types.js';

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
const binding = 'slots' in loaded ? loaded : undefined;
const fallbackCause = 'slots' in loaded ? undefined : loaded;
/** Why the fs.statfs fallback answers in this process, and what that costs, in one line; undefined when the addon does. */
export const fallbackDescription: string | undefined = fallbackCause && describeFallback(fallbackCause);
const guard = new DeadMountGuard();
const tables = new MountTableCache(
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
const impl: ProbeBackend = binding
  ? createNativeBackend(binding, context)
  : announcedAtFirstProbe(loadFallback().createStatfsBackend(context), fallbackCause ?? { kind: 'chosen' });

/** Which backend answers in this process: the native addon, or the fs.statfs fallback. */
export const backend: Backend = impl.name;

/** The system call the backend's own errors name, for the errors raised before it is called. */
const SYSCALL = impl.name === 'statfs' || process.platform === 'darwin' ? 'statfs' : process.platform === 'win32' ? 'GetDiskFreeSpaceExW' : 'statvfs';

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

const windows = process.platform === 'win32';

/**
 * What makes a POSIX path need more than a glance: a NUL or a surrogate
 * (refused, or checked for a lone one), "//" or "/." (which also sends
 * "/.hidden" the slow way, harmlessly), or a trailing slash, where resolve()
 * would change it. One scan, because validating and resolving each path
 * the long way costs a tenth of a probe.
 */
const NEEDS_A_LOOK = /[\0\uD800-\uDFFF]|\/[/.]|.\/$/;

/** Whether `path` is a valid absolute POSIX path that resolve() would return unchanged. */
function isPlainPosix(path: unknown): boolean {
  return !windows && typeof path === 'string' && path.charCodeAt(0) === 47 && !NEEDS_A_LOOK.test(path);
}

/**
 * Validates `path` (see validatePath) and returns it absolute and normal, as
 * resolve() would. A relative path is resolved here, against the working
 * directory of the call: the probe runs later, and elsewhere (a thread of
 * the addon, a helper process with a working directory of its own).
 */
function absolutePath(path: string): string {
  if (isPlainPosix(path)) {
    validatePathLength(path, SYSCALL);
    return path;
  }
  validatePath(path);
  validatePathLength(path, SYSCALL);
  // fs refuses "" (ENOENT) rather than reading it as the working directory.
  if (path === '') throw codeNameError('ENOENT', SYSCALL, path);
  const absolute = resolve(path);
  // A short relative path in a deep directory can be too long once resolved.
  if (absolute.length > path.length) validatePathLength(absolute, SYSCALL);
  return absolute;
}

/**
 * What the kernel is given for the caller's `path` (validated, `absolute` as
 * resolve() made it): on POSIX the caller's own string, made absolute
 * against the working directory of the call but not normalized, so that
 * ".." after a symlink goes up from the link's target and "file/" is
 * ENOTDIR, as with fs; on Windows, the long form of `absolute`.
 */
function kernelPath(path: string, absolute: string): string {
  if (windows) return toNamespacedPath(absolute);
  if (path === absolute || path.charCodeAt(0) === 47) return path;
  const cwd = process.cwd();
  const joined = cwd === '/' ? `/${path}` : `${cwd}/${path}`;
  validatePathLength(joined, SYSCALL);
  return joined;
}

/** What a backend probes for the caller's validated `path`, `absolute` as resolve() made it. */
function targetOf(path: string, absolute: string, withMount: boolean): ProbeTarget {
  const osPath = kernelPath(path, absolute);
  // One shape for every target, so the backends' reads of it stay monomorphic.
  if (!withMount) return { osPath, path: absolute, mountPoint: '', mount: undefined };
  const mount = tables.current().lexical(absolute);
  return { osPath, path: absolute, mountPoint: mount?.mountPoint ?? parse(absolute).root, mount };
}

/**
 * Throws at once for a mount known to be stuck, or for a path at or below a
 * path that leads off its mount to a stuck one (a symlink into a dead mount:
 * see nativeBackend's probeKey).
 */
function failFast(target: ProbeTarget, timeout: number): void {
  if (guard.size === 0) return;
  const stuck = guard.blocking(target.mountPoint);
  const named = namedPath(target.osPath, target.path);
  if (stuck) throw timeoutError(named, stuck.mountPoint, timeout, performance.now() - stuck.since);
  for (let path = target.path; path.length > target.mountPoint.length; path = dirname(path)) {
    const below = guard.blocking(path);
    if (below) throw timeoutError(named, below.mountPoint, timeout, performance.now() - below.since, true);
  }
}

/**
 * The usage of the file system that holds `path`, without blocking: the probe
 * runs on the addon's threads (or a helper process), never on libuv's pool.
 * Rejects with ETIMEDOUT after `timeout` ms (default 5000), and at once while
 * an earlier probe of the same mount is still stuck.
 */
export function diskUsage(path: string, options: DiskUsageOptions & { bigint: true }): Promise<DiskUsage<bigint>>;
export function diskUsage(path: string, options?: (DiskUsageOptions & { bigint?: false }) | null): Promise<DiskUsage<number>>;
export function diskUsage(path: string, options?: DiskUsageOptions | null): Promise<DiskUsage<number> | DiskUsage<bigint>>;
export function diskUsage(path: string, options?: DiskUsageOptions | null): Promise<AnyUsage> {
  try {
    const absolute = absolutePath(path);
    options = validateOptions(options) ?? {};
    validateSignal(options.signal);
    const timeout = validateTimeout(options.timeout) ?? DEFAULT_TIMEOUT_MS;
    if (options.signal?.aborted) return Promise.reject(abortError(options.signal));
    const target = targetOf(path, absolute, true);
    failFast(target, timeout);
    return impl.async(target, options.bigint === true, timeout, options.signal);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * The usage of the file system that holds `path`, synchronously. With a
 * `timeout`, the probe runs elsewhere and this returns or throws ETIMEDOUT
 * within it; without one, the call is direct (fastest), except while a mount
 * is known to be stuck: then it fails fast on that mount, and is bounded by
 * the default timeout elsewhere.
 */
export function diskUsageSync(path: string, options: DiskUsageSyncOptions & { bigint: true }): DiskUsage<bigint>;
export function diskUsageSync(path: string, options?: (DiskUsageSyncOptions & { bigint?: false }) | null): DiskUsage<number>;
export function diskUsageSync(path: string, options?: DiskUsageSyncOptions | null): DiskUsage<number> | DiskUsage<bigint>;
export function diskUsageSync(path: string, options?: DiskUsageSyncOptions | null): AnyUsage {
  // The usual call, kept lean (what this function adds to the syscall is
  // what bench:probe weighs against fs.statfsSync): a path probed before,
  // no options, no mount known to be stuck.
  if (options === undefined && guard.size === 0) {
    const usage = impl.syncKnown?.(path);
    if (usage !== undefined) return usage;
  }
  const absolute = absolutePath(path);
  options = validateOptions(options);
  const bigint = options?.bigint === true;
  const timeout = options === undefined ? undefined : validateTimeout(options.timeout);
  const bounded = timeout !== undefined && timeout !== Infinity;
  if (guard.size === 0) {
    const target = targetOf(path, absolute, bounded);
    return bounded ? impl.syncWithTimeout(target, bigint, timeout) : impl.sync(target.osPath, target.path, bigint);
  }
  const target = targetOf(path, absolute, true);
  failFast(target, timeout ?? DEFAULT_TIMEOUT_MS);
  // While a mount is stuck, a direct probe of a path on another mount by
  // name could still follow a symlink into it and block for good: without a
  // timeout of its own, it gets the default one (answered inline all the
  // same where that cannot block). Only an explicit Infinity waits forever.
  return timeout === Infinity ? impl.sync(target.osPath, target.path, bigint) : impl.syncWithTimeout(target, bigint, timeout ?? DEFAULT_TIMEOUT_MS);
}

function publicMount(entry: MountEntry): Mount {
  return { mountPoint: entry.mountPoint, device: entry.device, fsType: entry.fsType, readOnly: entry.readOnly, pseudo: entry.pseudo };
}

/** A mount df lists, with what its probe found: usage, or the error. */
export type DfMount<N extends number | bigint> =
  | { readonly mount: Mount; readonly usage: DiskUsage<N>; readonly error?: undefined }
  | { readonly mount: Mount; readonly usage?: undefined; readonly error: unknown };

export interface DfMountsOptions {
  /** Every mount in the table, as `df -a` lists them, empty ones too. */
  readonly all?: boolean;
  /** Milliseconds each probe may take. */
  readonly timeout: number;
  readonly signal?: AbortSignal | CancelSignal;
  /** Which mounts to consider (and probe); by default all. */
  readonly include?: (mountPoint: string, entry: MountEntry) => boolean;
  /** Told as each probe settles: how many have, of how many probed. */
  readonly onProgress?: (done: number, total: number, mountPoint: string) => void;
  /**
   * Probe only on the calling thread: resolve with undefined, having probed
   * nothing, when some mount could only be probed on the addon's threads
   * (diskprobe df, which then probes in a process it can leave behind).
   */
  readonly inlineOnly?: boolean;
}

/**
 * The mounts `df` lists, each probed once (in parallel, within `timeout`):
 * no pseudo file systems, one mount per device, none of size 0; one that
 * does not answer, or cannot be read, is listed with its error, as df lists
 * it. For callers that show the numbers as well (diskprobe df, list_mounts),
 * so that what is shown is what was checked for size 0, and nothing is
 * probed twice.
 */
export async function dfMounts(options: DfMountsOptions & { readonly bigint: true; readonly inlineOnly: true }): Promise<Array<DfMount<bigint>> | undefined>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint: true; readonly inlineOnly: boolean }): Promise<Array<DfMount<bigint>> | undefined>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint: true }): Promise<Array<DfMount<bigint>>>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint?: false }): Promise<Array<DfMount<number>>>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint?: boolean; readonly inlineOnly?: false }): Promise<Array<DfMount<number | bigint>>>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint?: boolean }): Promise<Array<DfMount<number | bigint>> | undefined> {
  const { timeout, signal, include, onProgress } = options;
  if (signal?.aborted) throw abortError(signal);
  const bigint = options.bigint === true;
  const table = tables.fresh();
  const listed = options.all === true ? table.entries : table.dfCandidates();
  const candidates = include === undefined ? listed : listed.filter((entry) => include(entry.mountPoint, entry));
  const outcomes = new Array<DfMount<number | bigint>>(candidates.length);
  // One pass: on the calling thread every mount whose probe cannot block
  // (its point's walk and its statfs read only memory), one statvfs each;
  // the rest on the addon's threads, each within the timeout.
  const later: number[] = [];
  const here = impl.mountPoint;
  const visibleAt = (entry: MountEntry): MountEntry | undefined =>
    here && table.walksInMemory(entry.mountPoint) && (guard.size === 0 || !guard.blocking(entry.mountPoint)) ? table.visibleAt(entry.mountPoint) : undefined;
  if (options.inlineOnly === true && candidates.some((entry) => visibleAt(entry) === undefined)) return undefined;
  for (let i = 0; i < candidates.length; i++) {
    const entry = candidates[i]!;
    const visible = visibleAt(entry);
    if (visible === undefined) {
      later.push(i);
      continue;
    }
    try {
      outcomes[i] = { mount: publicMount(entry), usage: here!(visible, bigint) as DiskUsage<number | bigint> };
    } catch (error) {
      outcomes[i] = { mount: publicMount(entry), error };
    }
  }
  let done = candidates.length - later.length;
  // Told once the caller has had the chance to look up: a caller that read a
  // cancel in the same turn has aborted by then, and hears nothing.
  if (done > 0 && onProgress !== undefined) {
    const answered = done;
    queueMicrotask(() => {
      if (!signal?.aborted) onProgress(answered, candidates.length, candidates[candidates.length - 1]!.mountPoint);
    });
  }
  if (later.length > 0) {
    // One listener on the caller's signal, not one per mount (past ten, Node
    // warns of a leak); the probes share a signal of ours, which may have many.
    const inner = signal && new AbortController();
    const forward = (): void => inner!.abort(signal!.reason);
    if (inner) {
      setMaxListeners(0, inner.signal);
      signal!.addEventListener('abort', forward, { once: true });
    }
    try {
      await Promise.all(
        later.map((i) => {
          const entry = candidates[i]!;
          return (diskUsage(entry.mountPoint, { bigint, timeout, ...(inner && { signal: inner.signal }) }) as Promise<DiskUsage<number | bigint>>)
            .then(
              (usage) => {
                outcomes[i] = { mount: publicMount(entry), usage };
              },
              (error: unknown) => {
                if ((error as Error | null)?.name === 'AbortError') throw error;
                outcomes[i] = { mount: publicMount(entry), error };
              },
            )
            .finally(() => onProgress?.(++done, candidates.length, entry.mountPoint));
        }),
      );
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }
  return options.all === true ? outcomes : outcomes.filter(({ usage }) => usage === undefined || (usage.total !== 0 && usage.total !== 0n));
}

/**
 * The usage of the file system holding `path` if it can be had on the
 * calling thread with no risk of blocking (the native backend's inline
 * probe: a cached path on a mount that keeps its counts in memory), else
 * undefined, having asked nothing. Throws as diskUsage rejects. For diskprobe
 * df, which probes elsewhere whatever this cannot answer.
 */
export function diskUsageInline(path: string): DiskUsage<bigint> | undefined {
  const absolute = absolutePath(path);
  const target = targetOf(path, absolute, true);
  failFast(target, DEFAULT_TIMEOUT_MS);
  return impl.inline?.(target, true) as DiskUsage<bigint> | undefined;
}

/**
 * Every mount df lists (with `all`, every mount in the table), each with its
 * usage or the error its probe gave, in the table's order. One pass: the
 * mounts whose probe cannot block are answered on the calling thread, the
 * others on the addon's threads, each within `timeout` (a mount that does
 * not answer gets ETIMEDOUT, and the others their usage all the same).
 */
export async function mountsUsage(options: MountsUsageOptions & { bigint: true }): Promise<Array<MountUsage<bigint>>>;
export async function mountsUsage(options?: (MountsUsageOptions & { bigint?: false }) | null): Promise<Array<MountUsage<number>>>;
export async function mountsUsage(options?: MountsUsageOptions | null): Promise<Array<MountUsage<number> | MountUsage<bigint>>> {
  options = validateOptions(options) ?? {};
  validateSignal(options.signal);
  validateFlag(options.all, 'all');
  validateFlag(options.bigint, 'bigint');
  const timeout = validateTimeout(options.timeout) ?? DEFAULT_TIMEOUT_MS;
  const listed = await dfMounts({ all: options.all === true, bigint: options.bigint === true, timeout, ...(options.signal && { signal: options.signal }) });
  return listed.map(({ mount, usage, error }) => ({ mount, usage: usage ?? null, error: usage === undefined ? (error as ProbeError) : null })) as Array<
    MountUsage<number> | MountUsage<bigint>
  >;
}

function validateFlag(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw codeError(
      TypeError,
      'ERR_INVALID_ARG_TYPE',
      `The "options.${name}" property must be of type boolean. Received type ${typeof value} (${String(value)})`,
    );
  }
}

/**
 * The mounted file systems. By default the set `df` shows (dfMounts).
 * With `all`, every mount in the table, as `df -a` lists them.
 */
export async function listMounts(options?: ListMountsOptions | null): Promise<Mount[]> {
  options = validateOptions(options) ?? {};
  validateSignal(options.signal);
  validateFlag(options.all, 'all');
  const timeout = validateTimeout(options.timeout) ?? DEFAULT_TIMEOUT_MS;
  if (options.signal?.aborted) throw abortError(options.signal);
  if (options.all === true) return tables.fresh().entries.map(publicMount);
  return (await dfMounts({ timeout, ...(options.signal && { signal: options.signal }) })).map((outcome) => outcome.mount);
}

// What the directory walk (src/scan/) needs of the probe: the addon, the
// mounts below a path, and the dead-mount guard. Not part of the public API.

/** The addon, whose walk runs on threads of its own; undefined where the fallback answers. */
export function walkBinding(): NativeBinding | undefined {
  return binding;
}

/** A mount point below a walk's start, as the walk needs it. */
export interface MountBelow {
  readonly mountPoint: string;
  /** Of the mounted device (Linux); NaN where unknown. */
  readonly major: number;
  readonly minor: number;
  /** A probe of it has not returned: the walk must not touch it. */
  readonly stuck: boolean;
  /** Its walk may wait forever (network, FUSE, automount). */
  readonly mayHang: boolean;
}

/** The mount points strictly below `path` (absolute, normal), from the mount table: no file system is asked. */
export function mountsBelow(path: string): MountBelow[] {
  const prefix = path.endsWith('/') || path.endsWith('\\') ? path : `${path}${windows ? '\\' : '/'}`;
  const below: MountBelow[] = [];
  // The table as it is now, not as cached: a walk must know a mount made a moment ago
  // (the fallback's cache lasts a second, and the addon's change signal may lag).
  for (const entry of tables.reread().entries) {
    if (!entry.mountPoint.startsWith(prefix) || entry.mountPoint.length === prefix.length) continue;
    const key = entry.deviceKey;
    below.push({
      mountPoint: entry.mountPoint,
      major: Number.isNaN(key) ? NaN : Math.floor(key / 1048576),
      minor: Number.isNaN(key) ? NaN : key % 1048576,
      stuck: guard.size > 0 && guard.blocking(entry.mountPoint) !== undefined,
      mayHang: mayHang(entry),
    });
  }
  return below;
}

/** The mount that holds `path` by name (absolute, normal), with whether its walk may wait forever; no file system is asked. */
export function mountHolding(path: string): { readonly mountPoint: string; readonly mayHang: boolean; readonly stuck: boolean } | undefined {
  // Read again: a mount made a moment ago must drop the kept walks it changes (a mounts-changed event) before one answers.
  const entry = tables.reread().lexical(path);
  if (entry === undefined) return undefined;
  return { mountPoint: entry.mountPoint, mayHang: mayHang(entry), stuck: guard.size > 0 && guard.blocking(entry.mountPoint) !== undefined };
}

let walkTokens = 0;

/**
 * A walk's thread has been held at `path` for `timeout` ms: the mount that
 * holds it is stuck until `settled()` says the call returned. Later probes
 * and walks then fail fast there, as after a probe's timeout.
 */
export function markWalkStuck(path: string, since: number, timeout: number, settled: () => boolean): void {
  const mount = tables.current().lexical(path);
  if (mount === undefined) return;
  // Negative tokens: never a backend's.
  guard.markStuck({ mountPoint: mount.mountPoint, path, since, token: -++walkTokens, settled }, timeout);
}
