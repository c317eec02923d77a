// directoryUsage() against GNU du, on real trees on a tmpfs and on a
// loop-mounted ext4 image (its directories have blocks, its listings come in
// hash order): totals, every directory at depth 1 and 2, inodes, hard links
// counted where du counts them, symlinks never followed, odd names, mounts
// inside the tree, a bind-mount cycle, a very deep path, and an unreadable
// directory walked as an unprivileged user. Runs once per backend.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, bindMount, has, mountExt4, mountTmpfs, projectRoot, rootSkipReason, type TestMount } from '../helpers/system.js';
import { directoryUsage } from '../lib.js';
import { du, duLevels, duTotals, gnuDuSkipReason, levelsOf, MANY, makeTree, ODD_NAMES, totalsOf, write } from './duOracle.js';
import { backendUnderTest, expectWhole } from './expectations.js';

const skipReason = rootSkipReason ?? gnuDuSkipReason;
const mounts: TestMount[] = [];
afterAll(() => {
  for (const mount of mounts.reverse()) mount.cleanup();
});

/** A program that prints directoryUsage() of its last argument as JSON. */
const printUsage = `import { directoryUsage } from ${JSON.stringify(`${projectRoot}dist/index.js`)};
process.stdout.write(JSON.stringify(await directoryUsage(process.argv.at(-1), { depth: 1 })));`;

/** Runs `command` as nobody (uid and gid 65534, no groups). */
const asNobody = (command: string, args: string[]) =>
  spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', command, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LC_ALL: 'C', DISKPROBE_BACKEND: backendUnderTest },
  });

/** A fresh walk (never a kept one), bigint, to depth 2. */
const walk = (path: string, options: { oneFileSystem?: boolean } = {}) => directoryUsage(path, { fresh: true, bigint: true, depth: 2, ...options });

