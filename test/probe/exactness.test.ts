// Exact bytes, checked against the kernel's own counts (stat -f) and df, on
// mounts made for the purpose. Needs root; skips with the reason otherwise.
import { statfsSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  announceSkip,
  df,
  type FuseMount,
  fuseSkipReason,
  mountExt4,
  mountFuse,
  mountTmpfs,
  rootSkipReason,
  statFs,
  type TestMount,
  tempDir,
} from '../helpers/system.js';
import { backend, type DiskUsage, diskUsage, diskUsageSync } from '../lib.js';

const mounts: TestMount[] = [];
afterAll(() => {
  for (const mount of mounts.reverse()) mount.cleanup();
});

/** The exact figures stat -f gives for `path`, in bytes. */
function kernel(path: string) {
  const s = statFs(path);
  return { total: s.blocks * s.frsize, free: s.bfree * s.frsize, available: s.bavail * s.frsize, blockSize: s.frsize, files: s.files, ffree: s.ffree };
}

/** Expects every count of `usage` to be the kernel's (Linux has no f_favail of its own: glibc reports f_ffree). */
function expectKernelCounts(usage: DiskUsage<bigint>, k: ReturnType<typeof kernel>): void {
  expect(usage.total).toBe(k.total);
  expect(usage.free).toBe(k.free);
  expect(usage.available).toBe(k.available);
  expect(usage.used).toBe(k.total - k.free);
  expect(usage.blockSize).toBe(k.blockSize);
  expect(usage.inodes).toEqual(k.files > 0n ? expect.objectContaining({ total: k.files, free: k.ffree, available: k.ffree, used: k.files - k.ffree }) : null);
}

/** Expects `usage` of a file system that counts inodes to be df's row for it: -B1 sizes and Use%, -i counts and IUse%. */
function expectDfRow(usage: DiskUsage<bigint>, row: ReturnType<typeof df>): void {
  expect(usage.total).toBe(row.size);
  expect(usage.used).toBe(row.used);
  expect(usage.available).toBe(row.avail);
  expect(`${Math.ceil(usage.usedPercent)}%`).toBe(row.percent);
  expect(usage.inodes).not.toBeNull();
  const inodes = usage.inodes!;
  expect(String(inodes.total)).toBe(row.itotal);
  expect(String(inodes.used)).toBe(row.iused);
  expect(String(inodes.free)).toBe(row.ifree);
  expect(`${Math.ceil(inodes.usedPercent)}%`).toBe(row.ipercent);
}

