// What the directory walk (src/scan/) needs of the probe: the addon, the
// mounts below a path, and the dead-mount guard. Not part of the public API.
import { mayHang } from './fsTypes.js';
import type { NativeBinding } from './nativeBinding.js';
import { binding, guard, tables, windows } from './runtime.js';

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
