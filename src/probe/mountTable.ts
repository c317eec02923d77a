// The mount table: which mount holds a path, and which mounts df would list.
// Read once and cached; re-read only when the table changes.
import { realpathSync } from 'node:fs';

import type { Mount } from './types.js';

/** A mount as the table describes it, with what is needed to match paths to it. */
export interface MountEntry extends Mount {
  /** major × 2^20 + minor of the mounted device (Linux), or NaN where unknown. */
  readonly deviceKey: number;
  /** The directory of the device mounted here: "/" unless it is a bind mount of a subdirectory. */
  readonly root: string;
  /** Mounted from a network server. */
  readonly remote: boolean;
  /** The kernel's id of this mount (mountinfo's first field; Linux), or NaN. */
  readonly mountId: number;
  /** The id of the mount it is mounted on (mountinfo's second field; Linux), or NaN. */
  readonly parentId: number;
  /**
   * Whether the file system answers statfs from memory, never from a device
   * or a server: a cached path beneath it can be probed inline (Linux).
   */
  readonly answersFromMemory: boolean;
}

/** File systems with no storage of their own (after util-linux's pseudofs list). */
const PSEUDO_TYPES = new Set([
  'anon_inodefs',
  'apparmorfs',
  'autofs',
  'bdev',
  'binder',
  'binfmt_misc',
  'bpf',
  'cgroup',
  'cgroup2',
  'configfs',
  'cpuset',
  'debugfs',
  'devfs',
  'devpts',
  'efivarfs',
  'fusectl',
  'fuse.portal',
  'hugetlbfs',
  'ignore',
  'kernfs',
  'mqueue',
  'nfsd',
  'none',
  'nsfs',
  'pipefs',
  'proc',
  'pstore',
  'ramfs',
  'rpc_pipefs',
  'securityfs',
  'selinuxfs',
  'smackfs',
  'sockfs',
  'spufs',
  'subfs',
  'sysfs',
  'tracefs',
]);

/**
 * What df (gnulib's mountlist, ME_DUMMY) leaves out without -a whatever
 * their size; every other file system is left out only when it is empty.
 */
const DF_DUMMY_TYPES = new Set([
  'autofs',
  'proc',
  'subfs',
  'debugfs',
  'devpts',
  'fusectl',
  'fuse.portal',
  'mqueue',
  'rpc_pipefs',
  'sysfs',
  'devfs',
  'kernfs',
  'ignore',
  'none',
]);

const REMOTE_TYPES = /^(nfs\d?|cifs|smb3?|smbfs|ncpfs|afs|9p|ceph|glusterfs|fuse\.sshfs|sshfs|lustre|gfs2?|ocfs2|beegfs|davfs|fuse\.rclone)$/;

/**
 * Local file systems whose statfs only reads counters kept in memory: no
 * device I/O, no daemon, no server. Not vfat or exfat (their first statfs
 * after mounting counts free clusters on the device), nor ntfs3 or zfs, whose
 * statfs is less certain. overlay counts when it has an upper layer (its
 * statfs is the upper layer's, a local file system). With project quotas on,
 * ext4, xfs and f2fs may read the quota file in statfs: not those mounts.
 */
const IN_MEMORY_STATFS = new Set(['ext2', 'ext3', 'ext4', 'xfs', 'btrfs', 'tmpfs', 'devtmpfs', 'ramfs', 'f2fs', 'squashfs', 'iso9660', 'erofs']);
/** In a comma-separated option list (mountinfo's fields, joined). */
const PROJECT_QUOTA = /(?:^|,)(?:prjquota|prjjquota|pquota|pqnoenforce|prjjquota=[^,]*)(?:,|$)/;
const UPPER_DIR = /(?:^|,)upperdir=/;

/** `options`: the mount's options and its super options, comma-separated, as mountinfo lists them. */
export function answersFromMemory(fsType: string, options: string): boolean {
  if (!IN_MEMORY_STATFS.has(fsType) && fsType !== 'overlay') return false;
  if (PROJECT_QUOTA.test(options)) return false;
  return fsType !== 'overlay' || UPPER_DIR.test(options);
}

