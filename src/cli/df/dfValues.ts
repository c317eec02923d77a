// The numbers behind each row of df's table, held as df holds them
// (field_values_t in coreutils 9.1's df.c): counts in the file system's own
// units, uintmax_t wide, 2^64 − 1 for "unknown", and the --total row's sums
// (grand_fsu), which wrap past 2^64 as df's do. Pure.

import type { DiskUsage } from '../../probe/types.js';

const UINTMAX_MAX = (1n << 64n) - 1n;
const wrap = (value: bigint): bigint => BigInt.asUintN(64, value);
const known = (value: bigint): boolean => value < UINTMAX_MAX - 1n;

/** One kind of count (blocks, or inodes) of one row, as get_field_values makes it. */
export interface FieldValues {
  /** Bytes per counted unit: the file system's block size for blocks, 1 for inodes and totals. */
  readonly inputUnits: bigint;
  /** Units: size (blocks) or inodes. */
  readonly total: bigint;
  /** Units free for unprivileged users (f_bavail), or free inodes (f_ffree). */
  readonly available: bigint;
  /** Units used: total − free (f_bfree), 2^64 − 1 when unknown. */
  readonly used: bigint;
  /** used stands for a negative number (free exceeds the total). */
  readonly negateUsed: boolean;
}

/** A statvfs's worth of counts (struct fs_usage), every one unknown by default. */
export interface FsCounts {
  /** Bytes per block. */
  readonly blockSize: bigint;
  readonly blocks: bigint;
  readonly blocksFree: bigint;
  readonly blocksAvailable: bigint;
  readonly files: bigint;
  readonly filesFree: bigint;
}

/** What df shows for a mount it may not read, or one hidden by another (-a): every count unknown. */
export const UNKNOWN_COUNTS: FsCounts = {
  blockSize: UINTMAX_MAX,
  blocks: UINTMAX_MAX,
  blocksFree: UINTMAX_MAX,
  blocksAvailable: UINTMAX_MAX,
  files: UINTMAX_MAX,
  filesFree: UINTMAX_MAX,
};

/** A probe's counts back in the file system's units. Where inodes are null (none, or unknown) df sees 0 of 0. */
export function countsOf(usage: DiskUsage<bigint>): FsCounts {
  const unit = usage.blockSize > 0n ? usage.blockSize : 1n;
  return {
    blockSize: unit,
    blocks: usage.total / unit,
    blocksFree: usage.free / unit,
    blocksAvailable: usage.available / unit,
    files: usage.inodes?.total ?? 0n,
    filesFree: usage.inodes?.free ?? 0n,
  };
}

function values(inputUnits: bigint, total: bigint, available: bigint, free: bigint): FieldValues {
  const hasUsed = known(total) && known(free);
  return {
    inputUnits,
    total,
    available,
    used: hasUsed ? wrap(total - free) : UINTMAX_MAX,
    negateUsed: hasUsed && total < free,
  };
}

/** The block and inode values of one row (get_field_values). */
export function fieldValues(counts: FsCounts): { blocks: FieldValues; inodes: FieldValues } {
  return {
    blocks: values(counts.blockSize, counts.blocks, counts.blocksAvailable, counts.blocksFree),
    inodes: values(1n, counts.files, counts.filesFree, counts.filesFree),
  };
}

/** The --total row's counts, in bytes and inodes (add_to_grand_total). */
export class GrandTotal {
  private blocks = 0n;
  private blocksFree = 0n;
  private blocksAvailable = 0n;
  private files = 0n;
  private filesFree = 0n;

  add(counts: FsCounts): void {
    const { blocks, inodes } = fieldValues(counts);
    if (known(inodes.total)) this.files = wrap(this.files + inodes.total);
    if (known(inodes.available)) this.filesFree = wrap(this.filesFree + inodes.available);
    if (known(blocks.total)) this.blocks = wrap(this.blocks + blocks.inputUnits * blocks.total);
    if (known(counts.blocksFree)) this.blocksFree = wrap(this.blocksFree + blocks.inputUnits * counts.blocksFree);
    if (known(blocks.available)) this.blocksAvailable = wrap(this.blocksAvailable + blocks.inputUnits * blocks.available);
  }

  counts(): FsCounts {
    return {
      blockSize: 1n,
      blocks: this.blocks,
      blocksFree: this.blocksFree,
      blocksAvailable: this.blocksAvailable,
      files: this.files,
      filesFree: this.filesFree,
    };
  }
}
