// The mount table: which mount holds a path, and which mounts df would list.
// Read once and cached (mountTableCache.ts); re-read only when the table changes.
import { realpathSync } from 'node:fs';

import { DF_DUMMY_TYPES, KERNEL_TYPES } from './fsTypes.js';
import type { MountEntry } from './mountEntry.js';
import { MountTree } from './mountTree.js';

/** Where `path`, under `mount` by name, lies inside the mounted device: the mount's root plus the rest. */
function inDevice(mount: MountEntry, path: string): string {
  const rest = path.slice(mount.mountPoint.length).replace(/^\/+/, '');
  return rest === '' ? mount.root : `${mount.root.replace(/\/$/, '')}/${rest}`;
}

/** Whether a mount's walk and statfs read only memory (see MountTable.walksInMemory). */
function inMemory(mount: MountEntry): boolean {
  return mount.answersFromMemory || (KERNEL_TYPES.has(mount.fsType) && !Number.isNaN(mount.mountId));
}

/** Whether `path` is `dir` or lies under it. */
function isWithin(path: string, dir: string, separator: string, fold: boolean): boolean {
  if (fold) {
    path = path.toLowerCase();
    dir = dir.toLowerCase();
  }
  if (!path.startsWith(dir)) return false;
  return path.length === dir.length || dir.endsWith(separator) || path[dir.length] === separator;
}

/** One reading of the mount table, indexed for the questions the probe asks. */
export class MountTable {
  readonly entries: readonly MountEntry[];
  /** The mounts of each device, made at the first question about devices (listing every mount asks none). */
  private devices: Map<number, MountEntry[]> | undefined;
  /** The visible mount at each mount point (case-folded where the platform folds): the last one mounted there. */
  private readonly visible = new Map<string, MountEntry>();
  private readonly lexicalCache = new Map<string, MountEntry | undefined>();
  private readonly inMemoryWalks = new Map<string, boolean>();
  /** dfCandidates' answer, worked out once: the table never changes. */
  private candidates: readonly MountEntry[] | undefined;

