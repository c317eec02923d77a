// Which mounts df shows under -l, -t, -x and -a: gnulib's ME_REMOTE and the
// over-mount check of df -a, on mount entries made up for the purpose
// (no NFS or CIFS server is at hand to mount; dfFlags.test.ts covers the rest on real mounts).
import { describe, expect, it } from 'vitest';

import { hasUuidSuffix, isRemoteMount, mountSelected, overMounted } from '../../../dist/cli/df/dfSelection.js';
import type { MountEntry } from '../../../dist/probe/mountEntry.js';

const none = { local: false, types: [], excludeTypes: [], total: false };

function entry(mountPoint: string, device: string, fsType: string, deviceKey: number, root = '/'): MountEntry {
  return { mountPoint, device, fsType, deviceKey, root, readOnly: false, pseudo: false, remote: false, mountId: NaN, parentId: NaN, answersFromMemory: false };
}

describe('isRemoteMount (ME_REMOTE)', () => {
  it.each([
    ['server:/export', 'nfs4', true],
    ['user@host:/home', 'fuse.sshfs', true],
    ['//server/share', 'cifs', true],
    ['//server/share', 'smb3', true],
    ['//server/share', 'fuse.foo', false],
    ['afs', 'afs', true],
    ['/dev/sdb1', 'ocfs2', true],
    ['-hosts', 'autofs', true],
    ['hostshare', '9p', false],
    ['/dev/vda', 'ext4', false],
    ['tmpfs', 'tmpfs', false],
  ])('%s (%s): %s', (device, fsType, remote) => {
    expect(isRemoteMount(device, fsType)).toBe(remote);
  });

  it('lets -l, -t and -x decide together', () => {
    expect(mountSelected('server:/x', 'nfs', { ...none, local: true })).toBe(false);
    expect(mountSelected('/dev/vda', 'ext4', { ...none, local: true, types: ['ext4'] })).toBe(true);
    expect(mountSelected('/dev/vda', 'ext4', { ...none, excludeTypes: ['ext4'] })).toBe(false);
    expect(mountSelected('tmpfs', 'tmpfs', { ...none, types: ['ext4', 'xfs'] })).toBe(false);
  });
});

describe('overMounted (df -a)', () => {
  it("marks a mount whose mount point shows another device's file system, by device name", () => {
    const under = entry('/m', 'dpunder', 'tmpfs', 1);
    const over = entry('/m', 'dpover', 'tmpfs', 2);
    // Both mount points show device 2.
    expect(overMounted([under, over], [2, 2], none)).toEqual([true, false]);
  });

  it('keeps the figures where the device name is the same (a tmpfs over a tmpfs, /dev/shm in a container)', () => {
    expect(overMounted([entry('/dev/shm', 'tmpfs', 'tmpfs', 1), entry('/dev/shm', 'tmpfs', 'tmpfs', 2)], [2, 2], none)).toEqual([false, false]);
  });

  it('keeps them for two remote mounts, whose names may be aliases', () => {
    expect(overMounted([entry('/m', 'a:/x', 'nfs', 1), entry('/m', 'b:/x', 'nfs', 2)], [2, 2], none)).toEqual([false, false]);
  });

  it('keeps them for bind mounts of one device under one name', () => {
    expect(overMounted([entry('/', '/dev/vda', 'ext4', 7), entry('/srv', '/dev/vda', 'ext4', 7, '/srv')], [7, 7], none)).toEqual([false, false]);
  });

  it('never marks a mount whose mount point could not be read', () => {
    expect(overMounted([entry('/m', 'dpunder', 'tmpfs', 1), entry('/m', 'dpover', 'tmpfs', 2)], [undefined, 2], none)).toEqual([false, false]);
  });
});

describe('hasUuidSuffix', () => {
  it('recognizes names ending in a UUID, as df.c does', () => {
    expect(hasUuidSuffix('/dev/disk/by-uuid/828fc648-9f30-43d8-a0b1-f7196a2edb66')).toBe(true);
    expect(hasUuidSuffix('/dev/mapper/luks-828fc648-9f30-43d8-a0b1-f7196a2edb66')).toBe(true);
    expect(hasUuidSuffix('828fc648-9f30-43d8-a0b1-f7196a2edb66')).toBe(false);
    expect(hasUuidSuffix('/dev/vda1')).toBe(false);
  });
});
