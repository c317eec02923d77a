// df -h's sizes: gnulib's human_readable() with -h's options, rounding up.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { humanSize } from '../../dist/format/humanSize.js';
import { announceSkip } from '../helpers/system.js';

const K = 1024n;

describe('humanSize', () => {
  // Expected strings worked out from human.c's rules (powers of 1024, the
  // ceiling of the shown digit, one decimal below 10), each confirmed with
  // GNU du -h --apparent-size, which formats with the same call and options.
  it.each([
    [0n, '0'],
    [1n, '1'],
    [1023n, '1023'],
    [1024n, '1.0K'], // exact: still one decimal below 10
    [1025n, '1.1K'], // a byte over rounds the tenth up
    [1126n, '1.1K'],
    [1127n, '1.2K'],
    [1536n, '1.5K'],
    [1537n, '1.6K'],
    [10239n, '10K'], // 9.999K rounds up to 10 and loses its decimal
    [10240n, '10K'],
    [10241n, '11K'], // from 10 up, whole units, rounded up
    [1023n * K, '1023K'],
    [1023n * K + 1n, '1.0M'], // 1023.001K rounds up to 1024K, shown as 1.0M
    [K * K - 1n, '1.0M'],
    [K * K, '1.0M'],
    [10630044057n, '9.9G'], // 1024^3 × 9.9, rounded down to a whole byte
    [10630044058n, '10G'],
    [10683731148n, '10G'], // 1024^3 × 9.95
    [2n ** 53n, '8.0P'],
    [2n ** 53n + 1n, '8.1P'],
    [2n ** 63n - 1n, '8.0E'],
    [2n ** 64n - 1n, '16E'],
  ])('%s bytes → %s', (value, expected) => {
    expect(humanSize(value)).toBe(expected);
  });

  it('names every power of 1024 up to Y, then lets the number grow', () => {
    const letters = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    for (const [index, letter] of letters.entries()) expect(humanSize(K ** BigInt(index + 1))).toBe(`1.0${letter}`);
    expect(humanSize(K ** 9n)).toBe('1024Y');
  });

  it('takes numbers as well as bigints, and refuses what is not a count', () => {
    expect(humanSize(10241)).toBe('11K');
    expect(humanSize(Number.MAX_SAFE_INTEGER)).toBe(humanSize(2n ** 53n - 1n));
    expect(() => humanSize(-1)).toThrow(RangeError);
    expect(() => humanSize(1.5)).toThrow(RangeError);
    expect(() => humanSize(Number.NaN)).toThrow(RangeError);
    expect(() => humanSize(-1n)).toThrow(RangeError);
  });
});

// GNU du as the oracle for thousands of values: sparse files cost nothing,
// and du -h prints their sizes with df -h's human_readable() options.
const gnuDu = spawnSync('du', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils') === true;
const skipDu = announceSkip('humanSize against GNU du', gnuDu ? undefined : 'GNU du is not installed');

describe.skipIf(skipDu)('humanSize against GNU du -h --apparent-size', () => {
  // tmpfs takes sparse files up to 2^63 bytes; elsewhere the larger sizes are skipped.
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'diskprobe-human-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function sizes(): bigint[] {
    const values = new Set<bigint>();
    for (let power = 0n; power <= 6n; power++) {
      const unit = K ** power;
      for (const mantissa of [1n, 9n, 10n, 99n, 100n, 1023n, 1024n]) {
        for (const nudge of [-1n, 0n, 1n]) if (mantissa * unit + nudge >= 0n) values.add(mantissa * unit + nudge);
      }
      for (const thousandths of [9949n, 9950n, 9951n, 9999n]) values.add((unit * thousandths) / 1000n);
    }
    // A fixed pseudo-random walk over every magnitude below 2^63.
    let state = 0x2545f4914f6cdd1dn;
    for (let index = 0; index < 1000; index++) {
      state = (state * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n);
      values.add(state >> BigInt(1 + (index % 63)));
    }
    return [...values];
  }

  it('agrees with du on every size', () => {
    const checked: Array<[bigint, string]> = [];
    const all = sizes();
    for (let start = 0; start < all.length; start += 500) {
      const files: string[] = [];
      const values: bigint[] = [];
      for (const [offset, value] of all.slice(start, start + 500).entries()) {
        const file = join(dir, String(start + offset));
        if (spawnSync('truncate', ['-s', String(value), file]).status !== 0) continue; // too large for this file system
        files.push(file);
        values.push(value);
      }
      const lines = execFileSync('du', ['-h', '--apparent-size', ...files], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } })
        .trimEnd()
        .split('\n');
      for (const [index, line] of lines.entries()) checked.push([values[index]!, line.split('\t')[0]!]);
      for (const file of files) rmSync(file);
    }
    expect(checked.length).toBeGreaterThan(1000);
    const wrong = checked.filter(([value, shown]) => humanSize(value) !== shown).map(([value, shown]) => `${value}: du ${shown}, ours ${humanSize(value)}`);
    expect(wrong).toEqual([]);
  });
});
