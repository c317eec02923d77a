// diskprobe du's own outputs: --json, directoryUsage()'s answer for each
// operand with exact integers, checked against the library and GNU du's
// byte counts; and --top, each operand's size, its directories holding the
// most (by the files directly in them: GNU du -S's sizes) and its largest
// files, in a few lines. The largest subtrees (children, du -d 1) and the
// directories holding the most are two lists, under two names (issue 27).
// Plain directories under the temp dir: no mount, no root needed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { directoryUsage } from '../../../dist/index.js';
import { announceSkip, tempDir } from '../../helpers/system.js';
import { cliPath, runCli } from '../cliProcess.js';

const gnuDuSkipReason =
  spawnSync('du', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') === true ? undefined : 'GNU du (coreutils) is not installed';

/** GNU du's first number for `args`, as a bigint. */
function gnuBytes(args: string[]): bigint {
  const result = spawnSync('du', args, { encoding: 'utf8' });
  return BigInt(result.stdout.split('\t')[0]!);
}

/** GNU du's line for `args`, in the C locale. */
function gnuLine(args: string[]): string {
  return spawnSync('du', args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).stdout.trimEnd();
}

interface Usage {
  path: string;
  allocated: number;
  apparent: number;
  files: number;
  directories: number;
  children: Array<{ name: string; path: string; allocated: number; children: unknown[] }>;
  directoriesHoldingMost: Array<{ path: string; allocated: number; apparent: number; files: number }>;
  largestFiles: Array<{ path: string; allocated: number; apparent: number }>;
  errors: { count: number; first: Array<{ path: string; code: string }> };
  unfinished: { count: number; first: string[] };
  complete: boolean;
}

describe.skipIf(announceSkip('diskprobe du --json and --top', gnuDuSkipReason))('diskprobe du --json and --top', () => {
  let root = '';
  let tree = '';

  beforeAll(() => {
    root = tempDir('diskprobe-du-json-');
    tree = join(root, 'tree');
    for (const dir of ['a', 'b', 'b/c', 'd', 'e']) mkdirSync(join(tree, dir), { recursive: true });
    writeFileSync(join(tree, 'a/big'), Buffer.alloc(3 << 20, 1));
    writeFileSync(join(tree, 'b/c/mid'), Buffer.alloc(2 << 20, 1));
    writeFileSync(join(tree, 'b/small'), Buffer.alloc(1000, 1));
    // Many small files: the largest directory by its own files, with no large file in it.
    for (let i = 0; i < 400; i++) writeFileSync(join(tree, 'd', `f${i}`), Buffer.alloc(10_000, 1));
    writeFileSync(join(tree, 'top'), Buffer.alloc(1 << 20, 1));
    // Large by st_size, nothing on disk: first by apparent size, last by space used.
    writeFileSync(join(tree, 'e/sparse'), '');
    truncateSync(join(tree, 'e/sparse'), 100 << 20);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("gives directoryUsage()'s answer for each operand, with GNU du's byte counts and exact integers", async () => {
    const result = runCli(['du', '--json', tree, join(tree, 'b')]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const answers = JSON.parse(result.stdout) as Usage[];
    expect(answers.map((usage) => usage.path)).toEqual([tree, join(tree, 'b')]);
    const [usage] = answers;
    expect(usage).toMatchObject({
      allocated: Number(gnuBytes(['-s', '-B1', tree])),
      apparent: Number(gnuBytes(['-s', '-b', tree])),
      files: 405,
      directories: 6,
      complete: true,
      unfinished: { count: 0, first: [] },
      errors: { count: 0, first: [] },
    });
    // What the library answers, but for when and how long.
    const library = (await directoryUsage(tree, { fresh: true })) as unknown as Record<string, unknown>;
    const { scannedAt, elapsedMs, ageMs, complete, unfinished, ...rest } = library;
    expect(usage).toMatchObject(rest);
    // Children, largest first, each as GNU du -d 1 -B1 counts it.
    for (const child of usage!.children) expect(BigInt(child.allocated)).toBe(gnuBytes(['-s', '-B1', child.path]));
    expect(usage!.children.map((child) => child.name)).toEqual(['d', 'a', 'b', 'e']);
    // Integers as digits: no quotes, no exponent.
    expect(result.stdout).toMatch(new RegExp(`"allocated": ${usage!.allocated},`));
  });

  it('takes -d as the depth of children, -s as none, --top as the lists, --apparent-size for ranking', () => {
    const deep = JSON.parse(runCli(['du', '--json', '-d', '2', tree]).stdout) as Usage[];
    expect(deep[0]!.children.find((child) => child.name === 'b')!.children).toHaveLength(1);
    const summary = JSON.parse(runCli(['du', '--json', '-s', tree]).stdout) as Usage[];
    expect(summary[0]!.children).toEqual([]);
    const top = JSON.parse(runCli(['du', '--json', '--top', '2', tree]).stdout) as Usage[];
    expect(top[0]!.largestFiles.map((file) => file.path)).toEqual([join(tree, 'a/big'), join(tree, 'b/c/mid')]);
    expect(top[0]!.directoriesHoldingMost.map((dir) => dir.path)).toEqual([join(tree, 'd'), join(tree, 'a')]);
    expect(top[0]).not.toHaveProperty('largestDirectories');
    const apparent = JSON.parse(runCli(['du', '--json', '--apparent-size', tree]).stdout) as Usage[];
    expect(apparent[0]!.children.map((child) => child.name)).toEqual(['e', 'd', 'a', 'b']);
  });

  it('gives an operand it cannot read an answer with its error, says so as du does, exits 1', () => {
    const missing = join(root, 'nosuch');
    const result = runCli(['du', '--json', missing, tree]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`diskprobe: cannot access '${missing}': No such file or directory\n`);
    const [failed, fine] = JSON.parse(result.stdout) as Usage[];
    expect(failed).toMatchObject({ path: missing, allocated: 0, complete: false, errors: { count: 1, first: [{ path: missing, code: 'ENOENT' }] } });
    expect(fine!.complete).toBe(true);
  });

  it('lists the largest subtrees (du -d 1) as children and the directories holding the most (du -S) apart', () => {
    const [usage] = JSON.parse(runCli(['du', '--json', '--top', '3', tree]).stdout) as Usage[];
    // b is the third largest subtree for b/c's file, but b/c, not b, is the third holding the most.
    expect(usage!.children.slice(0, 3).map((child) => child.path)).toEqual(['d', 'a', 'b'].map((dir) => join(tree, dir)));
    expect(usage!.directoriesHoldingMost.map((dir) => dir.path)).toEqual(['d', 'a', 'b/c'].map((dir) => join(tree, dir)));
    for (const dir of usage!.directoriesHoldingMost) expect(BigInt(dir.allocated), dir.path).toBe(gnuBytes(['-S', '-s', '-B1', dir.path]));
  });

  it("prints each operand's size, then the directories holding the most, by their own files (du -S), and its largest files, with their share", () => {
    const ran = spawnSync(process.execPath, [cliPath, 'du', '--top', '3', 'tree'], { cwd: root, encoding: 'utf8' });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    const lines = ran.stdout.trimEnd().split('\n');
    const total = gnuBytes(['-s', '-B1', tree]);
    // The first line is du -sh's, for the operand as given.
    expect(lines[0]).toBe(spawnSync('du', ['-sh', 'tree'], { cwd: root, encoding: 'utf8' }).stdout.trimEnd());
    expect(lines[1]).toBe('directories holding the most (by the files directly in them):');
    const row = (bytes: bigint, human: string, path: string) => ({ text: human, share: `${(bytes * 100n) / total}%`, path });
    const parse = (line: string) => {
      const match = /^ {2} *(\S+) +(\S+) {2}(.*)$/.exec(line)!;
      return { text: match[1], share: match[2], path: match[3] };
    };
    // Each directory's own files: what GNU du -S counts for it.
    const own = (dir: string) => row(gnuBytes(['-S', '-s', '-B1', join(root, dir)]), gnuLine(['-S', '-sh', join(root, dir)]).split('\t')[0]!, dir);
    expect(lines.slice(2, 5).map(parse)).toEqual([own('tree/d'), own('tree/a'), own('tree/b/c')]);
    expect(lines[5]).toBe('largest files:');
    const file = (path: string) => row(gnuBytes(['-B1', join(root, path)]), gnuLine(['-h', join(root, path)]).split('\t')[0]!, path);
    expect(lines.slice(6).map(parse)).toEqual([file('tree/a/big'), file('tree/b/c/mid'), file('tree/top')]);
  });

  it('separates the operands with a blank line, adds -c, and prints sizes as -B, -k, --si ask', () => {
    const ran = spawnSync(process.execPath, [cliPath, 'du', '--top', '1', '-k', '-c', 'tree/a', 'tree/b'], { cwd: root, encoding: 'utf8' });
    expect(ran.status).toBe(0);
    const blocks = ran.stdout.split('\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]!.split('\n')[0]).toBe(gnuLine(['-sk', join(root, 'tree/a')]).replace(`${root}/`, ''));
    expect(blocks[1]!.trimEnd().split('\n').at(-1)).toBe(
      gnuLine(['-skc', join(root, 'tree/a'), join(root, 'tree/b')])
        .split('\n')
        .at(-1),
    );
  });
});
