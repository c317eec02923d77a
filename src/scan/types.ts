// The public shape of a directory walk: what directoryUsage() takes and
// gives. Every byte count is exact: a number below 2^53, or a bigint with
// `bigint: true`.
import type { Backend, CancelSignal } from '../probe/types.js';

/** How far a walk has got. */
export interface WalkProgress {
  /** Entries met so far: files, directories and the rest. */
  readonly entries: number;
  /** Bytes: allocated bytes of the entries met so far (a hard-linked file each time it is met). */
  readonly allocated: number;
  /** Directories listed so far. */
  readonly directories: number;
}

export interface DirectoryUsageOptions {
  /** Levels of `children` to include: 0 none, 1 the start's own subdirectories (default), and so on. */
  readonly depth?: number;
  /** How many directories holding the most and largest files to list (default 10, at most 1000). */
  readonly top?: number;
  /** Stay on the start's file system, as du -x (default false: cross into other mounts, as du does). */
  readonly oneFileSystem?: boolean;
  /** Walk again, even when a kept walk could answer (default false). */
  readonly fresh?: boolean;
  /** Rank children and the top lists by apparent size (st_size) rather than allocated bytes. */
  readonly apparent?: boolean;
  /**
   * Milliseconds the whole walk may take; at the deadline it answers with what
   * it has, `complete: false`. Default Infinity: a walk of a large tree takes
   * what it takes. Either way, a walk that makes no progress for
   * `stallTimeout` answers then.
   */
  readonly timeout?: number;
  /**
   * Milliseconds a walk may make no progress at all, its threads waiting on
   * directories that do not answer (a dead mount), before it answers with what
   * it has, `complete: false`, and the mounts holding them are marked stuck.
   * Default 5000: as long as a probe has (diskUsage's default timeout).
   */
  readonly stallTimeout?: number;
  /** Stops the walk: the promise rejects with an AbortError within 100 ms. */
  readonly signal?: AbortSignal | CancelSignal;
  /** Called with the walk's progress every 200 ms or so while it runs. */
  readonly onProgress?: (progress: WalkProgress) => void;
  /** Report byte and entry counts as bigint, exact above 2^53. */
  readonly bigint?: boolean;
  /** Threads the walk runs on (native backend; default: see docs/du.md). */
  readonly threads?: number;
}

/** Sizes of a directory's subtree, itself included. */
export interface DirectoryTotals<N extends number | bigint = number> {
  /** Bytes on disk: st_blocks × 512 summed, each inode once (du's default). */
  readonly allocated: N;
  /** Bytes: st_size summed, each inode once (du --apparent-size). */
  readonly apparent: N;
  /** Entries that are not directories (files, symlinks, devices…), each inode once. */
  readonly files: N;
  /** Directories, itself included. */
  readonly directories: N;
}

/** A subdirectory as a subtree (its size is everything below it), with its own subdirectories to the depth asked for. */
export interface DirectoryEntry<N extends number | bigint = number> extends DirectoryTotals<N> {
  readonly name: string;
  readonly path: string;
  /** Its largest subtrees, largest first; empty past the depth asked for. */
  readonly children: readonly DirectoryEntry<N>[];
  /** Every directory in it was listed: false where one could not be read, was skipped, or the walk stopped first. */
  readonly complete: boolean;
}

/**
 * One of the directories holding the most: ranked by the bytes of the files
 * directly in it, its subdirectories not counted (du -S), so that a directory
 * of a million small files stands out. Not a subtree: see DirectoryEntry.
 */
export interface DirectoryHoldingMost<N extends number | bigint = number> {
  readonly path: string;
  /** Bytes on disk of the files directly in it, and of the directory itself. */
  readonly allocated: N;
  /** Bytes: their apparent size. */
  readonly apparent: N;
  /** How many files are directly in it. */
  readonly files: N;
}

export interface LargestFile<N extends number | bigint = number> {
  readonly path: string;
  /** Bytes on disk. */
  readonly allocated: N;
  /** Bytes: st_size. */
  readonly apparent: N;
}

/** An entry the walk could not read: it is not counted. */
export interface WalkError {
  readonly path: string;
  /** EACCES, ENOENT (removed during the walk), ELOOP, EIO, ... */
  readonly code: string;
  readonly syscall: string;
  readonly message: string;
}

export interface DirectoryUsage<N extends number | bigint = number> extends DirectoryTotals<N> {
  /** The directory reported on, absolute. */
  readonly path: string;
  /** Its largest subtrees: its subdirectories ranked by everything below each, largest first, to `depth` levels. */
  readonly children: readonly DirectoryEntry<N>[];
  /** The directories holding the most: up to `top` anywhere in the tree, ranked by the bytes of the files directly in each. */
  readonly directoriesHoldingMost: readonly DirectoryHoldingMost<N>[];
  /** Up to `top` of the largest files anywhere in the tree. */
  readonly largestFiles: readonly LargestFile<N>[];
  /** What could not be read: every one counted, the first few named. */
  readonly errors: { readonly count: number; readonly first: readonly WalkError[] };
  /** Mount points not entered because a probe of them has not returned (a dead mount). */
  readonly skipped: readonly string[];
  /** Directories the walk did not finish: the first few, and how many (where a thread is still held comes first). */
  readonly unfinished: { readonly count: number; readonly first: readonly string[] };
  /** Every directory was listed: nothing unfinished, nothing skipped, nothing unreadable. */
  readonly complete: boolean;
  /** When the walk that answers started, as an ISO 8601 date. */
  readonly scannedAt: string;
  /** Milliseconds the walk took (or had taken, if it is not done). */
  readonly elapsedMs: number;
  /** Milliseconds since that walk ended: 0 for a walk made for this call, more for one kept from before. */
  readonly ageMs: number;
  /** Which backend walked. */
  readonly backend: Backend;
}