/**
 * The kernel's own file systems: no device, daemon or server behind them.
 * Walking through one, and its statfs, read only memory (kernfs, procfs,
 * simple_statfs). Not autofs, whose walk can wait for an automount daemon,
 * nor efivarfs, whose statfs asks the firmware.
 */
const KERNEL_TYPES = new Set([
  'proc',
  'sysfs',
  'cgroup',
  'cgroup2',
  'devpts',
  'mqueue',
  'debugfs',
  'tracefs',
  'securityfs',
  'configfs',
  'bpf',
  'pstore',
  'hugetlbfs',
  'binfmt_misc',
  'fusectl',
  'nsfs',
  'selinuxfs',
  'smackfs',
  'apparmorfs',
]);

/** Whether the comma-separated `options` hold `option` itself. */
function hasOption(options: string, option: string): boolean {
  return options === option || options.startsWith(`${option},`) || options.endsWith(`,${option}`) || options.includes(`,${option},`);
}

/**
 * Whether a walk of a mount may wait forever: a network file system whose
 * server is gone, a FUSE daemon that stopped answering, an automount whose
 * daemon is stuck. A local disk answers, however slowly.
 */
export function mayHang(mount: Pick<MountEntry, 'fsType' | 'remote'>): boolean {
  return mount.remote || mount.fsType === 'fuse' || mount.fsType.startsWith('fuse.') || mount.fsType === 'autofs';
}

export function isPseudoType(fsType: string): boolean {
  return PSEUDO_TYPES.has(fsType);
}

export function isRemote(fsType: string, device: string): boolean {
  return REMOTE_TYPES.test(fsType) || device.startsWith('//') || /^[^/]+:\//.test(device);
}

/** major/minor as one number that Map lookups can use. */
export function deviceKey(major: number, minor: number): number {
  return major * 1048576 + minor;
}

/** Undoes the octal escapes (\040 space, \011 tab, \012 newline, \134 backslash) of /proc/self/mountinfo. */
export function decodeMountField(field: string): string {
  return field.includes('\\') ? field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))) : field;
}

