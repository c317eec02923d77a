// What a mount's file system type (and options) says of it: no storage of
// its own (pseudo), df's dummies, remote, answering statfs from memory, the
// kernel's own, and whether a walk into it may wait forever.
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
export const DF_DUMMY_TYPES = new Set([
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

/** `options` and `superOptions`: the mount's options and its super options, each comma-separated, as mountinfo lists them. */
export function answersFromMemory(fsType: string, options: string, superOptions: string): boolean {
  if (!IN_MEMORY_STATFS.has(fsType) && fsType !== 'overlay') return false;
  if (PROJECT_QUOTA.test(options) || PROJECT_QUOTA.test(superOptions)) return false;
  return fsType !== 'overlay' || UPPER_DIR.test(options) || UPPER_DIR.test(superOptions);
}

/**
 * The kernel's own file systems: no device, daemon or server behind them.
 * Walking through one, and its statfs, read only memory (kernfs, procfs,
 * simple_statfs). Not autofs, whose walk can wait for an automount daemon,
 * nor efivarfs, whose statfs asks the firmware.
 */
export const KERNEL_TYPES = new Set([
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

const COMMA = 44;

/** Whether the comma-separated `options` hold `option` itself. Builds no string: it runs twice for every line of mountinfo. */
export function hasOption(options: string, option: string): boolean {
  for (let at = options.indexOf(option); at >= 0; at = options.indexOf(option, at + 1)) {
    const end = at + option.length;
    if ((at === 0 || options.charCodeAt(at - 1) === COMMA) && (end === options.length || options.charCodeAt(end) === COMMA)) return true;
  }
  return false;
}

/**
 * Whether a walk of a mount may wait forever: a network file system whose
 * server is gone, a FUSE daemon that stopped answering, an automount whose
 * daemon is stuck. A local disk answers, however slowly.
 */
export function mayHang(mount: { readonly fsType: string; readonly remote: boolean }): boolean {
  return mount.remote || mount.fsType === 'fuse' || mount.fsType.startsWith('fuse.') || mount.fsType === 'autofs';
}

export function isPseudoType(fsType: string): boolean {
  return PSEUDO_TYPES.has(fsType);
}

/** server:/export, as NFS names its devices. */
const SERVER_EXPORT = /^[^/]+:\//;

export function isRemote(fsType: string, device: string): boolean {
  return REMOTE_TYPES.test(fsType) || device.startsWith('//') || SERVER_EXPORT.test(device);
}