describe.skipIf(announceSkip(`directoryUsage against du (${backendUnderTest})`, skipReason))(`directoryUsage against du, ${backendUnderTest}`, () => {
  describe.each(['tmpfs', 'ext4'] as const)('on %s', (fsType) => {
    let tree: string;
    let cross: ReturnType<typeof makeTree>;
    beforeAll(() => {
      const mount =
        fsType === 'tmpfs'
          ? mountTmpfs('size=256M')
          : mountExt4(256, 0, (dir) => {
              cross = makeTree(join(dir, 'tree'), dir);
            });
      mounts.push(mount);
      if (fsType === 'tmpfs') cross = makeTree(join(mount.dir, 'tree'), mount.dir);
      tree = join(mount.dir, 'tree');
    });

    it('says what du -s says: allocated (-B1), apparent (-b), and files + directories (--inodes)', async () => {
      const usage = await walk(tree);
      const expected = duTotals(tree);
      expect(totalsOf(usage)).toEqual(expected);
      // Symlinks and the sparse file count as files; the 5,000 children and the rest as directories.
      expect(usage.directories).toBeGreaterThan(BigInt(MANY));
      expect(usage.path).toBe(tree);
      expectWhole(usage);
    });

    it('gives every directory at depth 1 and 2 the sizes and inodes du -d 2 gives it', async () => {
      const usage = await walk(tree);
      expect(levelsOf(usage)).toEqual(duLevels(tree, 2));
      const many = usage.children.find((child) => child.name === 'many')!;
      expect(many.children).toHaveLength(MANY);
      for (const child of usage.children) expect(child.complete, child.path).toBe(true);
    });

    it('counts a hard-linked file once: in two directories, where du meets it first, depth first in listing order', async () => {
      const usage = await walk(tree);
      const crossDir = usage.children.find((child) => child.name === 'cross')!;
      const [first, later] = [cross.firstLink, cross.laterLink].map((path) => crossDir.children.find((child) => child.path === path)!);
      // The deeper link, in the directory listed first, carries the bytes; the other directory none of them.
      expect(first!.apparent - later!.apparent).toBeGreaterThan(BigInt(cross.linkedBytes));
      const byDu = du(['-d', '2', '-B1'], tree);
      expect([first!.allocated, later!.allocated]).toEqual([byDu.get(cross.firstLink), byDu.get(cross.laterLink)]);
      // In one directory: a, b and c are one file; the link from outside the tree is another.
      expect(usage.children.find((child) => child.name === 'links')).toMatchObject({ files: 2n, directories: 1n });
    });

    it('names children with newlines, tabs and bytes that are not UTF-8 as du does (decoded as UTF-8)', async () => {
      const usage = await walk(tree);
      const names = usage.children.map((child) => child.name);
      for (const name of ODD_NAMES) expect(names).toContain(name.toString('utf8'));
      const odd = usage.children.find((child) => child.name === ODD_NAMES[2]!.toString('utf8'))!;
      expect(odd.path).toBe(`${tree}/${ODD_NAMES[2]!.toString('utf8')}`);
      expect(odd.files).toBe(1n);
    });

    it('counts symlinks (to ".", to "/", dangling) as themselves, never following them', async () => {
      const symlinks = (await walk(tree)).children.find((child) => child.name === 'symlinks')!;
      expect(symlinks).toMatchObject({ files: 3n, directories: 1n });
      expect(symlinks.allocated).toBe(du(['-s', '-B1'], symlinks.path).get(symlinks.path));
    });
  });

  describe('with mounts inside the tree', () => {
    let base: string;
    beforeAll(() => {
      const mount = mountTmpfs('size=64M');
      mounts.push(mount);
      base = mount.dir;
    });

    it('crosses into a tmpfs mounted inside as du does, and stays out with oneFileSystem as du -x does', async () => {
      const tree = join(base, 'mounted');
      mkdirSync(join(tree, 'home'), { recursive: true });
      write(join(tree, 'home', 'f'), 30_000);
      const inner = mountTmpfs('size=8M', join(tree, 'inner'));
      mounts.push(inner);
      write(join(inner.dir, 'big'), 64 * 1024, 5);
      mkdirSync(join(inner.dir, 'sub'));

      const across = await walk(tree);
      expect(totalsOf(across)).toEqual(duTotals(tree));
      expect(levelsOf(across)).toEqual(duLevels(tree, 2));
      const staying = await walk(tree, { oneFileSystem: true });
      expect(totalsOf(staying)).toEqual(duTotals(tree, ['-x']));
      expect(levelsOf(staying)).toEqual(duLevels(tree, 2, ['-x']));
      // The difference is the inner mount: its file, its subdirectory and its root.
      expect(across.allocated - staying.allocated).toBeGreaterThanOrEqual(64n * 1024n);
      expect(across.directories - staying.directories).toBe(2n);
      expect(staying.children.map((child) => child.name)).toEqual(['home']);
    });

    it('counts a directory reached again through a bind mount of the tree inside itself once, as du does', async () => {
      const tree = join(base, 'cycle');
      mkdirSync(join(tree, 'sub'), { recursive: true });
      write(join(tree, 'sub', 'f'), 100_000);
      mounts.push(bindMount(tree, join(tree, 'sub', 'loop')));
      const usage = await walk(tree);
      expect(totalsOf(usage)).toEqual(duTotals(tree));
      expect(levelsOf(usage)).toEqual(duLevels(tree, 2));
      expect(usage.directories).toBe(2n); // the tree and sub: the loop is the tree again
    });
  });

  it('walks a path 30,000 bytes deep (native), or reports ENAMETOOLONG rather than hang (statfs)', async () => {
    const mount = mountTmpfs('size=16M');
    mounts.push(mount);
    // 300 levels of 99-byte names, made relative to each level: no path this long can be passed whole.
    const script =
      "const fs = require('fs'); for (let i = 0; i < 300; i++) { fs.mkdirSync('d'.repeat(99)); process.chdir('d'.repeat(99)); } fs.writeFileSync('leaf', 'x'.repeat(5000));";
    const made = spawnSync(process.execPath, ['-e', script], { cwd: mount.dir, encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const expected = duTotals(mount.dir);
    const usage = await walk(mount.dir);
    if (usage.errors.count === 0) {
      expect(totalsOf(usage)).toEqual(expected);
      expect(usage.directories).toBe(301n);
      expectWhole(usage);
    } else {
      // Paths past PATH_MAX (4096 bytes) cannot be given whole to lstat or opendir.
      const error = usage.errors.first[0]!;
      console.warn(
        `[limit] ${backendUnderTest}: a path 30,000 bytes deep is not walked whole: ${error.code} from ${error.syscall} at ${Buffer.byteLength(error.path)} bytes`,
      );
      expect(backendUnderTest, 'the native walk opens each directory from its parent: no path is too long').toBe('statfs');
      expect(usage.errors.first.map((error) => error.code)).toEqual(['ENAMETOOLONG']);
      expect(Buffer.byteLength(error.path)).toBeGreaterThanOrEqual(4096);
      // It ends, with what lies above that depth counted. (It says complete: true, although the
      // directories below were never listed: the error is an entry's lstat, which marks nothing.)
      expect(usage.unfinished.count).toBe(0);
      expect(usage.directories).toBeGreaterThan(30n);
      expect(usage.allocated).toBeLessThan(expected.allocated);
    }
  });

  it.skipIf(announceSkip('walking as nobody', has('setpriv') ? undefined : 'setpriv (util-linux) is missing'))(
    'walked as an unprivileged user, counts an unreadable directory itself as du does, and names it EACCES',
    () => {
      const mount = mountTmpfs('size=16M,mode=755');
      mounts.push(mount);
      const tree = join(mount.dir, 'tree');
      mkdirSync(join(tree, 'open'), { recursive: true });
      write(join(tree, 'open', 'f'), 10_000);
      mkdirSync(join(tree, 'locked', 'inner'), { recursive: true });
      write(join(tree, 'locked', 'hidden'), 50_000);
      chmodSync(join(tree, 'locked'), 0o000);
      // nobody runs both: du, and the library in a child process (this one is root, which reads anything).
      const script = join(mount.dir, 'walk.mjs');
      writeFileSync(script, printUsage);
      const ran = asNobody(process.execPath, [script, tree]);
      expect(ran.status, ran.stderr).toBe(0);
      const usage = JSON.parse(ran.stdout);
      const duOf = (unit: string) => asNobody('du', ['-s', unit, tree]);
      const [allocated, apparent, inodes] = ['-B1', '-b', '--inodes'].map(duOf);
      expect(allocated!.stderr).toContain("cannot read directory '");
      expect(totalsOf(usage)).toEqual({
        allocated: Number.parseInt(allocated!.stdout, 10),
        apparent: Number.parseInt(apparent!.stdout, 10),
        inodes: Number.parseInt(inodes!.stdout, 10),
      });
      expect(usage.errors).toMatchObject({ count: 1, first: [{ path: join(tree, 'locked'), code: 'EACCES' }] });
      expect(usage.complete).toBe(false);
      expect(usage.children.find((child: { name: string }) => child.name === 'locked')).toMatchObject({ directories: 1, files: 0, complete: false });
    },
  );

  // The fallback forks its helper with the caller's execArgv: under `node --input-type=module -e`,
  // the helper dies at once (ERR_INPUT_TYPE_NOT_ALLOWED) and the walk rejects after the 5 s stall
  // with "the walk was released: its tree is gone". (An ordinary script, as above, is fine.)
  it('walks for a program run with node --input-type=module -e', () => {
    const mount = mountTmpfs('size=1M');
    mounts.push(mount);
    write(join(mount.dir, 'f'), 10_000);
    const ran = spawnSync(process.execPath, ['--input-type=module', '-e', printUsage, mount.dir], { encoding: 'utf8' });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toMatchObject({ allocated: Number(duTotals(mount.dir).allocated), files: 1, directories: 1 });
  });

  // A walk of one empty directory leaves 3 of its 4 threads idle: none may
  // show as busy on the start (once they did, and the walk said it was unfinished).
  it('says a finished walk of an empty directory is complete, with nothing unfinished', async () => {
    const mount = mountTmpfs('size=1M');
    mounts.push(mount);
    const usage = await directoryUsage(mount.dir, { fresh: true });
    expect(usage).toMatchObject({ files: 0, directories: 1 });
    expect(usage.unfinished).toEqual({ count: 0, first: [] });
    expect(usage.complete).toBe(true);
  });
});
