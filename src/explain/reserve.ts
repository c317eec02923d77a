// What df counts as neither used nor available: f_bfree − f_bavail, split
// into the root reserve and what the file system keeps for itself. ext4's
// statfs sets f_bavail = f_bfree − (r_blocks_count + reserved clusters)
// (fs/ext4/super.c, ext4_statfs), and sysfs gives the second term
// (/sys/fs/ext4/<dev>/reserved_clusters, Documentation/ABI/testing/sysfs-fs-ext4),
// so the root reserve is exact: tune2fs's "Reserved block count" × block size.
import { readFileSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';

import type { MountEntry } from '../probe/mountEntry.js';
import type { Unseen } from './types.js';

export interface Reserve {
  readonly reserved: bigint | null;
  readonly reservedByFileSystem: bigint | null;
  readonly unseen: Unseen[];
}

const EXT = new Set(['ext2', 'ext3', 'ext4']);

/** ext4's reserved clusters for the device mounted at `target`, from sysfs; undefined where it has none. */
function ext4ReservedClusters(target: MountEntry): bigint | undefined {
  if (Number.isNaN(target.deviceKey)) return undefined;
  try {
    const device = basename(realpathSync(`/sys/dev/block/${Math.floor(target.deviceKey / 1048576)}:${target.deviceKey % 1048576}`));
    return BigInt(readFileSync(`/sys/fs/ext4/${device}/reserved_clusters`, 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** The split of `free − available` (bytes) on the file system mounted at `target`. */
export function reserveOf(target: MountEntry, free: bigint, available: bigint, blockSize: bigint): Reserve {
  const held = free - available;
  if (held <= 0n) return { reserved: 0n, reservedByFileSystem: 0n, unseen: [] };
  if (EXT.has(target.fsType)) {
    const clusters = ext4ReservedClusters(target);
    if (clusters === undefined) {
      return {
        reserved: held,
        reservedByFileSystem: null,
        unseen: [
          { part: 'reservedByFileSystem', reason: 'no /sys/fs/ext4 entry for its device: the whole of f_bfree − f_bavail is shown as the root reserve' },
        ],
      };
    }
    // A cluster is a block unless the file system was made with bigalloc, where the split is then approximate.
    const byFileSystem = clusters * blockSize;
    const reserved = held - byFileSystem;
    const unseen: Unseen[] =
      available === 0n
        ? [{ part: 'reserved', reason: 'f_bavail is 0: ext4 then shows only the part of the root reserve that is still free, so the reserve may be larger' }]
        : [];
    return { reserved: reserved < 0n ? 0n : reserved, reservedByFileSystem: byFileSystem, unseen };
  }
  return {
    reserved: null,
    reservedByFileSystem: held,
    unseen: [
      {
        part: 'reserved',
        reason: `${target.fsType} does not say whether any of f_bfree − f_bavail is a root reserve: all of it is shown as kept by the file system`,
      },
    ],
  };
}
