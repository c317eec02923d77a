// What the public functions ask of a backend, and what they give it.
import type { DeadMountGuard } from './deadMountGuard.js';
import type { MountEntry } from './mountEntry.js';
import type { Backend, CancelSignal, DiskUsage } from './types.js';

/** One path to probe, already validated. */
export interface ProbeTarget {
  /** The path as the OS should see it (the caller's, or its long form on Windows). */
  readonly osPath: string;
  /** Absolute; what results and errors report. */
  readonly path: string;
  /** The mount the path lies under by name: the dead-mount guard's key. */
  readonly mountPoint: string;
  /** That mount's table entry, when the table has one. */
  readonly mount?: MountEntry | undefined;
}

const WINDOWS = process.platform === 'win32';

/**
 * The path errors name for a probe of `osPath` (reported as `path`): on
 * POSIX the path as the kernel was given it, absolute but not normalized,
 * as fs names it (so "missing/.." is not named as the directory it is by
 * name); on Windows, `path`.
 */
export function namedPath(osPath: string, path: string): string {
  return WINDOWS ? path : osPath;
}

export interface ProbeContext {
  readonly guard: DeadMountGuard;
  /** The mount that holds the file the kernel found for `osPath` (reported as `path`), whose st_dev is `key`. */
  mountOf(key: number, osPath: string, path: string): MountEntry | undefined;
}

export type AnyUsage = DiskUsage<number> | DiskUsage<bigint>;

export interface ProbeBackend {
  readonly name: Backend;
  /**
   * Probes on the calling thread: may block on a dead mount. Takes the
   * target's two paths rather than a target: the hot path makes none.
   */
  sync(osPath: string, path: string, bigint: boolean): AnyUsage;
  /**
   * As sync(path, path, false), if an earlier probe of exactly this string
   * learned its mount (and so validated it, absolute and normal); undefined
   * otherwise. POSIX only. The cheapest call there is: no validation at all.
   */
  syncKnown?(path: unknown): AnyUsage | undefined;
  /**
   * Probes the mount point of `mount` (the mount visible there) on the
   * calling thread: for the caller that has found nothing in the way can
   * block (MountTable.walksInMemory). One statvfs; throws the probe's error.
   * Native backend only.
   */
  mountPoint?(mount: MountEntry, bigint: boolean): AnyUsage;
  /**
   * Probes `target` on the calling thread if nothing in the way can block
   * (the native backend's inline probe); undefined when only a probe on the
   * addon's threads could tell. Throws the probe's error.
   */
  inline?(target: ProbeTarget, bigint: boolean): AnyUsage | undefined;
  /** Probes elsewhere and blocks at most `timeout` ms, then throws ETIMEDOUT. */
  syncWithTimeout(target: ProbeTarget, bigint: boolean, timeout: number): AnyUsage;
  /** Probes elsewhere without blocking; rejects with ETIMEDOUT after `timeout` ms. */
  async(target: ProbeTarget, bigint: boolean, timeout: number, signal: CancelSignal | undefined): Promise<AnyUsage>;
}

/** Lane ids for the backends: one per mount point, so a dead mount holds one thread. */
export class LaneIds {
  private readonly ids = new Map<string, number>();
  private last = 0;
  /** The lane for `key` (a mount point, or a lane of its). */
  of(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = ++this.last;
      this.ids.set(key, id);
    }
    return id;
  }
}
