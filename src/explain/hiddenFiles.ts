// Files hidden under mount points: what sits in a directory of this file
// system that another mount covers. Each mount of this file system that has
// mounts on it is cloned with open_tree(2) (OPEN_TREE_CLONE, without
// AT_RECURSIVE: the copy has no mounts on it), detached, seen by no one
// else and gone when its fd is closed; the directories the covering mounts
// hide are then walked through /proc/self/fd/N. The caller's mounts are
// never touched. Needs CAP_SYS_ADMIN and Linux 5.2.
import { closeSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { posix } from 'node:path';

import { errnoError } from '../probe/errors.js';
import type { MountEntry } from '../probe/mountEntry.js';
import type { MountTable } from '../probe/mountTable.js';
import { binding } from '../probe/runtime.js';
import { directoryUsageOnce } from '../scan/directoryUsage.js';
import type { Limits } from './heldFiles.js';
import type { RawHiddenMount } from './measured.js';
import type { ExplainProgress, Unseen } from './types.js';

export interface HiddenFiles {
  readonly mounts: RawHiddenMount[] | null;
  readonly unseen: Unseen[];
}

const part = 'hidden' as const;

/** Why open_tree(2) failed, and what would let it work. */
function cloneRefusal(errno: number, mountPoint: string): string {
  if (errno === 1) return 'needs CAP_SYS_ADMIN (open_tree(2) of the mount): run as root';
  if (errno === 38) return 'needs Linux 5.2 or later (open_tree(2))';
  return errnoError(errno, 'open_tree', mountPoint).message;
}

/** The mounts of `target`'s file system, and the mounts that sit on a directory of one of them. */
function coveringMounts(table: MountTable, target: MountEntry): { parent: MountEntry; cover: MountEntry }[] {
  const own = new Map<number, MountEntry>();
  for (const entry of table.entries) {
    if (entry.deviceKey === target.deviceKey && entry.fsType === target.fsType && !Number.isNaN(entry.mountId)) own.set(entry.mountId, entry);
  }
  const found: { parent: MountEntry; cover: MountEntry }[] = [];
  for (const entry of table.entries) {
    const parent = own.get(entry.parentId);
    // A mount on the parent's own mount point stacks on the whole of it: that hides the parent mount, not a directory in it.
    if (parent && entry !== parent && entry.mountPoint !== parent.mountPoint) found.push({ parent, cover: entry });
  }
  return found;
}

/** What the directory (or file) beneath one covering mount holds, seen in the clone. */
async function measure(path: string, limits: Limits, onProgress: (progress: ExplainProgress) => void): Promise<Omit<RawHiddenMount, 'mountPoint'>> {
  const stats = await lstat(path, { bigint: true });
  if (!stats.isDirectory()) return { bytes: stats.blocks * 512n, files: 1n, complete: true };
  const remaining = limits.deadline - performance.now();
  const usage = await directoryUsageOnce(path, {
    bigint: true,
    oneFileSystem: true,
    depth: 0,
    top: 0,
    timeout: Math.max(1, remaining),
    stallTimeout: limits.stallMs,
    ...(limits.signal && { signal: limits.signal }),
    onProgress: (progress) => onProgress({ part, ...progress }),
  });
  // The directory itself is this file system's too: beneath the mount, it holds what it lists.
  return { bytes: usage.allocated, files: usage.files, complete: usage.complete };
}

/** What the mounts on `target`'s file system hide; null when it could not look. */
export async function hiddenFiles(
  table: MountTable,
  target: MountEntry,
  limits: Limits,
  onProgress: (progress: ExplainProgress) => void,
): Promise<HiddenFiles> {
  const covering = coveringMounts(table, target);
  // Nothing covers any directory of it: nothing can be hidden, and that was seen in the mount table.
  if (covering.length === 0) return { mounts: [], unseen: [] };
  if (process.platform !== 'linux' || !binding) {
    return {
      mounts: null,
      unseen: [{ part, reason: `${covering.length} mounts cover directories of it; looking beneath them needs Linux and the native addon` }],
    };
  }
  const clones = new Map<MountEntry, number>();
  const mounts: RawHiddenMount[] = [];
  const unseen: Unseen[] = [];
  try {
    for (const { parent, cover } of covering) {
      let fd = clones.get(parent);
      if (fd === undefined) {
        fd = binding.openTreeClone(parent.mountPoint);
        clones.set(parent, fd);
      }
      if (fd < 0) {
        const reason = cloneRefusal(-fd, parent.mountPoint);
        if (!unseen.some((seen) => seen.reason.endsWith(reason))) unseen.push({ part, reason: `what ${covering.length} mounts cover: ${reason}` });
        mounts.push({ mountPoint: cover.mountPoint, bytes: null, files: null, complete: false });
        continue;
      }
      // Where the covered directory is in the clone: its path below the parent's mount point.
      const inClone = posix.join(`/proc/self/fd/${fd}`, posix.relative(parent.mountPoint, cover.mountPoint));
      try {
        mounts.push({ mountPoint: cover.mountPoint, ...(await measure(inClone, limits, onProgress)) });
      } catch (error) {
        if ((error as { name?: string }).name === 'AbortError') throw error;
        const code = (error as { code?: string }).code ?? 'ERROR';
        unseen.push({ part, reason: `beneath ${cover.mountPoint}: ${code}` });
        mounts.push({ mountPoint: cover.mountPoint, bytes: null, files: null, complete: false });
      }
    }
  } finally {
    for (const fd of clones.values()) if (fd >= 0) closeSync(fd);
  }
  const incomplete = mounts.filter((mount) => mount.bytes !== null && !mount.complete).length;
  if (incomplete > 0) unseen.push({ part, reason: `beneath ${incomplete} mounts, the walk did not finish` });
  if (mounts.every((mount) => mount.bytes === null)) return { mounts: null, unseen };
  return { mounts, unseen };
}
