// `diskprobe du ARGS` against `du ARGS`, byte for byte (stdout as raw bytes,
// stderr with diskprobe's name for du's, the exit status), on real trees: on
// a tmpfs and on a loop-mounted ext4 image, with hard links within and
// across directories, sparse and empty files, symlinks to ".", to "/" and to
// nowhere, names with newlines, tabs and invalid UTF-8, 5,000 children, a
// tmpfs inside the tree (with and without -x), a bind-mount cycle, a chain
// 30,000 bytes deep, and directories an unprivileged user cannot read. Every
// mount is made in a private mount namespace (duInPrivateMounts.mjs).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, has, rootSkipReason, tempDir } from '../../helpers/system.js';
import { cliPath } from '../cliProcess.js';

const driver = fileURLToPath(new URL('./duInPrivateMounts.mjs', import.meta.url));

interface Case {
  readonly args: string[];
  /** diskprobe's own options, given to it alone. */
  readonly own?: string[];
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  readonly user?: string;
}

interface Ran {
  readonly status: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

const gnuDuSkipReason =
  spawnSync('du', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') === true ? undefined : 'GNU du (coreutils) is not installed';
/** The tools the trees and the unprivileged runs need, beyond root's mounts. */
const missingTool = ['unshare', 'mkfs.ext4', 'setpriv'].find((tool) => !has(tool));
const skipReason = rootSkipReason ?? gnuDuSkipReason ?? (missingTool && `${missingTool} is missing (util-linux, e2fsprogs)`);

// Each alone, and in the combinations scripts use.
const FLAGS: string[][] = [
  [],
  ['-s', '-B1'],
  ['-s', '-b'],
  ['-d', '1'],
  ['-d', '2'],
  ['-a'],
  ['-x'],
  ['-k'],
  ['-c'],
  ['-h'],
  ['--si'],
  ['-m'],
  ['-0'],
  ['-a', '-0'],
  ['--apparent-size'],
  ['-B', '1K'],
  ['-BKB'],
  ['-B1000'],
  ['-B', '3'],
  ['-BM', '-a'],
  ['--block-size=human-readable'],
  ['-Bsi'],
  ["--block-size='1k"],
  ['-B', '0x200'],
  ['-ax'],
  ['-ax', '-d', '2'],
  ['-sx'],
  ['-shc'],
  ['-b', '-a'],
  ['--apparent-size', '-h', '-a'],
  ['-d', '0'],
  ['-s', '-d', '0'],
  ['-a', '--max-depth=1', '--si'],
  ['-k', '-x', '-c'],
  ['-xh'],
  ['-a0B1'],
  ['--max-d=3', '--bytes'],
  ['--summarize', '--total', '--one-file-system', '--human-readable'],
  ['-P', '-a'],
];

/** The flags above on `tree`, named absolutely, relatively, with trailing slashes, and beside other operands. */
function treeCases(root: string): Case[] {
  const tree = join(root, 'tree');
  const cases: Case[] = FLAGS.map((args) => ({ args: [...args, tree] }));
  for (const args of [[], ['-a'], ['-s']]) {
    cases.push({ args: [...args, 'tree/'], cwd: root });
    cases.push({ args: [...args, 'tree//'], cwd: root });
    cases.push({ args: [...args, './tree///'], cwd: root });
    cases.push({ args: [...args], cwd: tree });
    cases.push({ args: [...args, '.', '-c'], cwd: join(tree, 'many') });
  }
  cases.push(
    { args: ['c', 'd', '-c'], cwd: tree },
    { args: ['-a', 'd/', 'c', '--total', 'links'], cwd: tree },
    { args: ['-s', 'many', 'links', 'nosuch', 'c/sparse', 'd/to-root', 'd/to-dot/'], cwd: tree },
    { args: ['-ab', 'd/to-dot', 'd/dangling', 'd/dangling/', 'c/small/'], cwd: tree },
    { args: ['-h', 'mnt/', 'a'], cwd: tree },
    { args: ['-x', 'mnt'], cwd: tree },
    { args: ['-a', 'sub/loop/c'], cwd: tree },
    { args: ['-d', '1', '..'], cwd: join(tree, 'a') },
    { args: ['-a', 'in/..'], cwd: join(tree, 'a') },
    // From inside the cycle's directory: the tree comes round once through the bind mount, then stops.
    { args: ['-a', 'sub'], cwd: tree },
    // diskprobe's own options change nothing of this.
    { args: ['-a', tree], own: ['--threads', '1'] },
    { args: ['-a', tree], own: ['--threads=64', '--timeout', '600000'] },
  );
  return cases;
}

/** The block size variables, and POSIXLY_CORRECT's 512-byte blocks and operands that end the options. */
function environmentCases(tree: string): Case[] {
  return [
    { args: [tree], env: { DU_BLOCK_SIZE: '1M' } },
    { args: ['-a', tree], env: { DU_BLOCK_SIZE: 'human-readable' } },
    { args: [tree], env: { BLOCK_SIZE: 'si' } },
    { args: [tree], env: { BLOCKSIZE: '512' } },
    { args: [tree], env: { DU_BLOCK_SIZE: "'1k", BLOCK_SIZE: '1M' } },
    { args: ['-k', tree], env: { DU_BLOCK_SIZE: '1M' } },
    { args: [tree], env: { DU_BLOCK_SIZE: 'x' } },
    { args: [tree, '-s'], env: { POSIXLY_CORRECT: '1' } },
    { args: [tree], env: { POSIXLY_CORRECT: '1', DU_BLOCK_SIZE: '2K' } },
    { args: ['-a', tree], env: { LC_ALL: 'C.UTF-8' } },
    // The fs.statfs fallback's walk, in its helper process, says the same.
    { args: ['-a', tree], env: { DISKPROBE_BACKEND: 'statfs' } },
    { args: ['-s', '-x', tree], env: { DISKPROBE_BACKEND: 'statfs' } },
  ];
}

/** As nobody: directories it may not read or search are complained about as du does, in both locales. */
function unprivilegedCases(tree: string): Case[] {
  return [
    { args: [tree], user: 'nobody' },
    { args: ['-a', tree], user: 'nobody' },
    { args: ['-s', tree], user: 'nobody' },
    { args: ['-a', tree], user: 'nobody', env: { LC_ALL: 'C.UTF-8' } },
    { args: [join(tree, 'locked'), join(tree, 'listonly'), join(tree, 'searchonly'), join(tree, 'locked/secret')], user: 'nobody' },
  ];
}

function deepCases(root: string): Case[] {
  return [{ args: [join(root, 'deep')] }, { args: ['-a', join(root, 'deep')] }, { args: ['-sb', 'deep'], cwd: root }];
}

/** 12,000 entries: in inode order on ext4 (fts sorts past 10,000 entries), in listing order on tmpfs. */
function largeCases(tmpfs: string, ext4: string): Case[] {
  return [tmpfs, ext4].flatMap((root) => [{ args: ['-a', join(root, 'large')] }, { args: [join(root, 'large')] }, { args: ['-ab', 'large'], cwd: root }]);
}

/** A directory reached twice, not in a cycle: with a second operand du counts it once (it hashes every directory), as diskprobe always does. */
function aliasedCases(root: string): Case[] {
  return [
    { args: ['-a', 'aliased', 'empty'], cwd: root },
    { args: ['aliased', 'empty', '-c'], cwd: root },
    { args: ['-s', 'aliased/y', 'aliased/z'], cwd: root },
  ];
}

/** Where diskprobe differs from du on purpose (docs: differences): one operand reaching a directory twice, an operand repeated, one inside another. */
const DIFFERENT: string[][] = [
  ['-a', 'aliased'],
  ['-s', 'aliased/z', 'aliased/z'],
  ['-s', 'aliased', 'aliased/x'],
];

const label = (test: Case): string =>
  [
    test.user ? `(as ${test.user})` : '',
    ...Object.entries(test.env ?? {}).map(([name, value]) => `${name}=${value}`),
    ...[...(test.own ?? []), ...test.args].map((arg) => (/^[\w@%+=:,./-]*$/.test(arg) && arg !== '' ? arg : JSON.stringify(arg))),
    test.cwd ? `(in ${test.cwd})` : '',
  ]
    .filter(Boolean)
    .join(' ');

describe.skipIf(announceSkip('diskprobe du against GNU du', skipReason))('diskprobe du matches GNU du byte for byte', () => {
  let base = '';
  let cases: Case[] = [];
  let results: Array<{ gnu: Ran; ours: Ran }> = [];

  beforeAll(() => {
    base = tempDir('diskprobe-du-');
    // Searchable by nobody, for the unprivileged runs.
    chmodSync(base, 0o755);
    mkdirSync(join(base, 'tmpfs'));
    mkdirSync(join(base, 'ext4'));
    const tmpfs = join(base, 'tmpfs');
    const ext4 = join(base, 'ext4');
    cases = [
      ...treeCases(tmpfs),
      ...treeCases(ext4),
      ...environmentCases(join(tmpfs, 'tree')),
      ...unprivilegedCases(join(tmpfs, 'tree')),
      ...unprivilegedCases(join(ext4, 'tree')),
      ...deepCases(tmpfs),
      ...aliasedCases(tmpfs),
      ...largeCases(tmpfs, ext4),
      // Documented differences, checked on their own below (not byte for byte).
      ...DIFFERENT.map((args) => ({ args, cwd: tmpfs })),
    ];
    const ran = spawnSync('unshare', ['-m', '--propagation', 'private', process.execPath, driver], {
      input: JSON.stringify({ cli: cliPath, base, cases }),
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      timeout: 600_000,
    });
    if (ran.status !== 0) throw new Error(`the driver failed (${ran.status ?? ran.signal}): ${ran.stderr}`);
    results = JSON.parse(ran.stdout) as Array<{ gnu: Ran; ours: Ran }>;
  }, 600_000);
  // The trees lived in the namespace; what is left here is the ext4 image and empty mount points.
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('ran every case', () => {
    expect(results).toHaveLength(cases.length);
    expect(cases.length).toBeGreaterThan(150);
  });

  it('prints what GNU du prints, says what it says, and exits as it does, for every case', () => {
    const failures: string[] = [];
    results.slice(0, cases.length - DIFFERENT.length).forEach(({ gnu, ours }, index) => {
      const name = label(cases[index]!);
      // Sanity: GNU du itself did not die.
      expect(gnu.signal, name).toBeNull();
      const expected = {
        status: gnu.status,
        stdout: Buffer.from(gnu.stdout, 'base64').toString('latin1'),
        stderr: gnu.stderr.replace(/^du: /gm, 'diskprobe: '),
      };
      const actual = { status: ours.status, stdout: Buffer.from(ours.stdout, 'base64').toString('latin1'), stderr: ours.stderr };
      if (JSON.stringify(expected) !== JSON.stringify(actual)) {
        failures.push(name);
        // The first few in full, for the diff.
        if (failures.length <= 3) expect.soft(actual, name).toEqual(expected);
      }
    });
    expect(failures).toEqual([]);
  });

  it('counts a directory reached twice once with one operand, where du counts it twice (docs: differences)', () => {
    const [single, repeated, nested] = results.slice(cases.length - DIFFERENT.length).map(({ gnu, ours }) => ({
      gnu: Buffer.from(gnu.stdout, 'base64').toString('latin1'),
      ours: Buffer.from(ours.stdout, 'base64').toString('latin1'),
    }));
    // The bind mount aliased/y shows aliased/x again: du with one operand prints and counts both; diskprobe, the first met only,
    // which is what du says with a second operand (the line of that operand aside).
    const withSecond = Buffer.from(results[cases.findIndex((test) => test.args.join(' ') === '-a aliased empty')]!.gnu.stdout, 'base64').toString('latin1');
    expect(single!.ours).toBe(withSecond.replace(/[^\n]*\tempty\n$/, ''));
    expect(single!.gnu).not.toBe(single!.ours);
    // An operand repeated, or inside another: du counts what it has met once over all operands; diskprobe walks each on its own.
    expect(repeated!.ours.split('\n').filter((line) => line.endsWith('\taliased/z'))).toHaveLength(2);
    expect(repeated!.gnu.split('\n').filter((line) => line.endsWith('\taliased/z'))).toHaveLength(1);
    expect(nested!.ours.split('\n').filter(Boolean)).toHaveLength(2);
    expect(nested!.gnu.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('covers output past a few lines: the trees are not trivially small', () => {
    const lines = Buffer.from(results[cases.findIndex((test) => test.args[0] === '-a')]!.gnu.stdout, 'base64')
      .toString('latin1')
      .split('\n');
    expect(lines.length).toBeGreaterThan(5000);
  });
});
