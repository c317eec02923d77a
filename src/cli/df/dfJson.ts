// `diskprobe df --json`: one entry for each file system or path asked about,
// in the table's order, failures included. Every entry has the same keys, so
// a reader tells a failure by `error` alone: counts are exact integers where
// the probe answered (bigints, written by exactJson.ts) and null where it
// did not. Documented in docs/api.md.

import type { Backend, DiskUsage, InodeUsage, Mount } from '../../probe/types.js';

/** Why an entry has no counts: an fs-style code (ENOENT, ETIMEDOUT…) and the reason in words, as stderr gives it. */
export interface DfJsonError {
  readonly code: string;
  readonly message: string;
}

export interface DfJsonEntry {
  /** The path probed (absolute), or as given when its probe failed; the mount point when listing every mount. */
  readonly path: string;
  /** Where the file system is mounted; null when unknown. */
  readonly mountPoint: string | null;
  /** What is mounted (the table's Filesystem column); null when unknown. */
  readonly device: string | null;
  readonly fsType: string | null;
  /** Mounted read-only; null when unknown. */
  readonly readOnly: boolean | null;
  /** Bytes. */
  readonly total: bigint | null;
  /** Bytes. */
  readonly free: bigint | null;
  /** Bytes. */
  readonly available: bigint | null;
  /** Bytes. */
  readonly used: bigint | null;
  /** Percent, 0–100, unrounded. */
  readonly usedPercent: number | null;
  /** Bytes. */
  readonly blockSize: bigint | null;
  readonly inodes: InodeUsage<bigint> | null;
  readonly backend: Backend;
  readonly error: DfJsonError | null;
}

/** The entry of a file system that answered; `mount` is its mount in the table, if any names it. */
export function usageEntry(usage: DiskUsage<bigint>, mount: Mount | undefined): DfJsonEntry {
  return {
    path: usage.path,
    mountPoint: usage.mountPoint,
    device: mount?.device ?? null,
    fsType: usage.fsType ?? mount?.fsType ?? null,
    readOnly: mount?.readOnly ?? null,
    total: usage.total,
    free: usage.free,
    available: usage.available,
    used: usage.used,
    usedPercent: usage.usedPercent,
    blockSize: usage.blockSize,
    inodes: usage.inodes,
    backend: usage.backend,
    error: null,
  };
}

/** The entry of a path or mount with no counts to give. */
export function failedEntry(path: string, mount: Mount | undefined, mountPoint: string | null, error: DfJsonError, backend: Backend): DfJsonEntry {
  return {
    path,
    mountPoint,
    device: mount?.device ?? null,
    fsType: mount?.fsType ?? null,
    readOnly: mount?.readOnly ?? null,
    total: null,
    free: null,
    available: null,
    used: null,
    usedPercent: null,
    blockSize: null,
    inodes: null,
    backend,
    error,
  };
}
