/** An fs-style error: what Node's fs throws, plus the mount where it applies. */
export interface ProbeError extends Error {
  code: string;
  errno: number;
  syscall: string;
  path: string;
  /** For ETIMEDOUT: the mount that did not answer. */
  mountPoint?: string;
  /** For ETIMEDOUT: how long it was given, in milliseconds. */
  timeout?: number;
}

/** Which implementation answers probes in this process. */
export type Backend = 'native' | 'statfs';

/** Inode counts, as `df -i` reports them. */
export interface InodeUsage<N extends number | bigint = number> {
  /** Inodes the file system has (f_files). */
  readonly total: N;
  /** Free inodes (f_ffree): df -i's IFree. */
  readonly free: N;
  /** Free inodes an unprivileged caller may use (f_favail). */
  readonly available: N;
  /** total − free. */
  readonly used: N;
  /** Percent, 0–100, unrounded: 100 × used / total. Rounded up, it is df -i's IUse%. */
  readonly usedPercent: number;
}

/** The usage of the file system that holds a path. */
export interface DiskUsage<N extends number | bigint = number> {
  /** The probed path, made absolute against the current directory. */
  readonly path: string;
  /** Where the file system holding `path` is mounted, or null when no mount table names it. */
  readonly mountPoint: string | null;
  /** The file system type ("ext4", "tmpfs", "NTFS"…), or null when unknown. */
  readonly fsType: string | null;
  /** Bytes: size of the file system (f_blocks × f_frsize). */
  readonly total: N;
  /** Bytes: free, including blocks reserved for root (f_bfree × f_frsize). */
  readonly free: N;
  /** Bytes: free for an unprivileged caller (f_bavail × f_frsize); on Windows, after the caller's quota. */
  readonly available: N;
  /** Bytes: total − free. */
  readonly used: N;
  /** Percent, 0–100, unrounded: 100 × used / (used + available); 0 when both are 0. Rounded up, it is df's Use%. */
  readonly usedPercent: number;
  /** Bytes: the unit block counts are kept in (f_frsize; the cluster size on Windows). */
  readonly blockSize: N;
  /** Inode counts, or null where the file system has none (f_files = 0, and always on Windows). */
  readonly inodes: InodeUsage<N> | null;
  /** Which backend answered. */
  readonly backend: Backend;
}

/** One mounted file system. */
export interface Mount {
  /** Where it is mounted. */
  readonly mountPoint: string;
  /** What is mounted: a block device, a server:/export, or a name such as "tmpfs". */
  readonly device: string;
  /** The file system type. */
  readonly fsType: string;
  /** Mounted read-only. */
  readonly readOnly: boolean;
  /** A kernel pseudo file system (proc, sysfs, cgroup…) with no disk space of its own. */
  readonly pseudo: boolean;
}

/**
 * What a probe needs of a cancellation signal: an AbortSignal, or any object
 * with the same `aborted`, `reason` and abort listeners.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface DiskUsageOptions {
  /** Report byte and inode counts as bigint, exact above 2^53. */
  readonly bigint?: boolean;
  /** Milliseconds to wait for the file system before rejecting with ETIMEDOUT. Default 5000; Infinity waits forever. */
  readonly timeout?: number;
  /** Aborts the wait: the promise rejects with an AbortError. */
  readonly signal?: AbortSignal | CancelSignal;
}

export interface DiskUsageSyncOptions {
  /** Report byte and inode counts as bigint, exact above 2^53. */
  readonly bigint?: boolean;
  /** Milliseconds to wait at most. Without it the call is made directly and may block on a dead mount not yet known to be dead. */
  readonly timeout?: number;
}

export interface ListMountsOptions {
  /** Every mount, as `df -a` lists them: pseudo file systems, duplicates and empty ones too. Default false: the set `df` shows. */
  readonly all?: boolean;
  /** Milliseconds to wait for each file system while checking it is not empty. Default 5000. A mount that does not answer is kept. */
  readonly timeout?: number;
  /** Aborts the listing. */
  readonly signal?: AbortSignal | CancelSignal;
}

export interface MountsUsageOptions {
  /** Every mount, as `df -a` lists them: pseudo file systems, duplicates and empty ones too. Default false: the set `df` shows. */
  readonly all?: boolean;
  /** Report byte and inode counts as bigint, exact above 2^53. */
  readonly bigint?: boolean;
  /** Milliseconds each file system has to answer. Default 5000. */
  readonly timeout?: number;
  /** Aborts the listing: the promise rejects with an AbortError. */
  readonly signal?: AbortSignal | CancelSignal;
}

/** One mount and what its probe found. */
export interface MountUsage<N extends number | bigint = number> {
  /** The mount, as listMounts reports it. */
  readonly mount: Mount;
  /** Its usage; null when the probe failed. */
  readonly usage: DiskUsage<N> | null;
  /** Why there is no usage, as an fs-style error (ETIMEDOUT for a mount that did not answer in time); null when there is. */
  readonly error: ProbeError | null;
}