  constructor(
    entries: readonly MountEntry[],
    private readonly separator = '/',
    private readonly foldCase = false,
  ) {
    this.entries = entries;
    // Indexed loops: this runs at every reading of the table, often before V8
    // has compiled it, and an interpreted for-of makes an object per step.
    // Later entries over-mount earlier ones at the same point: keep the last.
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      this.visible.set(foldCase ? entry.mountPoint.toLowerCase() : entry.mountPoint, entry);
    }
  }

  private get byDevice(): Map<number, MountEntry[]> {
    if (this.devices === undefined) {
      this.devices = new Map();
      for (let i = 0; i < this.entries.length; i++) {
        const entry = this.entries[i]!;
        const list = this.devices.get(entry.deviceKey);
        if (list) list.push(entry);
        else this.devices.set(entry.deviceKey, [entry]);
      }
    }
    return this.devices;
  }

  /**
   * The mount that holds `path`, judging by its name alone: no file system is
   * touched, so it is safe on a dead mount. Symlinks are not followed.
   */
  lexical(path: string): MountEntry | undefined {
    let hit = this.lexicalCache.get(path);
    if (hit === undefined && !this.lexicalCache.has(path)) {
      hit = this.deepestMountAbove(this.foldCase ? path.toLowerCase() : path);
      if (this.lexicalCache.size > 4096) this.lexicalCache.clear();
      this.lexicalCache.set(path, hit);
    }
    return hit;
  }

  /**
   * The visible mount with the longest mount point that `path` is within:
   * the path itself, or a prefix of it that ends at a separator (with or
   * without that separator: "/" and "C:\" keep theirs). One map lookup per
   * path component, whatever the number of mounts.
   */
  private deepestMountAbove(path: string): MountEntry | undefined {
    const exact = this.visible.get(path);
    if (exact !== undefined) return exact;
    for (let at = path.lastIndexOf(this.separator); at >= 0; at = at === 0 ? -1 : path.lastIndexOf(this.separator, at - 1)) {
      const withSeparator = this.visible.get(path.slice(0, at + 1));
      if (withSeparator !== undefined) return withSeparator;
      if (at > 0) {
        const without = this.visible.get(path.slice(0, at));
        if (without !== undefined) return without;
      }
    }
    return undefined;
  }

  /**
   * Whether a probe of the mount point `mountPoint` by name can run on the
   * calling thread with no risk of blocking: the mount visible there, and
   * the mount holding each directory above it, either keep their counts in
   * memory (answersFromMemory) or are the kernel's own (proc, sysfs,
   * cgroup...). The walk to a mount point reads only dentries the kernel pins
   * (a mount pins its mount point, a dentry its parent), and those file
   * systems never ask a server or a daemon to revalidate one, so
   * statvfs(mountPoint) neither waits for I/O nor for anyone else. A mount
   * made over the path after the table was read is new, and so was
   * answering a moment ago. Linux; false where the table has no such
   * knowledge.
   */
  walksInMemory(mountPoint: string): boolean {
    const known = this.inMemoryWalks.get(mountPoint);
    if (known !== undefined) return known;
    const mount = this.visible.get(mountPoint);
    let answer = mount !== undefined && inMemory(mount);
    if (answer && mountPoint !== '/') {
      const parent = mountPoint.slice(0, Math.max(1, mountPoint.lastIndexOf('/')));
      const holder = this.deepestMountAbove(parent);
      answer = holder !== undefined && holder !== mount && this.walksInMemory(holder.mountPoint);
    }
    this.inMemoryWalks.set(mountPoint, answer);
    return answer;
  }

  /** The mount visible at a mount point: the last one mounted there. */
  visibleAt(mountPoint: string): MountEntry | undefined {
    return this.visible.get(this.foldCase ? mountPoint.toLowerCase() : mountPoint);
  }

  /**
   * The mount that really holds `path`, whose device (from stat) is `key`.
   * Several mounts of one device (bind mounts) are told apart by the real,
   * symlink-free path; that costs a realpath, so it is only done then.
   */
  containing(key: number, path: string): MountEntry | undefined {
    const candidates = this.byDevice.get(key);
    if (candidates === undefined) return undefined;
    if (candidates.length === 1) return candidates[0];
    let real = path;
    try {
      real = realpathSync.native(path);
    } catch {
      // Raced with a rename or unmount: the lexical answer is the best left.
    }
    let best: MountEntry | undefined;
    for (const entry of candidates) {
      if (isWithin(real, entry.mountPoint, this.separator, this.foldCase) && (!best || entry.mountPoint.length >= best.mountPoint.length)) {
        best = entry;
      }
    }
    return best ?? candidates[candidates.length - 1];
  }

  /**
   * Where `path` lies in its file system: the mount that holds it by name,
   * that mount's device and root (the directory of the device mounted
   * there: "/" unless it is a bind mount of a subdirectory), and the path's
   * place inside the device. Linux only (elsewhere the table has no device
   * numbers); from the table alone, so safe on a dead mount.
   */
  source(path: string): { mountPoint: string; deviceKey: number; root: string; inDevice: string } | undefined {
    const mount = this.lexical(path);
    if (mount === undefined || Number.isNaN(mount.deviceKey)) return undefined;
    return { mountPoint: mount.mountPoint, deviceKey: mount.deviceKey, root: mount.root, inDevice: inDevice(mount, path) };
  }

  /**
   * The other names of `path`: where the same directory of the same device
   * is also reached through another mount of that device (the source of a
   * bind mount, or a second mount of the file system). Linux only; from the
   * table alone.
   */
  aliases(path: string): string[] {
    const mount = this.lexical(path);
    if (mount === undefined || Number.isNaN(mount.deviceKey)) return [];
    const others = this.byDevice.get(mount.deviceKey)!;
    if (others.length === 1) return [];
    const where = inDevice(mount, path);
    const names: string[] = [];
    for (const other of others) {
      if (other === mount || !isWithin(where, other.root, '/', false)) continue;
      const below = where.slice(other.root.length).replace(/^\/+/, '');
      names.push(below === '' ? other.mountPoint : `${other.mountPoint.replace(/\/$/, '')}/${below}`);
    }
    return names;
  }

  has(key: number): boolean {
    return this.byDevice.has(key);
  }

  /**
   * The mounts `df` lists without -a, in its order: none of the types it
   * calls dummy, and one mount per device, chosen by coreutils' rules (a
   * real device name wins, then the mount nearest the root, then an
   * over-mount), the winner in the place of the device's first mount. The
   * device of a mount is the one its mount point shows now: a mount hidden
   * by a later mount over it, or over a directory above it, counts as that
   * later mount's device (df learns it by stat). Empty ones are dropped by
   * the caller, which knows their sizes. Worked out at the first call, for
   * the life of the table.
   */
  dfCandidates(): readonly MountEntry[] {
    this.candidates ??= this.chooseCandidates();
    return this.candidates;
  }

  private chooseCandidates(): MountEntry[] {
    const chosen: MountEntry[] = [];
    /** Where in `chosen` each device's mount is. */
    const slotOf = new Map<number, number>();
    const tree = new MountTree(this.entries);
    const above = new Map<string, string | null>();
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (DF_DUMMY_TYPES.has(entry.fsType)) continue;
      const key = shownAt(entry, tree, above).deviceKey;
      if (Number.isNaN(key)) {
        chosen.push(entry);
        continue;
      }
      const slot = slotOf.get(key);
      if (slot === undefined) {
        slotOf.set(key, chosen.length);
        chosen.push(entry);
        continue;
      }
      const existing = chosen[slot]!;
      if (entry.remote && existing.remote && entry.device !== existing.device) {
        chosen.push(entry); // df keeps remote mounts of different exports apart
        continue;
      }
      const nearerRoot = existing.mountPoint.length > entry.mountPoint.length;
      const sourceBelowRoot = existing.root.length < entry.root.length;
      if (
        (entry.device.includes('/') && !existing.device.includes('/')) ||
        (nearerRoot && !sourceBelowRoot) ||
        (existing.device !== entry.device && existing.mountPoint === entry.mountPoint)
      ) {
        chosen[slot] = entry;
      }
    }
    return chosen;
  }
}

