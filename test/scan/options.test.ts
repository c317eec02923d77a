// directoryUsage()'s options and the shape of its answer, on a small tree
// of known sizes on a tmpfs, with GNU du as the reference for the largest
// files (du -a), the directories holding the most, by their own files (du -S),
// and the largest subtrees (children, du -d 1), two lists that differ:
// depth, ranking (allocated or apparent; children's ties in listing order, the largest
// files' and directories' in path order), top,
// bigint (exact above 2^53), threads, and what it refuses. Runs once per backend.
import { linkSync, mkdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, mountTmpfs, rootSkipReason, run, type TestMount } from '../helpers/system.js';
import { type DirectoryEntry, type DirectoryUsage, directoryUsage } from '../lib.js';
import { du, duTotals, gnuDuSkipReason, listingOrder, write } from './duOracle.js';
import { backendUnderTest, expectWhole } from './expectations.js';

const mounts: TestMount[] = [];
afterAll(() => {
  for (const mount of mounts.reverse()) mount.cleanup();
});

/** An answer without what differs from walk to walk. */
function figures(usage: DirectoryUsage<number | bigint>) {
  const { scannedAt: _at, elapsedMs: _elapsed, ageMs: _age, complete: _complete, unfinished: _unfinished, ...rest } = usage;
  return rest;
}

/** du's lines for the entries that are not directories (du -a less du): path → bytes. */
function duFiles(unit: string, path: string): Map<string, bigint> {
  const directories = du([unit], path);
  return new Map([...du(['-a', unit], path)].filter(([entry]) => !directories.has(entry)));
}

/** The `count` largest values, largest first. */
const largest = (values: Iterable<bigint>, count: number) => [...values].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, count);