/**
 * Parses /proc/self/mountinfo (proc(5)). Malformed lines are skipped. Read
 * at every listing, so kept lean: a few microseconds a line, with thousands
 * of mounts as common as a handful.
 */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0 || fields.length < separator + 3) continue;
    const numbers = fields[2]!;
    const colon = numbers.indexOf(':');
    const major = colon < 0 ? NaN : Number(numbers.slice(0, colon));
    const minor = colon < 0 ? NaN : Number(numbers.slice(colon + 1));
    const fsType = decodeMountField(fields[separator + 1]!);
    const device = decodeMountField(fields[separator + 2]!);
    const options = fields[5]!;
    const superOptions = fields[separator + 3] ?? '';
    entries.push({
      mountPoint: decodeMountField(fields[4]!),
      device,
      fsType,
      readOnly: hasOption(options, 'ro') || hasOption(superOptions, 'ro'),
      pseudo: isPseudoType(fsType),
      deviceKey: deviceKey(major, minor),
      root: decodeMountField(fields[3]!),
      remote: isRemote(fsType, device),
      mountId: Number(fields[0]),
      parentId: Number(fields[1]),
      answersFromMemory: answersFromMemory(fsType, `${options},${superOptions}`),
    });
  }
  return entries;
}

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
  private readonly byDevice = new Map<number, MountEntry[]>();
  /** The visible mount at each mount point (case-folded where the platform folds): the last one mounted there. */
  private readonly visible = new Map<string, MountEntry>();
  private readonly lexicalCache = new Map<string, MountEntry | undefined>();
  private readonly inMemoryWalks = new Map<string, boolean>();

  constructor(
    entries: readonly MountEntry[],
    private readonly separator = '/',
    private readonly foldCase = false,
  ) {
    this.entries = entries;
    for (const entry of entries) {
      const list = this.byDevice.get(entry.deviceKey);
      if (list) list.push(entry);
      else this.byDevice.set(entry.deviceKey, [entry]);
    }
    // Later entries over-mount earlier ones at the same point: keep the last.
    for (const entry of entries) this.visible.set(foldCase ? entry.mountPoint.toLowerCase() : entry.mountPoint, entry);
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
   * cgroup…). The walk to a mount point reads only dentries the kernel pins
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
   * the caller, which knows their sizes.
   */
  dfCandidates(): MountEntry[] {
    const slots: Array<{ entry: MountEntry }> = [];
    const byKey = new Map<number, { entry: MountEntry }>();
    const tree = new MountTree(this.entries);
    for (const entry of this.entries) {
      if (DF_DUMMY_TYPES.has(entry.fsType)) continue;
      const key = this.shownAt(entry, tree).deviceKey;
      if (Number.isNaN(key)) {
        slots.push({ entry });
        continue;
      }
      const slot = byKey.get(key);
      if (slot === undefined) {
        const created = { entry };
        byKey.set(key, created);
        slots.push(created);
        continue;
      }
      const existing = slot.entry;
      if (entry.remote && existing.remote && entry.device !== existing.device) {
        slots.push({ entry }); // df keeps remote mounts of different exports apart
        continue;
      }
      const nearerRoot = existing.mountPoint.length > entry.mountPoint.length;
      const sourceBelowRoot = existing.root.length < entry.root.length;
      if (
        (entry.device.includes('/') && !existing.device.includes('/')) ||
        (nearerRoot && !sourceBelowRoot) ||
        (existing.device !== entry.device && existing.mountPoint === entry.mountPoint)
      ) {
        slot.entry = entry;
      }
    }
    return slots.map((slot) => slot.entry);
  }

  /**
   * The mount whose file system `entry`'s mount point shows now: `entry`, or
   * the mount that hides it, mounted later on the same point or on a
   * directory above it (one that is not among the mounts `entry` is itself
   * mounted on). By mountinfo's parent ids; Linux. Elsewhere, `entry`.
   * Several hide it: the one mounted deepest shows (ties: the later). Only
   * the mounts at the point and at each directory above it are looked at.
   */
  private shownAt(entry: MountEntry, tree: MountTree): MountEntry {
    if (Number.isNaN(entry.parentId)) return entry;
    const path = entry.mountPoint;
    const hider = (at: string): MountEntry | undefined => {
      const there = tree.at.get(at);
      if (there === undefined) return undefined;
      for (let i = there.length - 1; i >= 0; i--) {
        const candidate = there[i]!;
        if (candidate !== entry && !tree.isAncestor(candidate, entry)) return candidate;
      }
      return undefined;
    };
    const exact = hider(path);
    if (exact !== undefined) return exact;
    for (let at = path.lastIndexOf('/'); at >= 0; at = at === 0 ? -1 : path.lastIndexOf('/', at - 1)) {
      const found = hider(at === 0 ? '/' : path.slice(0, at));
      if (found !== undefined) return found;
    }
    return entry;
  }
}

/**
 * The mounts as the tree mountinfo's parent ids make: which mounts are at
 * each mount point, and whether one mount lies beneath another (is on the
 * chain of mounts the other is mounted on), in constant time from the
 * order of a walk of the tree.
 */
class MountTree {
  /** The entries at each mount point, in table order. */
  readonly at = new Map<string, MountEntry[]>();
  private readonly enter = new Map<number, number>();
  private readonly leave = new Map<number, number>();

