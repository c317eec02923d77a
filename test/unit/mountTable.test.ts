import { describe, expect, it } from 'vitest';

import { decodeMountField, deviceKey, parseMountInfo } from '../../dist/probe/mountInfo.js';
import { MountTable } from '../../dist/probe/mountTable.js';

const SAMPLE = [
  '22 27 0:21 / /proc rw,relatime - proc proc rw',
  '25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k',
  '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard',
  '30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k',
  '40 27 0:40 / /mnt/my\\040disk\\011tab\\134back ro,relatime shared:5 master:1 - ext4 /dev/sdb1 rw',
  '41 27 254:0 /srv/data /data rw,relatime - ext4 /dev/vda rw',
  '42 27 0:50 / /mnt/nfs rw - nfs4 server:/export rw',
  'garbage line',
].join('\n');

describe('parseMountInfo', () => {
  const entries = parseMountInfo(SAMPLE);

  it('reads every well-formed line and skips the rest', () => {
    expect(entries.map((e) => e.mountPoint)).toEqual(['/proc', '/dev/shm', '/', '/dev/shm', '/mnt/my disk\ttab\\back', '/data', '/mnt/nfs']);
  });

  it('decodes octal escapes and reads optional fields, device, type and flags', () => {
    const disk = entries[4]!;
    expect(disk).toMatchObject({ device: '/dev/sdb1', fsType: 'ext4', readOnly: true, pseudo: false, deviceKey: deviceKey(0, 40), root: '/' });
    expect(entries[0]).toMatchObject({ pseudo: true, fsType: 'proc' });
    expect(entries[5]).toMatchObject({ root: '/srv/data', deviceKey: deviceKey(254, 0) });
    expect(entries[6]).toMatchObject({ remote: true });
    expect(decodeMountField('a\\040b')).toBe('a b');
  });
});

describe('MountTable', () => {
  const table = new MountTable(parseMountInfo(SAMPLE));

  it('finds the mount that holds a path by name, deepest first, on component boundaries', () => {
    expect(table.lexical('/dev/shm/x')?.mountPoint).toBe('/dev/shm');
    expect(table.lexical('/dev/shmx')?.mountPoint).toBe('/');
    expect(table.lexical('/mnt/nfs')?.mountPoint).toBe('/mnt/nfs');
    // The later of two mounts on one point is the one in view.
    expect(table.lexical('/dev/shm')?.deviceKey).toBe(deviceKey(0, 27));
  });

  it('finds the mount by device, telling bind mounts of one device apart by path', () => {
    expect(table.containing(deviceKey(0, 27), '/dev/shm/a')?.mountPoint).toBe('/dev/shm');
    expect(table.containing(deviceKey(254, 0), '/data/file')?.mountPoint).toBe('/data');
    expect(table.containing(deviceKey(254, 0), '/etc/hostname')?.mountPoint).toBe('/');
    expect(table.containing(deviceKey(9, 9), '/x')).toBeUndefined();
  });

  it("keeps df's set: no pseudo file systems, one mount per device, over-mounts collapsed", () => {
    expect(table.dfCandidates().map((e) => e.mountPoint)).toEqual(['/dev/shm', '/', '/mnt/my disk\ttab\\back', '/mnt/nfs']);
  });

  it("leaves out only df's dummy types, whatever their size, and lists every other file system (its size decides)", () => {
    const kinds = new MountTable(
      parseMountInfo(
        [
          '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
          '2 1 0:5 / /proc rw - proc proc rw',
          '3 1 0:6 / /sys rw - sysfs sysfs rw',
          '4 1 0:7 / /dev/hugepages rw - hugetlbfs hugetlbfs rw,pagesize=2M',
          '5 1 0:8 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw',
          '6 1 0:9 / /dev/pts rw - devpts devpts rw',
        ].join('\n'),
      ),
    );
    expect(kinds.dfCandidates().map((e) => e.mountPoint)).toEqual(['/', '/dev/hugepages', '/sys/fs/cgroup']);
  });

  it("puts a device's chosen mount where the device first appears, as df does", () => {
    const again = new MountTable(
      parseMountInfo(
        [
          '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
          '2 1 7:0 / /m/ext rw - ext4 /dev/loop0 rw',
          '3 1 0:40 / /m/tt rw - tmpfs tmpfs rw',
          '4 1 7:0 / /m/e rw - ext4 /dev/loop0 rw',
        ].join('\n'),
      ),
    );
    expect(again.dfCandidates().map((e) => e.mountPoint)).toEqual(['/', '/m/e', '/m/tt']);
  });

  it('counts a mount hidden by a later mount over a directory above it as that mount, as df (which stats) does', () => {
    const hidden = new MountTable(
      parseMountInfo(
        [
          '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
          '2 1 0:41 / /hid/y rw - tmpfs hidA rw',
          '3 1 0:42 / /hid rw - tmpfs hidB rw', // mounted later, over /hid: /hid/y now shows hidB
          '4 3 0:43 / /hid/z rw - tmpfs hidC rw', // mounted on hidB: in view
        ].join('\n'),
      ),
    );
    expect(hidden.dfCandidates().map((e) => [e.mountPoint, e.device])).toEqual([
      ['/', '/dev/sda1'],
      ['/hid', 'hidB'],
      ['/hid/z', 'hidC'],
    ]);
  });

  it('prefers a real device name and the mount nearest the root, as coreutils does', () => {
    const binds = new MountTable(
      parseMountInfo(
        [
          '1 0 8:1 /sub /deep/bind rw - ext4 /dev/sda1 rw',
          '2 0 8:1 / /top rw - ext4 /dev/sda1 rw',
          '3 0 0:9 / /x rw - tmpfs none rw',
          '4 0 0:9 / /y rw - tmpfs /dev/fake rw',
        ].join('\n'),
      ),
    );
    expect(binds.dfCandidates().map((e) => e.mountPoint)).toEqual(['/top', '/y']);
  });
});
