// File names quoted from their raw bytes as gnulib's quotearg quotes them in
// its shell-escape styles, for du's messages (quoteaf) and df's (quotef).
// GNU ls shares quotearg: `ls --quoting-style=shell-escape-always` is the
// oracle, in the C locale and in a UTF-8 one, on names no argument could
// carry (invalid UTF-8), each listed from a directory of its own.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

import { shellQuote } from '../../dist/format/shellQuote.js';
import { announceSkip, tempDir } from '../helpers/system.js';

const NAMES: Buffer[] = [
  'plain',
  'sp ace',
  "it's",
  "it's here",
  "it's (x)",
  "it's$x",
  "'",
  "''",
  '"',
  'a"b\'c',
  "a'b\nc",
  'a\nb',
  '\x1b[31mRED',
  'tab\there',
  'end\t',
  '\x7f',
  '#x',
  'x#',
  '~',
  '~x',
  'x~',
  '{',
  '}',
  'a{',
  '{}',
  'a:b',
  ':',
  '$x',
  '!',
  'a\\b',
  '?',
  '*',
  '=',
  '-rf',
  '@x',
  '%+,-.09:AZ]_az',
  '[',
  '^',
  '|',
  '&',
  ';',
  '<>',
  '()',
  '`',
  'caf\u00e9',
  '\u0085x',
  'a\u2028b',
  'a\u200bb',
  'emoji\u{1f600}',
  'it\u2019s',
].map((name) => Buffer.from(name, 'utf8'));
NAMES.push(
  Buffer.from([0x62, 0xff, 0xfe, 0x61]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0x27, 0xe9]),
  Buffer.from([0x61, 0xe2, 0x82]),
  Buffer.from([0xed, 0xa0, 0x80]),
);

const gnuLsSkipReason =
  spawnSync('ls', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') === true ? undefined : 'GNU ls (coreutils) is not installed';

describe.skipIf(announceSkip('shellQuote against GNU ls', gnuLsSkipReason))('shellQuote', () => {
  it.each([
    ['C', false],
    ['C.UTF-8', true],
  ])('quotes every name as ls --quoting-style=shell-escape(-always) does in LC_ALL=%s', (locale, utf8) => {
    const root = tempDir('diskprobe-quote-');
    NAMES.forEach((name, index) => {
      mkdirSync(join(root, String(index)));
      writeFileSync(Buffer.concat([Buffer.from(join(root, String(index), '/')), name]), '');
    });
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    for (const [style, always] of [
      ['shell-escape-always', true],
      ['shell-escape', false],
    ] as const) {
      NAMES.forEach((name, index) => {
        const listed = spawnSync('ls', [`--quoting-style=${style}`, join(root, String(index))], { env: { ...process.env, LC_ALL: locale } });
        const expected = listed.stdout.toString('utf8').replace(/\n$/, '');
        expect(shellQuote(name, { always, colon: false, utf8 }), `${style} ${JSON.stringify(name.toString('latin1'))}`).toBe(expected);
      });
    }
  });

  it('quotes a colon only where asked (quotef): as df does', () => {
    expect(shellQuote(Buffer.from('/a:b'), { always: false, colon: true, utf8: true })).toBe("'/a:b'");
    expect(shellQuote(Buffer.from('/a:b'), { always: false, colon: false, utf8: true })).toBe('/a:b');
  });
});