/**
 * The nearest mount point above `path`: the longest of the directories above
 * it ("/" included) that something is mounted on, or null. Remembered in
 * `above` when `remember` (for a mount point with mounts below it, met once
 * from each of them), so that the mounts under one directory look it up once.
 */
function mountPointAbove(path: string, tree: MountTree, above: Map<string, string | null>, remember: boolean): string | null {
  let found = remember ? above.get(path) : undefined;
  if (found !== undefined) return found;
  found = null;
  for (let at = path.lastIndexOf('/'); at >= 0; at = at === 0 ? -1 : path.lastIndexOf('/', at - 1)) {
    const directory = at === 0 ? '/' : path.slice(0, at);
    if (directory !== path && tree.at.has(directory)) {
      found = directory;
      break;
    }
  }
  if (remember) above.set(path, found);
  return found;
}

/**
 * The mount whose file system `entry`'s mount point shows now: `entry`, or
 * the mount that hides it, mounted later on the same point or on a
 * directory above it (one that is not among the mounts `entry` is itself
 * mounted on). By mountinfo's parent ids; Linux. Elsewhere, `entry`.
 * Several hide it: the one mounted deepest shows (ties: the later). Only
 * the mounts at the point and at each mount point above it are looked at,
 * nearest first (mountPointAbove).
 */
function shownAt(entry: MountEntry, tree: MountTree, above: Map<string, string | null>): MountEntry {
  if (Number.isNaN(entry.parentId)) return entry;
  for (let at: string | null = entry.mountPoint; at !== null; at = mountPointAbove(at, tree, above, at !== entry.mountPoint)) {
    const there = tree.at.get(at);
    if (there === undefined) continue;
    for (let i = there.length - 1; i >= 0; i--) {
      const candidate = there[i]!;
      if (candidate !== entry && !tree.isAncestor(candidate, entry)) return candidate;
    }
  }
  return entry;
}
