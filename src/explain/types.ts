// The public shape of explainUsage(): df's Used accounted for, part by part.
// Every byte count is exact: a number below 2^53, or a bigint with
// `bigint: true`. A part that could not be measured is null, and `unseen`
// says why: it is never reported as 0.
import type { CancelSignal } from '../probe/types.js';

export interface ExplainOptions {
  /**
   * Milliseconds the whole answer may take (default Infinity). At the
   * deadline the walk answers with what it has found (`visible` then counts
   * only that, and `unseen` says so) and an unfinished part is null.
   */
  readonly timeout?: number;
  /**
   * Milliseconds a part may make no progress (the file system's probe, a
   * stat of a held file, a walk waiting on a directory) before it is given
   * up and named in `unseen`. Default 5000, as diskUsage's timeout.
   */
  readonly stallTimeout?: number;
  /** Stops it: the promise rejects with an AbortError. */
  readonly signal?: AbortSignal | CancelSignal;
  /** Called as the parts are measured, and every 200 ms or so while the walk runs. */
  readonly onProgress?: (progress: ExplainProgress) => void;
  /** Report byte counts as bigint, exact above 2^53. */
  readonly bigint?: boolean;
}

export interface ExplainProgress {
  /** What it is measuring now. */
  readonly part: 'visible' | 'deletedOpen' | 'hidden';
  /** Entries the walk has met so far. */
  readonly entries: number;
  /** Bytes: allocated bytes the walk has met so far. */
  readonly allocated: number;
}

/** A process holding a deleted file. */
export interface FileHolder {
  readonly pid: number;
  /** /proc/<pid>/comm. */
  readonly command: string;
  /** The user it runs as: a name where /etc/passwd has one, else the uid as text. */
  readonly user: string;
  readonly uid: number;
  /** The fd that holds it, or null where only a memory mapping does (or a loop device, or swap: no process at all). */
  readonly fd: number | null;
}

/** How a deleted file is still held. */
export type HeldBy = 'open' | 'mapped' | 'tmpfile' | 'loop' | 'swap';

export interface DeletedFile<N extends number | bigint = number> {
  /** The name it had, " (deleted)" taken off; for an O_TMPFILE file, its directory and "#inode". */
  readonly path: string;
  /** Bytes on disk: st_blocks × 512; null where it could not be sized (a mapping whose map_files link needs privilege). */
  readonly bytes: N | null;
  /** Bytes: st_size, or the device's size (loop, swap); null where unknown. */
  readonly apparent: N | null;
  /** Its inode number; null where unknown (loop, swap). */
  readonly inode: N | null;
  readonly heldBy: HeldBy;
  /** Who holds it: empty for a loop device or swap, which the kernel holds. */
  readonly holders: readonly FileHolder[];
  /** The device that holds it (loop) or its use (swap). */
  readonly device?: string;
}

export interface HiddenMount<N extends number | bigint = number> {
  /** The mount point whose mount hides files of this file system. */
  readonly mountPoint: string;
  /** Bytes on disk of what it hides (a walk of the directory beneath it), or null where that walk failed. */
  readonly bytes: N | null;
  /** Entries that are not directories, hidden there. */
  readonly files: N | null;
  readonly complete: boolean;
}

/** A part not measured, or not wholly, and why. */
export interface Unseen {
  readonly part: 'visible' | 'deletedOpen' | 'hidden' | 'reserved' | 'reservedByFileSystem';
  readonly reason: string;
}

export interface ExplainUsage<N extends number | bigint = number> {
  /** The path asked about, absolute. */
  readonly path: string;
  /** Where the file system is mounted (the mount holding `path`). */
  readonly mountPoint: string;
  /** Where it was walked from: its root's mount, which may differ from mountPoint (a bind mount of a subdirectory). */
  readonly walkedFrom: string;
  readonly fsType: string;
  /** Bytes: the unit of the block counts (f_frsize). */
  readonly blockSize: N;
  /** Bytes: df's Used, (f_blocks − f_bfree) × f_frsize. */
  readonly used: N;
  /** Bytes: df's Avail, f_bavail × f_frsize. */
  readonly available: N;
  /** Bytes: the root reserve, counted by df as neither used nor available (ext4: tune2fs's reserved block count × block size). */
  readonly reserved: N | null;
  /** Bytes: what the file system keeps for itself beside the root reserve (ext4: reserved_clusters), also neither used nor available. */
  readonly reservedByFileSystem: N | null;
  /** Bytes on disk of the files a walk of the file system sees (du -x). */
  readonly visible: N | null;
  /** The walk listed every directory: false while a walk past its deadline or budget goes on (call again), or where it could not read some. */
  readonly walkComplete: boolean;
  /** Files deleted but still held, each inode once. */
  readonly deletedOpen: { readonly bytes: N; readonly files: readonly DeletedFile<N>[] } | null;
  /** Files under mount points: in directories of this file system that other mounts cover. */
  readonly hidden: { readonly bytes: N; readonly mounts: readonly HiddenMount<N>[] } | null;
  /** Bytes: used − visible − deletedOpen − hidden, of the parts measured (what is null counts here); may be negative. */
  readonly unexplained: N;
  /** What is known to hide in the rest on this file system type, and the tool that measures it. */
  readonly remainder: readonly string[];
  readonly unseen: readonly Unseen[];
  /** Every part was measured in full. */
  readonly complete: boolean;
  /** What to do about each part, most bytes first. */
  readonly advice: readonly string[];
  /** Milliseconds it took. */
  readonly elapsedMs: number;
}