describe.skipIf(announceSkip(`directoryUsage options (${backendUnderTest})`, rootSkipReason ?? gnuDuSkipReason))(
  `directoryUsage options, ${backendUnderTest}`,
  () => {
    let root: string;
    beforeAll(() => {
      const mount = mountTmpfs('size=64M');
      mounts.push(mount);
      root = join(mount.dir, 'tree');
      mkdirSync(join(root, 'big', 'x', 'y', 'z'), { recursive: true });
      write(join(root, 'big', 'a'), 300_000);
      write(join(root, 'big', 'x', 'b'), 5_000);
      write(join(root, 'big', 'x', 'y', 'z', 'deep'), 7_000);
      mkdirSync(join(root, 'mid'));
      for (const [name, size] of [
        ['c', 100_000],
        ['d', 90_000],
        ['e', 80_000],
        ['g', 70_000],
      ] as const)
        write(join(root, 'mid', name), size);
      mkdirSync(join(root, 'lots'));
      for (let i = 0; i < 30; i++) write(join(root, 'lots', `f${i}`), i * 10 + 1);
      mkdirSync(join(root, 'links'));
      write(join(root, 'links', 'h1'), 40_000);
      linkSync(join(root, 'links', 'h1'), join(root, 'links', 'h2'));
      // sparse and small tie on disk (one page each): ties rank in listing order.
      mkdirSync(join(root, 'sparse'));
      write(join(root, 'sparse', 's'), 100);
      truncateSync(join(root, 'sparse', 's'), 50 * 2 ** 20);
      mkdirSync(join(root, 'small'));
      write(join(root, 'small', 'f'), 1_000);
      mkdirSync(join(root, 'empty'));
      write(join(root, 'r'), 2_000);
    });

    it('lists `depth` levels of children: none at 0, and each level to the depth asked for', async () => {
      const names = (entries: readonly DirectoryEntry[]) => entries.map((entry) => entry.name).sort();
      expect((await directoryUsage(root, { depth: 0 })).children).toEqual([]);
      const one = await directoryUsage(root, { depth: 1 });
      expect(names(one.children)).toEqual(['big', 'empty', 'links', 'lots', 'mid', 'small', 'sparse']);
      for (const child of one.children) expect(child.children).toEqual([]);
      const big = (usage: DirectoryUsage) => usage.children.find((child) => child.name === 'big')!;
      expect(names(big(await directoryUsage(root, { depth: 2 })).children)).toEqual(['x']);
      const four = big(await directoryUsage(root, { depth: 4 }));
      expect(four.children[0]!.children[0]!.children[0]).toMatchObject({ name: 'z', path: join(root, 'big', 'x', 'y', 'z'), files: 1, children: [] });
    });

    it('ranks children largest first, on disk by default and by apparent size with apparent, ties in listing order', async () => {
      const byDisk = (await directoryUsage(root)).children;
      expect(byDisk.map((child) => child.name).slice(0, 4)).toEqual(['mid', 'big', 'lots', 'links']);
      const sizes = byDisk.map((child) => child.allocated);
      expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
      // sparse and small both take one page: the one listed first comes first.
      const tied = byDisk.filter((child) => child.name === 'sparse' || child.name === 'small').map((child) => child.name);
      expect(tied).toEqual(listingOrder(root).filter((name) => name === 'sparse' || name === 'small'));
      const byContent = (await directoryUsage(root, { apparent: true })).children;
      expect(byContent.map((child) => child.name).slice(0, 3)).toEqual(['sparse', 'mid', 'big']);
    });

    it.for([false, true])('lists the `top` largest files as du -a counts them (apparent: %s), each hard-linked file once', async (apparent) => {
      const unit = apparent ? '-b' : '-B1';
      const expected = duFiles(unit, root);
      for (const top of [0, 1, 5]) {
        const usage = await directoryUsage(root, { top, apparent, bigint: true });
        const size = (file: { allocated: bigint; apparent: bigint }) => (apparent ? file.apparent : file.allocated);
        expect(usage.largestFiles.map(size)).toEqual(largest(expected.values(), top));
        for (const file of usage.largestFiles) expect(size(file), file.path).toBe(expected.get(file.path));
      }
      const all = await directoryUsage(root, { top: 1000 });
      expect(all.largestFiles.filter((file) => file.path.startsWith(join(root, 'links')))).toHaveLength(1);
    });

    it('ranks by apparent size the files of a directory crowded with larger ones on disk', async () => {
      // Each directory keeps only its largest files: by both measures, or the sparse one, last on
      // disk, would be gone before the ranking by apparent size looked for it.
      const crowded = join(root, '..', 'crowded');
      mkdirSync(crowded);
      for (let i = 0; i < 60; i++) write(join(crowded, `f${String(i).padStart(2, '0')}`), 8_193 + i);
      write(join(crowded, 'sparse'), 10);
      truncateSync(join(crowded, 'sparse'), 2 ** 30);
      const byContent = await directoryUsage(crowded, { apparent: true, top: 3, bigint: true });
      expect(byContent.largestFiles.map((file) => file.path)).toEqual([join(crowded, 'sparse'), join(crowded, 'f59'), join(crowded, 'f58')]);
      // On disk the 60 take three pages each and tie: the first by path make the list, on any thread count.
      for (const threads of [1, 2, 8]) {
        const byDisk = await directoryUsage(crowded, { top: 3, threads, fresh: true });
        expect(byDisk.largestFiles.map((file) => file.path)).toEqual(['f00', 'f01', 'f02'].map((name) => join(crowded, name)));
      }
    });

    it('lists the `top` directories holding the most, by their own files as du -S counts them', async () => {
      const own = du(['-S', '-B1'], root);
      const ownInodes = du(['-S', '--inodes'], root);
      const usage = await directoryUsage(root, { top: 5, bigint: true });
      expect(usage.directoriesHoldingMost.map((dir) => dir.allocated)).toEqual(largest(own.values(), 5));
      for (const dir of usage.directoriesHoldingMost) {
        expect(dir.allocated, dir.path).toBe(own.get(dir.path));
        expect(dir.files, dir.path).toBe(ownInodes.get(dir.path)! - 1n); // less the directory itself
      }
      expect(usage.directoriesHoldingMost[0]!.path).toBe(join(root, 'mid'));
      // The old name is gone (issue 27), not kept beside the new one.
      expect(usage).not.toHaveProperty('largestDirectories');
    });

    it('ranks largest subtrees (children) by everything below, directories holding the most by their own files', async () => {
      // spread: five subdirectories of 60 kB each, nothing of its own; flat: one file of 200 kB.
      const contrast = join(root, '..', 'contrast');
      for (let i = 0; i < 5; i++) {
        mkdirSync(join(contrast, 'spread', `part${i}`), { recursive: true });
        write(join(contrast, 'spread', `part${i}`, 'f'), 60_000);
      }
      mkdirSync(join(contrast, 'flat'));
      write(join(contrast, 'flat', 'f'), 200_000);
      const usage = await directoryUsage(contrast, { top: 1, bigint: true });
      const subtrees = du(['-d', '1', '-B1'], contrast);
      expect(usage.children.map((child) => [child.path, child.allocated])).toEqual([
        [join(contrast, 'spread'), subtrees.get(join(contrast, 'spread'))],
        [join(contrast, 'flat'), subtrees.get(join(contrast, 'flat'))],
      ]);
      const own = du(['-S', '-B1'], contrast);
      expect(usage.directoriesHoldingMost.map((dir) => [dir.path, dir.allocated])).toEqual([[join(contrast, 'flat'), own.get(join(contrast, 'flat'))]]);
    });

    it('gives the same answer as bigint, and bigint counts stay exact past 2^53', async () => {
      const asNumbers = await directoryUsage(root, { depth: 2, fresh: true });
      const asBigints = await directoryUsage(root, { depth: 2, bigint: true });
      expect(typeof asBigints.allocated).toBe('bigint');
      expect(typeof asBigints.children[0]!.files).toBe('bigint');
      expect(typeof asBigints.largestFiles[0]!.apparent).toBe('bigint');
      const toNumbers = (value: unknown) => JSON.parse(JSON.stringify(value, (_key, field) => (typeof field === 'bigint' ? Number(field) : field)));
      expect(toNumbers(figures(asBigints))).toEqual(figures(asNumbers));

      // Two sparse files of 2^60 bytes and a little: their sum is no double.
      const huge = join(root, '..', 'huge');
      mkdirSync(huge);
      write(join(huge, 'a'), 1);
      run('truncate', ['-s', String(2n ** 60n + 1n), join(huge, 'a')]);
      write(join(huge, 'b'), 1);
      run('truncate', ['-s', String(2n ** 60n + 3n), join(huge, 'b')]);
      const exact = await directoryUsage(huge, { bigint: true });
      expect(exact.apparent).toBe(duTotals(huge).apparent);
      expect(exact.apparent).toBeGreaterThan(2n ** 61n);
      expect(exact.largestFiles.map((file) => file.apparent).sort()).toEqual([2n ** 60n + 1n, 2n ** 60n + 3n]);
    });

    it('gives the same answer on one thread as on the default threads', async () => {
      const one = await directoryUsage(root, { depth: 3, top: 20, threads: 1, fresh: true });
      const many = await directoryUsage(root, { depth: 3, top: 20, fresh: true });
      const most = await directoryUsage(root, { depth: 3, top: 20, threads: 64, fresh: true });
      expect(figures(many)).toEqual(figures(one));
      expect(figures(most)).toEqual(figures(one));
      expectWhole(one);
      expectWhole(many);
    });

    it('answers for a file as start: one file, no directory', async () => {
      const file = join(root, 'big', 'a');
      const usage = await directoryUsage(file, { fresh: true, bigint: true });
      expect(usage).toMatchObject({ path: file, files: 1n, directories: 0n, children: [] });
      expect(usage.allocated).toBe(duTotals(file).allocated);
    });

    it('resolves a relative path against the current directory, and rejects a missing start with ENOENT naming it', async () => {
      const start = process.cwd();
      try {
        process.chdir(root);
        const pending = directoryUsage('mid', { fresh: true });
        process.chdir(start); // resolved when called, as fs does
        expect((await pending).path).toBe(join(root, 'mid'));
      } finally {
        process.chdir(start);
      }
      const missing = join(root, 'no', 'such');
      await expect(directoryUsage(missing)).rejects.toMatchObject({ code: 'ENOENT', path: missing });
    });

    it('rejects options out of range', async () => {
      const rejects = (options: object, code: string, name: string) =>
        expect(directoryUsage(root, options as never), JSON.stringify(options)).rejects.toMatchObject({ code, name, message: expect.any(String) });
      for (const depth of [-1, 65, 1.5]) await rejects({ depth }, 'ERR_OUT_OF_RANGE', 'RangeError');
      for (const top of [-1, 1001, 2.5]) await rejects({ top }, 'ERR_OUT_OF_RANGE', 'RangeError');
      for (const threads of [0, 65, 1.5]) await rejects({ threads }, 'ERR_OUT_OF_RANGE', 'RangeError');
      for (const timeout of [0, -5, Number.NaN, 2 ** 31]) await rejects({ timeout }, 'ERR_OUT_OF_RANGE', 'RangeError');
      await rejects({ timeout: '100' }, 'ERR_INVALID_ARG_TYPE', 'TypeError');
      for (const flag of ['bigint', 'fresh', 'apparent', 'oneFileSystem']) await rejects({ [flag]: 1 }, 'ERR_INVALID_ARG_TYPE', 'TypeError');
      await rejects({ onProgress: 'x' }, 'ERR_INVALID_ARG_TYPE', 'TypeError');
      await rejects({ signal: {} }, 'ERR_INVALID_ARG_TYPE', 'TypeError');
      await expect(directoryUsage(root, 'x' as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
      await expect(directoryUsage(42 as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
      await expect(directoryUsage(`${root}\0x`)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
    });

    it('refuses an option it does not take, and a stallTimeout that is not a finite timeout', async () => {
      await expect(directoryUsage(root, { deepth: 1 } as never)).rejects.toMatchObject({
        name: 'TypeError',
        code: 'ERR_INVALID_ARG_VALUE',
        message: expect.stringMatching(
          /^The "options" argument has an unknown property "deepth" \(did you mean "depth"\?\)\. Known: depth, top, .*stallTimeout/,
        ),
      });
      for (const stallTimeout of [0, -1, 2 ** 31, Number.POSITIVE_INFINITY]) {
        await expect(directoryUsage(root, { stallTimeout })).rejects.toMatchObject({
          code: 'ERR_OUT_OF_RANGE',
          message: expect.stringContaining('stallTimeout'),
        });
      }
      await expect(directoryUsage(root, { stallTimeout: '1' as never })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    });

    // depth, top and threads of the wrong type are called out of range ('1' "Received 1"),
    // where timeout and the flags say ERR_INVALID_ARG_TYPE, as Node's own APIs do.
    it('rejects depth, top and threads of the wrong type as a TypeError', async () => {
      for (const name of ['depth', 'top', 'threads']) {
        await expect(directoryUsage(root, { [name]: '1' })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
      }
    });

    // diskUsage('') refuses with ENOENT, as fs does (test/probe/api.test.ts);
    // directoryUsage('') walks the current directory instead (path.resolve('')).
    it('refuses an empty path with ENOENT, as diskUsage does', async () => {
      await expect(directoryUsage('')).rejects.toMatchObject({ code: 'ENOENT', path: '' });
    });
  },
);
