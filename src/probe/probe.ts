// The public probe of one path: validates input, and applies the dead-mount
// guard before the backend is asked.
import { dirname, parse, resolve, toNamespacedPath } from 'node:path';

import { type AnyUsage, namedPath, type ProbeTarget } from './backend.js';
import {
  abortError,
  codeNameError,
  type OptionNames,
  timeoutError,
  validateOptions,
  validatePath,
  validatePathLength,
  validateSignal,
  validateTimeout,
} from './errors.js';
import { DEFAULT_TIMEOUT_MS } from './limits.js';
import { guard, impl, SYSCALL, tables, windows } from './runtime.js';
import type { DiskUsage, DiskUsageOptions, DiskUsageSyncOptions } from './types.js';

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

const DISK_USAGE_OPTIONS: OptionNames<DiskUsageOptions> = { bigint: true, timeout: true, signal: true };
const DISK_USAGE_SYNC_OPTIONS: OptionNames<DiskUsageSyncOptions> = { bigint: true, timeout: true };

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
    options = validateOptions(options, DISK_USAGE_OPTIONS) ?? {};
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
  options = validateOptions(options, DISK_USAGE_SYNC_OPTIONS);
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
