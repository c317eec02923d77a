// A command line GNU du refuses, `diskprobe du` refuses with the same words
// (diskprobe's name for du's) and the same exit status, 1: getopt's
// messages, each one du meets before it stops, du's own (-d's and -B's
// values, -s with -a or with -d), in the C locale's quotation marks and in
// UTF-8's. GNU du is the oracle: both run on the same arguments. Then what
// diskprobe refuses of its own, and du's options it does not offer.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, tempDir } from '../../helpers/system.js';
import { cliPath } from '../cliProcess.js';

const gnuDuSkipReason =
  spawnSync('du', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') === true ? undefined : 'GNU du (coreutils) is not installed';

const BAD: string[][] = [
  ['-d'],
  ['-d', 'x'],
  ['-d', '-1'],
  ['-d', ''],
  ['-d', '1x'],
  ['-d', '1 '],
  ['-d', '1K'],
  ['-d', '99999999999999999999'],
  ['--max-depth=\u00e9'],
  ['-d', "a'b"],
  ['-d', 'a\nb'],
  ['-d', 'a\\b'],
  ['-B', 'x'],
  ['-B', '0'],
  ['-B', ''],
  ['-B', '1Q'],
  ['-B', '-1'],
  ['-B', '99999999999999999999'],
  ['--block-size=x'],
  ['--block=1Q'],
  ['-B'],
  ['-k', '-Bx'],
  ['-a', '-s'],
  ['-sa'],
  ['--all', '--summarize'],
  ['-s', '-d', '1'],
  ['-s', '--max-depth=0x10'],
  ['-d', '2', '-s'],
  ['--foo'],
  ['--foo=bar'],
  ['-z'],
  ['-az'],
  ['-hz', '-y'],
  ['--t'],
  ['--ti'],
  ['--s'],
  ['--h'],
  ['--de'],
  ['--ex'],
  ['--b'],
  ['--all=yes'],
  ['--total=1'],
  ['--max'],
  ['--foo', '-d', 'x', '--bar'],
  ['-d', 'x', '-B', 'y'],
  ['-B', 'y', '--foo'],
  ['--foo', '-B', 'y'],
  ['--foo', '-a', '-s'],
  ['-d', 'x', '-a', '-s'],
  ['-sd', '3', '--foo'],
];

function run(command: string, args: string[], env: Record<string, string>) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(announceSkip('diskprobe du refusing what GNU du refuses', gnuDuSkipReason))('diskprobe du refuses bad command lines as GNU du does', () => {
  let dir = '';
  beforeAll(() => {
    dir = tempDir('diskprobe-du-errors-');
    writeFileSync(join(dir, 'file'), 'x'.repeat(3000));
  });

  it.each(BAD.flatMap((args) => ['C', 'C.UTF-8'].map((locale) => [args, locale] as const)))('%j in LC_ALL=%s', (args, locale) => {
    const gnu = run('du', [...args, dir], { LC_ALL: locale });
    const ours = run(process.execPath, [cliPath, 'du', ...args, dir], { LC_ALL: locale });
    expect(gnu.status).toBe(1);
    expect(ours).toEqual({
      status: gnu.status,
      stdout: '',
      stderr: gnu.stderr.replace(/^du: /gm, 'diskprobe: ').replace("Try 'du --help'", "Try 'diskprobe du --help'"),
    });
  });

  it.each([[['-s', '-d', '0']], [['--max-depth=0', '--summarize', '-c']], [['', '-s']], [['-s', '', '', '-c']]])(
    'says and does what GNU du does for %j: a warning or a complaint, and the rest',
    (args) => {
      const gnu = run('du', [...args, dir], { LC_ALL: 'C' });
      const ours = run(process.execPath, [cliPath, 'du', ...args, dir], { LC_ALL: 'C' });
      expect(gnu.stderr).not.toBe('');
      expect(ours).toEqual({ ...gnu, stderr: gnu.stderr.replace(/^du: /gm, 'diskprobe: ') });
    },
  );

  it.each([
    [['--top', '0'], "option '--top' needs a whole number from 1 to 1000, not '0'"],
    [['--top', 'x'], "option '--top' needs a whole number from 1 to 1000, not 'x'"],
    [['--threads', '65'], "option '--threads' needs a whole number from 1 to 64, not '65'"],
    [['--timeout', 'soon'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not 'soon'"],
    [['--json=1'], "option '--json' doesn't allow an argument"],
    [['--top'], "option '--top' requires an argument"],
  ])("refuses its own %j in du's way", (args, message) => {
    expect(run(process.execPath, [cliPath, 'du', dir, ...args], {})).toEqual({
      status: 1,
      stdout: '',
      stderr: `diskprobe: ${message}\nTry 'diskprobe du --help' for more information.\n`,
    });
  });

  it.each([
    ['-L'],
    ['--dereference'],
    ['-H'],
    ['-D'],
    ['-l'],
    ['-S'],
    ['--inodes'],
    ['--time'],
    ['--time=ctime'],
    ['--exclude=*.o'],
    ['-X', 'list'],
    ['-t', '1M'],
    ['--files0-from=-'],
  ])("refuses du's %s, which it does not offer, by name", (...args) => {
    const result = run(process.execPath, [cliPath, 'du', ...args, dir], {});
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^diskprobe: option '-(-[a-z0-9-]+|[A-Za-z])' is not supported by diskprobe du\nTry 'diskprobe du --help' for more information\.\n$/,
    );
  });

  it('takes -P, --no-dereference, as du does: never following symlinks is its only way', () => {
    const gnu = run('du', ['-P', '-s', dir], { LC_ALL: 'C' });
    expect(gnu.status).toBe(0);
    expect(run(process.execPath, [cliPath, 'du', '-P', '-s', dir], { LC_ALL: 'C' })).toEqual(gnu);
    expect(run(process.execPath, [cliPath, 'du', '--no-deref', '-s', dir], { LC_ALL: 'C' })).toEqual(gnu);
  });

  it("keeps every abbreviation du takes as du's: its own long options are spelled in full there", () => {
    // --th is du's --threshold (refused), not --threads; --to is du's --total; --j is --json, which du has no option for.
    expect(run(process.execPath, [cliPath, 'du', '--th=2', dir], {}).stderr).toContain("option '--threshold' is not supported");
    expect(run(process.execPath, [cliPath, 'du', '--to', dir], {}).stdout).toMatch(/\ttotal\n$/);
    expect(JSON.parse(run(process.execPath, [cliPath, 'du', '--j', dir], {}).stdout)).toHaveLength(1);
  });
});
