// What explain measures, as measured: bigint throughout, deleted files as
// the scan found them. numbered.ts turns it into the public shape (types.ts).
import type { FileHolder, HeldBy, Unseen } from './types.js';

/** A deleted file as found, before its counts take the caller's number type. */
export interface RawDeletedFile {
  readonly path: string;
  readonly allocated: bigint;
  readonly size: bigint;
  /** null where unknown (a loop device's or swap's file: no fd to stat). */
  readonly inode: bigint | null;
  readonly sized: boolean;
  readonly heldBy: HeldBy;
  readonly holders: readonly FileHolder[];
  readonly device?: string;
}

/** What one covering mount hides. */
export interface RawHiddenMount {
  readonly mountPoint: string;
  readonly bytes: bigint | null;
  readonly files: bigint | null;
  readonly complete: boolean;
}

export interface RawExplanation {
  readonly path: string;
  readonly mountPoint: string;
  readonly walkedFrom: string;
  readonly fsType: string;
  readonly blockSize: bigint;
  readonly used: bigint;
  readonly available: bigint;
  readonly reserved: bigint | null;
  readonly reservedByFileSystem: bigint | null;
  readonly visible: bigint | null;
  readonly walkComplete: boolean;
  readonly deletedOpen: { readonly bytes: bigint; readonly files: readonly RawDeletedFile[] } | null;
  readonly hidden: { readonly bytes: bigint; readonly mounts: readonly RawHiddenMount[] } | null;
  readonly unexplained: bigint;
  readonly remainder: readonly string[];
  readonly unseen: readonly Unseen[];
  readonly complete: boolean;
  readonly advice: readonly string[];
  readonly elapsedMs: number;
}