describe.skipIf(announceSkip('exactness on real mounts', rootSkipReason))(`exact figures on the ${backend} backend`, () => {
  it('is exact above 2^53 bytes with bigint (tmpfs of 9 PiB)', async () => {
    const huge = mountTmpfs('size=9P');
    mounts.push(huge);
    const k = kernel(huge.dir);
    expect(k.total).toBeGreaterThan(2n ** 53n);
    for (const usage of [diskUsageSync(huge.dir, { bigint: true }), await diskUsage(huge.dir, { bigint: true })]) {
      expectKernelCounts(usage, k);
      expect(usage.mountPoint).toBe(huge.dir);
      expect(usage.fsType).toBe('tmpfs');
    }
    // As numbers, the same values rounded to the nearest double.
    expect(diskUsageSync(huge.dir).total).toBe(Number(k.total));
  });

  it('counts root-reserved blocks as df does (ext4 with 5% reserved)', async () => {
    const ext4 = mountExt4(64, 5);
    mounts.push(ext4);
    writeFileSync(join(ext4.dir, 'data'), Buffer.alloc(5 * 1024 * 1024, 1));
    const k = kernel(ext4.dir);
    const row = df(ext4.dir);
    for (const usage of [diskUsageSync(ext4.dir, { bigint: true }), await diskUsage(ext4.dir, { bigint: true })]) {
      expect(usage.free - usage.available).toBeGreaterThan(0n); // the reserve is real
      expectKernelCounts(usage, k);
      expectDfRow(usage, row);
      expect(usage.fsType).toBe('ext4');
    }
  });

  it('follows df -i for inodes (tmpfs with nr_inodes=1000)', async () => {
    const small = mountTmpfs('size=1m,nr_inodes=1000');
    mounts.push(small);
    for (let i = 0; i < 37; i++) writeFileSync(join(small.dir, `f${i}`), '');
    const row = df(small.dir);
    for (const usage of [diskUsageSync(small.dir), await diskUsage(small.dir)]) {
      expect(usage.inodes).not.toBeNull();
      expect(usage.inodes!.total).toBe(1000);
      expect(String(usage.inodes!.total)).toBe(row.itotal);
      expect(String(usage.inodes!.used)).toBe(row.iused);
      expect(String(usage.inodes!.free)).toBe(row.ifree);
      expect(`${Math.ceil(usage.inodes!.usedPercent)}%`).toBe(row.ipercent);
    }
  });

  it('handles mount points with spaces and non-ASCII names', async () => {
    const dir = join(tempDir(), 'dir with spaces\tand ünïcødé 磁盘');
    const odd = mountTmpfs('size=2m', dir);
    mounts.push(odd);
    const link = join(tempDir(), 'link');
    symlinkSync(dir, link);
    // Nothing writes to it: the counts stay put. (df prints the tab as '?', so only its figures are compared.)
    const k = kernel(dir);
    const row = df(dir);
    expect(k.total).toBe(2n * 1024n * 1024n);
    for (const path of [dir, link]) {
      for (const usage of [diskUsageSync(path, { bigint: true }), await diskUsage(path, { bigint: true })]) {
        expect(usage.mountPoint).toBe(dir); // mountinfo's \040 and \011 decoded, UTF-8 intact
        expect(usage.fsType).toBe('tmpfs');
        expectKernelCounts(usage, k);
        expectDfRow(usage, row);
      }
    }
  });

  it("rounds usedPercent up to exactly df's Use% on every mount here", () => {
    for (const path of ['/', '/dev/shm', ...mounts.map((m) => m.dir)]) {
      expect(`${Math.ceil(diskUsageSync(path).usedPercent)}%`, path).toBe(df(path).percent.replace('-', '0%').replace('0%%', '0%'));
    }
  });
});

describe.skipIf(announceSkip('FUSE odd block size', fuseSkipReason))(`f_frsize ≠ f_bsize on the ${backend} backend`, () => {
  let odd: FuseMount;
  beforeAll(async () => {
    odd = await mountFuse('odd');
  });
  afterAll(() => odd?.cleanup());

  if (backend === 'native') {
    it('counts blocks in f_frsize units: exactly what df reports', async () => {
      const row = df(odd.dir);
      for (const usage of [diskUsageSync(odd.dir, { bigint: true }), await diskUsage(odd.dir, { bigint: true })]) {
        expect(usage.total).toBe(4_096_000n);
        expect(usage.free).toBe(2_048_000n);
        expect(usage.available).toBe(1_638_400n);
        expect(usage.blockSize).toBe(4096n);
        expect(usage.total).toBe(row.size);
        expect(usage.available).toBe(row.avail);
        expect(`${Math.ceil(usage.usedPercent)}%`).toBe(row.percent);
        expect(usage.inodes).toMatchObject({ total: 100n, free: 50n, used: 50n });
        expect(usage.fsType).toBe('fuse.fusefix');
      }
    });
  } else {
    it("inherits Node 20's f_bsize error, as the README documents", async () => {
      // Node's StatFs has no f_frsize: blocks × f_bsize is 16× too large here.
      expect(statfsSync(odd.dir).bsize).toBe(65536);
      const usage = await diskUsage(odd.dir, { bigint: true });
      expect(usage.total).toBe(1000n * 65536n);
      expect(usage.total / 4_096_000n).toBe(16n);
      // Percentages do not depend on the unit, so they stay right.
      expect(`${Math.ceil(usage.usedPercent)}%`).toBe(df(odd.dir).percent);
    });
  }
});
