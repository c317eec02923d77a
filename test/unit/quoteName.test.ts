// File names in diskprobe df's error lines, quoted as GNU df quotes them.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { quoteName } from '../../dist/format/quoteName.js';
import { announceSkip, gnuDfSkipReason } from '../helpers/system.js';

const NAMES = [
  '/plain/path',
  '/a,b%@+',
  '/a#b',
  '/~x',
  '/a]b',
  '/a}b',
  '/{',
  '/ü ber',
  '',
  '#x',
  '~x',
  '{',
  '/a b',
  '/a:b',
  '/a=b',
  '/a!b',
  '/a^b',
  '/no?such',
  '/no*such',
  '/q"x',
  '/a\\b',
  '/a`b',
  "/it's",
  "/it's here",
  "/it's$x",
  '/no\nsuch',
  '\x1b[31m',
  '/tab\there',
  'a\n\tb',
  '/\x7f',
  '/\u0085x',
];

describe('quoteName', () => {
  it('leaves plain names alone and quotes the rest, control characters escaped', () => {
    expect(quoteName('/data/disk 1')).toBe("'/data/disk 1'");
    expect(quoteName('/var/log')).toBe('/var/log');
    expect(quoteName('')).toBe("''");
    expect(quoteName('/no\nsuch')).toBe("'/no'$'\\n''such'");
    expect(quoteName('\x1b[31mRED')).toBe("''$'\\033''[31mRED'");
    expect(quoteName("/it's")).toBe('"/it\'s"');
    expect(quoteName("/it's$x")).toBe("'/it'\\''s$x'");
    for (const name of NAMES) expect(quoteName(name)).not.toMatch(/\p{Cc}/u);
  });

  it.skipIf(announceSkip('quoteName vs GNU df', gnuDfSkipReason))('quotes each name exactly as GNU df does in its "No such file or directory" line', () => {
    for (const name of NAMES) {
      const result = spawnSync('df', ['--', name], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
      const quoted = result.stderr
        .split('\n')[0]!
        .replace(/^df: /, '')
        .replace(/: No such file or directory$/, '');
      expect(quoteName(name), JSON.stringify(name)).toBe(quoted);
    }
  });
});