  constructor(entries: readonly MountEntry[]) {
    const children = new Map<number, MountEntry[]>();
    const ids = new Set<number>();
    for (const entry of entries) {
      const list = this.at.get(entry.mountPoint);
      if (list) list.push(entry);
      else this.at.set(entry.mountPoint, [entry]);
      ids.add(entry.mountId);
    }
    const roots: MountEntry[] = [];
    for (const entry of entries) {
      if (entry.parentId === entry.mountId || !ids.has(entry.parentId)) {
        roots.push(entry);
        continue;
      }
      const list = children.get(entry.parentId);
      if (list) list.push(entry);
      else children.set(entry.parentId, [entry]);
    }
    // An explicit stack: a tree thousands of mounts deep must not overflow the call stack.
    let clock = 0;
    const stack: Array<{ entry: MountEntry; next: number }> = [];
    for (const root of roots) {
      if (this.enter.has(root.mountId)) continue;
      this.enter.set(root.mountId, clock++);
      stack.push({ entry: root, next: 0 });
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const child = children.get(top.entry.mountId)?.[top.next++];
        if (child === undefined) {
          this.leave.set(top.entry.mountId, clock++);
          stack.pop();
        } else if (!this.enter.has(child.mountId)) {
          this.enter.set(child.mountId, clock++);
          stack.push({ entry: child, next: 0 });
        }
      }
    }
  }

  /** Whether `above` is on the chain of mounts `entry` is mounted on (its parent, the parent's parent, ...). */
  isAncestor(above: MountEntry, entry: MountEntry): boolean {
    if (above.mountId === entry.mountId) return false;
    const aIn = this.enter.get(above.mountId);
    const aOut = this.leave.get(above.mountId);
    const eIn = this.enter.get(entry.mountId);
    return aIn !== undefined && aOut !== undefined && eIn !== undefined && aIn < eIn && eIn < aOut;
  }
}

/**
 * Keeps one MountTable and re-reads it when `changed()` says so (Linux: the
 * kernel's poll flag on mountinfo) or, where there is no such signal, when
 * it is older than `maxAgeMs` or does not know a device it is asked about.
 */
export class MountTableCache {
  private table: MountTable | undefined;
  private readAt = 0;
  /** Devices a fresh table did not know either (btrfs subvolumes, say): no re-read for them. */
  private readonly unknown = new Set<number>();

  constructor(
    private readonly read: () => MountTable,
    private readonly changed: (() => boolean) | undefined,
    /** Told which mount points came and went, when a re-read shows any. */
    private readonly onChange: (added: string[], removed: string[]) => void = () => {},
    private readonly maxAgeMs = 1000,
  ) {}

  current(): MountTable {
    if (this.table === undefined) return this.reload();
    if (this.changed ? this.changed() : performance.now() - this.readAt > this.maxAgeMs) return this.reload();
    return this.table;
  }

  /** The current table, re-read first if it may predate the mount of device `key`. */
  knowing(key: number): MountTable {
    const table = this.current();
    // Even with a change signal: it may lag a mount made a moment ago.
    if (table.has(key) || Number.isNaN(key) || this.unknown.has(key)) return table;
    const fresh = this.reload();
    if (!fresh.has(key)) this.unknown.add(key);
    return fresh;
  }

  /** The table as it is now: listing mounts is rare enough to re-read it when no change signal vouches for the cache. */
  fresh(): MountTable {
    return this.changed ? this.current() : this.reload();
  }

  /** The table read again, whatever the signal says: for a walk, whose every answer may depend on a mount made a moment ago. */
  reread(): MountTable {
    return this.reload();
  }

  private reload(): MountTable {
    const before = this.table;
    this.table = this.read();
    this.readAt = performance.now();
    this.unknown.clear();
    if (before !== undefined) {
      const was = new Set(before.entries.map((entry) => entry.mountPoint));
      const now = new Set(this.table.entries.map((entry) => entry.mountPoint));
      const added = [...now].filter((mountPoint) => !was.has(mountPoint));
      const removed = [...was].filter((mountPoint) => !now.has(mountPoint));
      if (added.length > 0 || removed.length > 0) this.onChange(added, removed);
    }
    return this.table;
  }
}
