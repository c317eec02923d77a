// `diskprobe df` against GNU df on the same paths: the whole output must be
// identical, widths and rounding included. Paths are always named: without
// them both would probe every mount, and GNU df hangs on a dead one that
// another test may have up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, df, gnuDfSkipReason, linuxSkipReason, mountTmpfs, rootSkipReason, type TestMount } from '../../helpers/system.js';
import { gnuDf, runCli, whileStill } from '../cliProcess.js';

const PAGE = 4096;

interface UsageDigits {
  readonly mountPoint: string;
  readonly total: string;
  readonly used: string;
  readonly available: string;
  readonly inodes: { readonly total: string; readonly used: string; readonly free: string } | null;
  readonly error: unknown;
}

/** diskprobe's JSON with every integer kept as its digits: JSON.parse would round those above 2^53. */
function parseWithDigits(text: string): UsageDigits[] {
  return JSON.parse(text.replace(/(?<=": )(\d+)(?=,?\n)/g, '"$1"')) as UsageDigits[];
}

/** Mount points in /proc/self/mountinfo (Linux), with its octal escapes undone. */
function mountPoints(): string[] {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => (line.split(' ')[4] ?? '').replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
  } catch {
    return [];
  }
}

// Mounts this machine has whose figures rarely move while a test runs.
const stable = ['/dev', '/dev/shm', '/sys/fs/cgroup'].filter((path) => mountPoints().includes(path));

describe.skipIf(
  announceSkip(
    "diskprobe df vs df on the system's mounts",
    linuxSkipReason ?? gnuDfSkipReason ?? (stable.length === 0 ? 'none of /dev, /dev/shm, /sys/fs/cgroup is a mount here' : undefined),
  ),
)("diskprobe df vs GNU df on this system's mounts", () => {
  it('prints exactly what df -hT prints', () => {
    const { gnu, ours } = whileStill(
      () => gnuDf(['-hT', ...stable]),
      () => runCli(['df', ...stable]).stdout,
    );
    expect(ours).toBe(gnu);
  });

  it('prints exactly what df -hiT and df -i print, given those flags', () => {
    for (const flags of [['-hiT'], ['-i'], ['--inodes']]) {
      const { gnu, ours } = whileStill(
        () => gnuDf([...flags, ...stable]),
        () => runCli(['df', ...flags, ...stable]).stdout,
      );
      expect(ours).toBe(gnu);
    }
  });
});

/**
 * tmpfs mounts sized to land on rounding boundaries, with files taking some
 * pages: tmpfs rounds sizes up to whole pages, and counts one inode for its
 * root and one per file.
 */
const SCRATCH: ReadonlyArray<{ readonly options: string; readonly filePages: readonly number[] }> = [
  { options: `size=${PAGE},nr_inodes=1023`, filePages: [] }, // 4.0K; 1023 inodes
  { options: `size=${255 * PAGE},nr_inodes=1024`, filePages: [3] }, // 1020K; 1.0K inodes
  { options: `size=${257 * PAGE},nr_inodes=1025`, filePages: [1, 1] }, // 1.1M; 1.1K inodes
  { options: `size=${2534 * PAGE},nr_inodes=10239`, filePages: [384] }, // 9.9M with 1.5M used; 10K inodes
  { options: `size=${2535 * PAGE},nr_inodes=10241`, filePages: [1, 255] }, // 10M; 11K inodes
  { options: `size=${2608332 * PAGE},nr_inodes=10240`, filePages: [] }, // 1024^3 × 9.95 bytes: 10G
  { options: `size=9P,nr_inodes=${2n ** 53n + 1n}`, filePages: [2] }, // above 2^53 bytes and inodes
];

describe.skipIf(announceSkip('diskprobe df vs df on tmpfs made for the test', rootSkipReason ?? gnuDfSkipReason))(
  'diskprobe df vs GNU df on tmpfs sized to rounding boundaries',
  () => {
    const mounts: TestMount[] = [];
    beforeAll(() => {
      for (const { options, filePages } of SCRATCH) {
        const mount = mountTmpfs(options);
        mounts.push(mount);
        for (const [index, pages] of filePages.entries()) writeFileSync(join(mount.dir, `file${index}`), Buffer.alloc(pages * PAGE, 1));
      }
    });
    afterAll(() => {
      for (const mount of mounts) mount.cleanup();
    });
    const dirs = () => mounts.map((mount) => mount.dir);

    it('prints exactly what df -hT prints', () => {
      const ours = runCli(['df', ...dirs()]);
      expect(ours.stderr).toBe('');
      expect(ours.status).toBe(0);
      expect(ours.stdout).toBe(gnuDf(['-hT', ...dirs()]));
    });

    it('prints exactly what df -hiT and df -i print, given those flags', () => {
      expect(runCli(['df', '-hiT', ...dirs()]).stdout).toBe(gnuDf(['-hiT', ...dirs()]));
      expect(runCli(['df', '--inodes', ...dirs()]).stdout).toBe(gnuDf(['-i', ...dirs()]));
    });

    it('gives the exact integers of df -B1 and df -i in --json, above 2^53 too', () => {
      const usages = parseWithDigits(runCli(['df', '--json', ...dirs()]).stdout);
      expect(usages.every((usage) => usage.error === null)).toBe(true);
      expect(usages.map((usage) => usage.mountPoint)).toEqual(dirs());
      mounts.forEach((mount, index) => {
        const gnu = df(mount.dir);
        const usage = usages[index]!;
        expect([usage.total, usage.used, usage.available]).toEqual([gnu.size, gnu.used, gnu.avail].map(String));
        expect([usage.inodes?.total, usage.inodes?.used, usage.inodes?.free]).toEqual([gnu.itotal, gnu.iused, gnu.ifree]);
      });
      expect(usages.at(-1)?.inodes?.total).toBe(String(2n ** 53n + 1n));
    });
  },
);

describe.skipIf(announceSkip('diskprobe df vs df on a file system with no inodes', rootSkipReason ?? gnuDfSkipReason))(
  'diskprobe df vs GNU df on ramfs, which reports no blocks and no inodes',
  () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'diskprobe-ramfs-'));
      spawnSync('mount', ['-t', 'ramfs', 'ramfs', dir], { stdio: 'inherit' });
    });
    afterAll(() => {
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    });

    it('prints 0 0 0 - as df -hT and df -hiT do', () => {
      expect(runCli(['df', dir]).stdout).toBe(gnuDf(['-hT', dir]));
      expect(runCli(['df', '-hiT', dir]).stdout).toBe(gnuDf(['-hiT', dir]));
      expect(runCli(['df', '-iT', dir]).stdout).toMatch(/ramfs +0 +0 +0 +- /);
    });
  },
);
