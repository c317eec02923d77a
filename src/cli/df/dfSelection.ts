// Which mounts df shows under -l, -t, -x and -a, by coreutils 9.1's rules:
// ME_REMOTE in gnulib's mountlist.c, selected_fstype and excluded_fstype in
// df.c, and, for -a, the check in get_dev that a mount point still shows the
// device its mount entry names (filter_mount_list's device table). Pure.

import type { MountEntry } from '../../probe/mountEntry.js';

/** The filters of the command line. */
export interface DfFilters {
  readonly local: boolean;
  readonly types: readonly string[];
  readonly excludeTypes: readonly string[];
  readonly total: boolean;
}

const REMOTE_TYPES = new Set(['acfs', 'afs', 'coda', 'auristorfs', 'fhgfs', 'gpfs', 'ibrix', 'ocfs2', 'vxfs']);

/**
 * ME_REMOTE: a device name with a ':' (server:/export, user@host:path), a
 * '//server/share' of smbfs, smb3 or cifs, one of a few cluster and network
 * types, or autofs's "-hosts". VM shares (vboxsf, 9p…) are local to df.
 */
export function isRemoteMount(device: string, fsType: string): boolean {
  return (
    device.includes(':') ||
    (device.startsWith('//') && (fsType === 'smbfs' || fsType === 'smb3' || fsType === 'cifs')) ||
    REMOTE_TYPES.has(fsType) ||
    device === '-hosts'
  );
}

/** Whether -t and -x let a file system of this type through; an unknown type (null) always passes, as in df. */
export function typeSelected(fsType: string | null, filters: DfFilters): boolean {
  if (fsType === null) return true;
  if (filters.types.length > 0 && !filters.types.includes(fsType)) return false;
  return !filters.excludeTypes.includes(fsType);
}

/** Whether the filters let this mount through (get_dev's first checks). */
export function mountSelected(device: string, fsType: string, filters: DfFilters): boolean {
  return !(filters.local && isRemoteMount(device, fsType)) && typeSelected(fsType, filters);
}

/**
 * For df -a: which entries' mount points show a file system other than the
 * one the entry names, and so get "-" for every count. df stats each mount
 * point and finds the mount entry it keeps for that device; when that
 * entry's device name differs (and the two are not both remote), the
 * figures would be another mount's. `shownDevice[i]` is the device key the
 * mount point of `entries[i]` shows now, undefined where it could not be
 * read (then the entry's own key counts, as df's failed stat does).
 */
export function overMounted(entries: readonly MountEntry[], shownDevice: ReadonlyArray<number | undefined>, filters: DfFilters): boolean[] {
  // The device table df builds, keeping for each device the entry that
  // wins its rules: a real device name, then the mount nearest the root,
  // then an over-mount at the same point. Entries it does not stat (filtered
  // out, unreadable) still become the latest entry of their device.
  const kept = new Map<number, MountEntry>();
  entries.forEach((entry, index) => {
    const remote = isRemoteMount(entry.device, entry.fsType);
    const shown = shownDevice[index];
    const skipped = !mountSelected(entry.device, entry.fsType, filters) || shown === undefined;
    const device = skipped ? entry.deviceKey : shown;
    const seen = skipped ? undefined : kept.get(device);
    if (seen === undefined) {
      kept.set(device, entry);
      return;
    }
    const seenRemote = isRemoteMount(seen.device, seen.fsType);
    const nearerRoot = seen.mountPoint.length > entry.mountPoint.length;
    const sourceBelowRoot = seen.root.length < entry.root.length;
    if (
      (!filters.total && remote && seenRemote && seen.device !== entry.device) ||
      (entry.device.includes('/') && !seen.device.includes('/')) ||
      (nearerRoot && !sourceBelowRoot) ||
      (seen.device !== entry.device && seen.mountPoint === entry.mountPoint)
    ) {
      kept.set(device, entry);
    }
  });
  return entries.map((entry, index) => {
    const shown = shownDevice[index];
    if (shown === undefined) return false;
    const owner = kept.get(shown);
    return owner !== undefined && owner.device !== entry.device && !(isRemoteMount(owner.device, owner.fsType) && isRemoteMount(entry.device, entry.fsType));
  });
}

/**
 * df shows a device named by a symlink ending in a UUID (/dev/disk/by-uuid/…,
 * /dev/mapper/luks-…) by the name it resolves to (has_uuid_suffix in df.c),
 * when it lists every mount.
 */
export function hasUuidSuffix(device: string): boolean {
  return device.length > 36 && /^[-0-9a-fA-F]{36}$/.test(device.slice(-36));
}
