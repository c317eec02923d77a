// Inline probes (Linux, native backend): a path on a mount whose file system
// keeps its counts in memory, and whose lookup the kernel can serve from its
// cache without leaving that mount, is answered on the calling thread. Every
// other case must fall back to the addon's threads and still be right.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { announceSkip, mountExt4, mountTmpfs, rootSkipReason, type TestMount, tempDir } from '../helpers/system.js';
import { backend, diskUsage, diskUsageSync } from '../lib.js';

// Run by the native project only (vitest.config.ts).
const inlineSkipReason = process.platform !== 'linux' ? 'inline probes are Linux only' : rootSkipReason;

/**
 * Whether `probe` settles within a few microtasks, that is without a trip
 * through the event loop: an answer from the addon's threads always needs one.
 */
async function settlesInline(probe: () => Promise<unknown>): Promise<boolean> {
  let settled = false;
  const done = probe().then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await null;
  const inline = settled;
  await done;
  return inline;
}

describe.skipIf(announceSkip('inline probes', inlineSkipReason))('inline probes', () => {
  it('run on the native backend', () => expect(backend).toBe('native'));

  const mounts: TestMount[] = [];
  afterAll(() => {
    for (const mount of mounts.reverse()) mount.cleanup();
  });

  it('answers a cached path on tmpfs without leaving the thread, with the same numbers as a direct statvfs', async () => {
    const disk = mountTmpfs('size=5m,nr_inodes=500');
    mounts.push(disk);
    writeFileSync(join(disk.dir, 'file'), 'x'.repeat(10_000));
    await diskUsage(disk.dir); // warms the kernel's cache, if it was not
    expect(await settlesInline(() => diskUsage(join(disk.dir, 'file')))).toBe(true);
    const inline = await diskUsage(join(disk.dir, 'file'), { bigint: true });
    const direct = diskUsageSync(join(disk.dir, 'file'), { bigint: true });
    expect({ ...inline }).toEqual({ ...direct });
    // The mount point itself is answered from the mount's open root.
    expect(await settlesInline(() => diskUsage(disk.dir))).toBe(true);
    expect({ ...(await diskUsage(disk.dir, { bigint: true })) }).toEqual({ ...diskUsageSync(disk.dir, { bigint: true }) });
    expect(inline.mountPoint).toBe(disk.dir);
    expect(inline.total).toBe(5n * 1024n * 1024n);
    // A missing path is an error from the same lookup, shaped as ever.
    await expect(diskUsage(join(disk.dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT', syscall: 'statvfs', path: join(disk.dir, 'missing') });
    await expect(diskUsage(join(disk.dir, 'file', 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('leaves the thread for a symlink or ".." that leads to another mount, and reports that mount', async () => {
    const here = mountTmpfs('size=3m');
    const there = mountTmpfs('size=7m');
    mounts.push(here, there);
    symlinkSync(there.dir, join(here.dir, 'away'));
    symlinkSync('/', join(here.dir, 'root'));
    await diskUsage(here.dir);
    for (let round = 0; round < 2; round++) {
      // the second round finds everything cached
      expect((await diskUsage(join(here.dir, 'away'))).mountPoint).toBe(there.dir);
      expect((await diskUsage(join(here.dir, 'away'))).total).toBe(7 * 1024 * 1024);
      expect((await diskUsage(join(here.dir, 'root'))).mountPoint).toBe('/');
      expect((await diskUsage(`${here.dir}/..`)).mountPoint).not.toBe(here.dir);
    }
  });

  it("answers paths not yet in the kernel's cache on the addon's threads, links to other mounts included", async () => {
    const there = mountTmpfs('size=7m');
    mounts.push(there);
    // A fresh ext4 mount: nothing below its root is cached, so none of these can be answered inline at first.
    const cold = mountExt4(16, 0, (dir) => {
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'sub', 'file'), 'x');
      for (const name of ['away', 'away-sync', 'root']) symlinkSync(name === 'root' ? '/' : there.dir, join(dir, 'sub', name));
      symlinkSync('file', join(dir, 'sub', 'inside')); // a link that stays on the mount
      symlinkSync(join(dir, 'sub'), join(dir, 'absolute-inside')); // likewise, by an absolute path
    });
    mounts.push(cold);
    expect(await settlesInline(() => diskUsage(join(cold.dir, 'sub', 'file')))).toBe(false);
    expect((await diskUsage(join(cold.dir, 'sub', 'file'))).mountPoint).toBe(cold.dir);
    const away = await diskUsage(join(cold.dir, 'sub', 'away'), { bigint: true });
    expect([away.mountPoint, away.total]).toEqual([there.dir, 7n * 1024n * 1024n]);
    expect(diskUsageSync(join(cold.dir, 'sub', 'away-sync'), { timeout: 5000 }).mountPoint).toBe(there.dir);
    expect((await diskUsage(join(cold.dir, 'sub', 'root'))).mountPoint).toBe('/');
    expect((await diskUsage(join(cold.dir, 'sub', 'inside'))).mountPoint).toBe(cold.dir);
    expect(diskUsageSync(join(cold.dir, 'absolute-inside', 'file'), { timeout: 5000 }).mountPoint).toBe(cold.dir);
    // Cached now: the same answers.
    expect((await diskUsage(join(cold.dir, 'sub', 'away'))).mountPoint).toBe(there.dir);
    expect(diskUsageSync(join(cold.dir, 'sub', 'away-sync'), { timeout: 5000 }).mountPoint).toBe(there.dir);
  });

  it('notices a mount made over a directory it has answered for, and its removal', async () => {
    const outer = mountTmpfs('size=6m');
    mounts.push(outer);
    const inner = join(outer.dir, 'inner');
    mkdirSync(inner);
    for (let i = 0; i < 3; i++) expect((await diskUsage(inner)).mountPoint).toBe(outer.dir);
    const over = mountTmpfs('size=2m', inner);
    expect((await diskUsage(inner)).mountPoint).toBe(inner);
    expect((await diskUsage(inner)).total).toBe(2 * 1024 * 1024);
    over.cleanup();
    mkdirSync(inner, { recursive: true });
    expect((await diskUsage(inner)).mountPoint).toBe(outer.dir);
    expect((await diskUsage(inner)).total).toBe(6 * 1024 * 1024);
  });

  it('keeps no mount busy: a plain umount succeeds right after inline probes of it', async () => {
    const disk = mountTmpfs('size=2m');
    writeFileSync(join(disk.dir, 'f'), '');
    for (let i = 0; i < 3; i++) {
      await diskUsage(disk.dir);
      await diskUsage(join(disk.dir, 'f'));
      diskUsageSync(disk.dir);
    }
    expect(await settlesInline(() => diskUsage(join(disk.dir, 'f')))).toBe(true);
    const result = spawnSync('umount', [disk.dir], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    disk.cleanup();
  });

  it('never answers inline on a file system that may have to ask a device or a server', async () => {
    // /proc is in memory too, but not in the list of file systems whose statfs is known not to block.
    expect(await settlesInline(() => diskUsage('/proc/self'))).toBe(false);
    const dir = tempDir();
    try {
      writeFileSync(join(dir, 'f'), '');
      expect((await diskUsage(join(dir, 'f'))).backend).toBe('native');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
