// A command line GNU df refuses, `diskprobe df` refuses with the same words
// (diskprobe's name for df's) and the same exit status, 1: getopt's messages,
// df's own (-B's values, --output's fields, options that exclude each other,
// a type both selected and excluded), in the C locale's quotation marks and
// in UTF-8's. GNU df is the oracle: both run on the same arguments.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { announceSkip, gnuDfSkipReason } from '../../helpers/system.js';
import { cliPath } from '../cliProcess.js';

const BAD: string[][] = [
  ['-B', 'x'],
  ['-B', '0'],
  ['-B', ''],
  ['-B', '0x'],
  ['-B', '09'],
  ['-B', '1x'],
  ['-Be'],
  ['-B', '-1'],
  ['-B', "'"],
  ['-B', '99999999999999999999'],
  ['-B', '16E'],
  ['-B', '1Y'],
  ['--block-size=x'],
  ['--block=1Q'],
  ['-k', '-Bx'],
  ['-B'],
  ['--block-size'],
  ['--output=foo'],
  ['--output=size,size'],
  ['--output=size', '--output=used,size'],
  ['--output='],
  ['--output=size,'],
  ["--output=a'b"],
  ['--output=a\\b'],
  ['--output=a\nb'],
  ['--output=\u00e9'],
  ['--output=size', '-P'],
  ['-P', '--output=size'],
  ['-i', '--output'],
  ['--output', '-i'],
  ['-T', '--output'],
  ['--output', '-T'],
  ['-Pi', '--output'],
  ['-t', 'tmpfs', '-x', 'tmpfs'],
  ['-t', 'a', '-t', 'b', '-x', 'a', '-x', 'b', '-x', 'a'],
  ['-t', "a'b", '-x', "a'b"],
  ['--foo'],
  ['--foo=bar'],
  ['-z'],
  ['-hz'],
  ['-t'],
  ['--total=1'],
  ['--all=yes'],
  ['--s'],
  ['--h'],
  ['--s=1'],
  ['--sync=1'],
  ['-B', 'x', '--foo'],
  ['--foo', '-B', 'x'],
];

function run(command: string, args: string[], locale: string) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, LC_ALL: locale } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(announceSkip('diskprobe df refusing what GNU df refuses', gnuDfSkipReason))('diskprobe df refuses bad command lines as GNU df does', () => {
  it.each(BAD.flatMap((args) => ['C', 'C.UTF-8'].map((locale) => [args, locale] as const)))('%j in LC_ALL=%s', (args, locale) => {
    const gnu = run('df', [...args, '/'], locale);
    const ours = run(process.execPath, [cliPath, 'df', ...args, '/'], locale);
    expect(gnu.status).toBe(1);
    expect(ours).toEqual({
      status: gnu.status,
      stdout: '',
      stderr: gnu.stderr.replace(/^df: /gm, 'diskprobe: ').replace("Try 'df --help'", "Try 'diskprobe df --help'"),
    });
  });

  it("refuses diskprobe's own options as getopt would", () => {
    expect(run(process.execPath, [cliPath, 'df', '--json=1', '/'], 'C')).toEqual({
      status: 1,
      stdout: '',
      stderr: "diskprobe: option '--json' doesn't allow an argument\nTry 'diskprobe df --help' for more information.\n",
    });
  });

  it("names diskprobe's own long options too when an abbreviation is ambiguous", () => {
    expect(run(process.execPath, [cliPath, 'df', '--t', '/'], 'C')).toEqual({
      status: 1,
      stdout: '',
      stderr: "diskprobe: option '--t' is ambiguous; possibilities: '--total' '--type' '--timeout'\nTry 'diskprobe df --help' for more information.\n",
    });
  });

  it('says "no file systems processed", status 1, when the filters leave nothing, as df does', () => {
    const gnu = run('df', ['-t', 'nosuchtype', '/'], 'C');
    const ours = run(process.execPath, [cliPath, 'df', '-t', 'nosuchtype', '/'], 'C');
    expect(ours).toEqual({ status: gnu.status, stdout: gnu.stdout, stderr: gnu.stderr.replace(/^df: /gm, 'diskprobe: ') });
    expect(ours.status).toBe(1);
  });
});
