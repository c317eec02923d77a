// Which mount holds a path, and which mounts are listed: checked against df
// and /proc/self/mountinfo on this machine, and on bind and nested mounts
// made for the test (root only).
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMountInfo } from '../../dist/probe/mountInfo.js';
import {
  announceSkip,
  bindMount,
  dfTargets,
  gnuDfSkipReason,
  linuxSkipReason,
  mountTmpfs,
  rootSkipReason,
  run,
  type TestMount,
  tempDir,
} from '../helpers/system.js';
import { backend, diskUsage, diskUsageSync, listMounts, type MountEvent, onMountEvent } from '../lib.js';

const mounts: TestMount[] = [];

// Other test files mount and unmount under the temp dir meanwhile: compare the rest.
const ours = (mountPoint: string): boolean => !mountPoint.startsWith(join(tmpdir(), 'diskprobe-'));
afterAll(() => {
  for (const mount of mounts.reverse()) mount.cleanup();
});

describe.skipIf(announceSkip('listMounts against df and mountinfo', linuxSkipReason ?? gnuDfSkipReason))(`listMounts on the ${backend} backend`, () => {
  it('lists the same mounts as df, in the same order', async () => {
    const listed = (await listMounts()).map((m) => m.mountPoint).filter(ours);
    const df = dfTargets([]);
    // listMounts never stats, so it cannot hang on a dead mount, and it lists
    // one that df could not stat (and leaves out, with an error).
    for (const dead of df.unreadable.filter(ours)) expect(listed).toContain(dead);
    expect(listed.filter((m) => !df.unreadable.includes(m))).toEqual(df.targets.filter(ours));
  });

  it('lists every mount of the table with all: true, as df -a does', async () => {
    const all = (await listMounts({ all: true })).filter((m) => ours(m.mountPoint));
    const lines = parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')).filter((m) => ours(m.mountPoint));
    expect(all).toHaveLength(lines.length);
    expect(all.filter((m) => m.pseudo).map((m) => m.fsType)).toContain('proc');
    for (const mount of all) {
      expect(Object.keys(mount).sort()).toEqual(['device', 'fsType', 'mountPoint', 'pseudo', 'readOnly']);
    }
    const dfAll = dfTargets(['-a']);
    const listedAll = all.map((m) => m.mountPoint).filter((m) => !dfAll.unreadable.includes(m));
    expect(listedAll).toEqual(dfAll.targets.filter(ours));
  });

  it('reports read-only mounts', async () => {
    const all = await listMounts({ all: true });
    const readOnly = readFileSync('/proc/self/mountinfo', 'utf8')
      .trim()
      .split('\n')
      .filter((line) => /^(?:\S+ ){5}(?:ro,|ro$)/.test(line)).length;
    expect(all.filter((m) => m.readOnly).length).toBeGreaterThanOrEqual(readOnly);
  });
});

describe.skipIf(announceSkip('bind and nested mounts', rootSkipReason))(`the mount that holds a path, on the ${backend} backend`, () => {
  it('tells nested mounts and bind mounts apart by device, not by name', async () => {
    const outer = mountTmpfs('size=8m');
    mounts.push(outer);
    const innerDir = join(outer.dir, 'inner');
    mkdirSync(innerDir);
    const inner = mountTmpfs('size=4m', innerDir);
    mounts.push(inner);
    mkdirSync(join(outer.dir, 'sub'));
    writeFileSync(join(outer.dir, 'sub', 'file'), 'x');
    // A bind of outer/sub elsewhere: same device as outer, another name.
    const bound = bindMount(join(outer.dir, 'sub'), join(tempDir(), 'bound'));
    mounts.push(bound);

    expect(diskUsageSync(outer.dir).mountPoint).toBe(outer.dir);
    expect(diskUsageSync(inner.dir).mountPoint).toBe(inner.dir);
    expect(diskUsageSync(inner.dir).total).toBe(4 * 1024 * 1024);
    expect(diskUsageSync(join(bound.dir, 'file')).mountPoint).toBe(bound.dir);
    expect((await diskUsage(bound.dir)).mountPoint).toBe(bound.dir);
    expect(diskUsageSync(join(outer.dir, 'sub', 'file')).mountPoint).toBe(outer.dir);
  });

  it('follows a symlink to the mount that really holds its target', async () => {
    const target = mountTmpfs('size=3m');
    mounts.push(target);
    const link = join(tempDir(), 'link-to-mount');
    symlinkSync(target.dir, link);
    const usage = await diskUsage(link);
    expect(usage.mountPoint).toBe(target.dir);
    expect(usage.path).toBe(link);
    expect(usage.total).toBe(3 * 1024 * 1024);
  });

  it('notices a symlink re-pointed to another mount between two probes', async () => {
    const first = mountTmpfs('size=6m');
    const second = mountTmpfs('size=7m');
    mounts.push(first, second);
    const link = join(tempDir(), 'moving-link');
    symlinkSync(first.dir, link);
    expect(diskUsageSync(link).mountPoint).toBe(first.dir);
    expect((await diskUsage(link)).mountPoint).toBe(first.dir);
    rmSync(link);
    symlinkSync(second.dir, link);
    expect(diskUsageSync(link)).toMatchObject({ mountPoint: second.dir, total: 7 * 1024 * 1024 });
    rmSync(link);
    symlinkSync(first.dir, link);
    expect(await diskUsage(link)).toMatchObject({ mountPoint: first.dir, total: 6 * 1024 * 1024 });
  });

  it('notices one mount replaced by another at the same place', async () => {
    const place = tempDir();
    const before = mountTmpfs('size=8m', place);
    expect(diskUsageSync(place).total).toBe(8 * 1024 * 1024);
    run('umount', [place]);
    run('mount', ['-t', 'tmpfs', '-o', 'size=9m', 'tmpfs', place]);
    mounts.push(before);
    expect(diskUsageSync(place)).toMatchObject({ mountPoint: place, total: 9 * 1024 * 1024 });
    expect(await diskUsage(place)).toMatchObject({ mountPoint: place, total: 9 * 1024 * 1024 });
  });

  it('sees a mount made after the table was first read, and says so', async () => {
    diskUsageSync('/');
    const events: MountEvent[] = [];
    const stop = onMountEvent((event) => events.push(event));
    const late = mountTmpfs('size=5m');
    mounts.push(late);
    expect(diskUsageSync(late.dir).mountPoint).toBe(late.dir);
    stop();
    expect(events).toContainEqual(expect.objectContaining({ type: 'mounts-changed', added: expect.arrayContaining([late.dir]) }));
    expect((await listMounts()).map((m) => m.mountPoint)).toContain(late.dir);
  });

  it('drops empty file systems from the default list, keeps them with all', async () => {
    const empty = tempDir();
    run('mount', ['-t', 'ramfs', 'ramfs', empty]);
    mounts.push({ dir: empty, cleanup: () => run('umount', ['-l', empty]) });
    expect((await listMounts()).map((m) => m.mountPoint)).not.toContain(empty);
    expect((await listMounts({ all: true })).map((m) => m.mountPoint)).toContain(empty);
  });
});
