// GNU du as the reference for directoryUsage(), and the trees the walk
// tests compare on. du's figures are read with -0 (NUL after each line), so
// names with newlines, tabs and bytes that are not UTF-8 parse, and paths
// are decoded as the library decodes them (UTF-8, invalid bytes as U+FFFD).
import { spawnSync } from 'node:child_process';
import { closeSync, linkSync, mkdirSync, opendirSync, openSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import type { DirectoryEntry, DirectoryUsage } from '../lib.js';

/** Why du cannot be the reference here, or undefined when GNU du is installed. */
export const gnuDuSkipReason: string | undefined = spawnSync('du', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils')
  ? undefined
  : 'GNU du (coreutils) is not installed: it is the reference for every walk figure';

/** du's lines as path → count. A status other than 0 throws, unless `mayFail` (du still prints what it could count). */
export function du(args: readonly string[], path: string, mayFail = false): Map<string, bigint> {
  const result = spawnSync('du', ['-0', ...args, path], { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 64 << 20 });
  if (result.status !== 0 && !(mayFail && result.status === 1)) {
    throw new Error(`du ${args.join(' ')} ${path} exited ${result.status}: ${result.stderr?.toString()}`);
  }
  const lines = new Map<string, bigint>();
  const out = result.stdout;
  for (let start = 0; start < out.length; ) {
    const end = out.indexOf(0, start);
    const tab = out.indexOf(9, start);
    lines.set(out.subarray(tab + 1, end).toString('utf8'), BigInt(out.subarray(start, tab).toString('latin1')));
    start = end + 1;
  }
  return lines;
}

/** du -s with `args`, as one count. */
export function duTotal(args: readonly string[], path: string, mayFail = false): bigint {
  return du(['-s', ...args], path, mayFail).get(path)!;
}

/** What directoryUsage() must say of `path`: du's allocated (-B1), apparent (-b) and inode (--inodes) figures. */
export function duTotals(path: string, extra: readonly string[] = [], mayFail = false) {
  return {
    allocated: duTotal(['-B1', ...extra], path, mayFail),
    apparent: duTotal(['-b', ...extra], path, mayFail),
    inodes: duTotal(['--inodes', ...extra], path, mayFail),
  };
}

/** An answer's totals in duTotals' terms: allocated, apparent, and inodes (files + directories). */
export function totalsOf(usage: DirectoryUsage<bigint>): { allocated: bigint; apparent: bigint; inodes: bigint } {
  return { allocated: usage.allocated, apparent: usage.apparent, inodes: usage.files + usage.directories };
}

/** Every directory below `path` to `depth` levels (not `path` itself), as du -d prints them: path → [allocated, apparent, inodes]. */
export function duLevels(path: string, depth: number, extra: readonly string[] = []): Map<string, [bigint, bigint, bigint]> {
  const [allocated, apparent, inodes] = [['-B1'], ['-b'], ['--inodes']].map((unit) => du(['-d', String(depth), ...unit, ...extra], path));
  const levels = new Map<string, [bigint, bigint, bigint]>();
  for (const [dir, size] of allocated!) if (dir !== path) levels.set(dir, [size, apparent!.get(dir)!, inodes!.get(dir)!]);
  return levels;
}

/** The same as duLevels, from an answer's children: path → [allocated, apparent, files + directories]. */
export function levelsOf(usage: DirectoryUsage<bigint>): Map<string, [bigint, bigint, bigint]> {
  const levels = new Map<string, [bigint, bigint, bigint]>();
  const visit = (entries: readonly DirectoryEntry<bigint>[]): void => {
    for (const entry of entries) {
      levels.set(entry.path, [entry.allocated, entry.apparent, entry.files + entry.directories]);
      visit(entry.children);
    }
  };
  visit(usage.children);
  return levels;
}

/** Bytes: `size` of them, none alike, so no file system can share or compress them. */
function content(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return bytes;
}

export const write = (path: string | Buffer, size: number, seed = 1): void => writeFileSync(path, content(size, seed));

/** The names in `dir` in the order the file system lists them (readdirSync sorts them). */
export function listingOrder(dir: string): string[] {
  const handle = opendirSync(dir);
  const names: string[] = [];
  for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) names.push(entry.name);
  handle.closeSync();
  return names;
}

/** Names a walk must carry through as they are (the third is not UTF-8). */
export const ODD_NAMES = [Buffer.from('new\nline'), Buffer.from('tab\there'), Buffer.from([0x62, 0xff, 0xfe, 0x0a])] as const;

/** How many subdirectories tree/many holds. */
export const MANY = 5000;

/**
 * The tree the du comparisons run on, made at `root` (which must not exist).
 * Returns where the cross-directory hard link must be counted: in the
 * directory du meets first, depth first in listing order, although another
 * link sits higher up in a directory listed later (a breadth-first walk, or
 * one in name order, counts it there).
 */
export function makeTree(root: string, outside: string): { firstLink: string; laterLink: string; linkedBytes: number } {
  mkdirSync(root);
  write(join(root, 'top.bin'), 3000);
  writeFileSync(join(root, 'empty'), '');
  // Sparse: 10 MiB apparent, one block written at the end.
  const sparse = openSync(join(root, 'sparse'), 'w');
  writeSync(sparse, 'x', 10 * 2 ** 20 - 1);
  closeSync(sparse);

  // Hard links in one directory, and one to a file outside the tree.
  mkdirSync(join(root, 'links'));
  write(join(root, 'links', 'a'), 20_000, 2);
  linkSync(join(root, 'links', 'a'), join(root, 'links', 'b'));
  linkSync(join(root, 'links', 'a'), join(root, 'links', 'c'));
  write(join(outside, 'outside-file'), 7000, 3);
  linkSync(join(outside, 'outside-file'), join(root, 'links', 'from-outside'));

  // Across directories: `first` is listed before `later`; the link deep in `first` is met first.
  const cross = join(root, 'cross');
  mkdirSync(cross);
  mkdirSync(join(cross, 'p'));
  mkdirSync(join(cross, 'r'));
  const [first, later] = listingOrder(cross) as [string, string];
  mkdirSync(join(cross, first, 'deep', 'er'), { recursive: true });
  write(join(cross, later, 'shared'), 50_000, 4);
  linkSync(join(cross, later, 'shared'), join(cross, first, 'deep', 'er', 'shared'));

  // Symlinks are counted as themselves, never followed.
  mkdirSync(join(root, 'symlinks'));
  symlinkSync('.', join(root, 'symlinks', 'dot'));
  symlinkSync('/', join(root, 'symlinks', 'slash'));
  symlinkSync('no/such/target', join(root, 'symlinks', 'dangling'));

  // Odd names, as directories (children name them) holding files of their own.
  ODD_NAMES.forEach((name, i) => {
    const dir = Buffer.concat([Buffer.from(`${root}/`), name]);
    mkdirSync(dir);
    write(Buffer.concat([dir, Buffer.from('/'), name]), 1000 * (i + 1), i);
  });

  // A directory with MANY children, some holding a file.
  const many = join(root, 'many');
  mkdirSync(many);
  for (let i = 0; i < MANY; i++) {
    mkdirSync(join(many, `d${i}`));
    if (i % 7 === 0) write(join(many, `d${i}`, 'f'), (i % 50) * 100 + 1, i);
  }
  return { firstLink: join(cross, first), laterLink: join(cross, later), linkedBytes: 50_000 };
}
