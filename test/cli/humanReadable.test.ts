// gnulib's human_readable(), block sizes and df's percentages, ported: checked
// against digits GNU df prints, against humanSize (df -h's fast path), and,
// for the floating-point rescaling (-B1000 on 4096-byte blocks), against the
// C compiler's own long double.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { humanOptions, STRTOL, xstrtoumax } from '../../dist/format/blockSize.js';
import { dfPercentCell } from '../../dist/format/dfPercent.js';
import { longDoubleCeilScaled, longDoublePrecision } from '../../dist/format/extendedFloat.js';
import { HUMAN, HUMAN_1000, HUMAN_1024, humanReadable } from '../../dist/format/humanReadable.js';
import { humanSize } from '../../dist/format/humanSize.js';
import { compilerSkipReason } from '../fixtures/cFixture.mjs';
import { announceSkip, tempDir } from '../helpers/system.js';

const PRECISION = longDoublePrecision();
const human = (count: bigint, options: number, from = 1n, to = 1n) => humanReadable(count, options, from, to, PRECISION);

/** A pseudo-random generator with a fixed seed, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('humanReadable', () => {
  it('prints df -h, -H and -B values as GNU df does', () => {
    expect(human(25276502016n, HUMAN_1024)).toBe('24G');
    expect(human(25276502016n, HUMAN_1000)).toBe('26G');
    expect(human(4096n, HUMAN_1000)).toBe('4.1k');
    expect(human(1023n * 1024n + 1n, HUMAN_1024)).toBe('1.0M');
    expect(human(445_000n, HUMAN_1000)).toBe('445k');
    // -BK: units of 1024 with the letter; -B1K: plain numbers; -BKiB, -BkB.
    expect(human(6171021n, HUMAN.SI | HUMAN.base1024, 4096n, 1024n)).toBe('24684084K');
    expect(human(6171021n, 0, 4096n, 1024n)).toBe('24684084');
    expect(human(6171021n, HUMAN.SI | HUMAN.base1024 | HUMAN.B, 4096n, 1024n)).toBe('24684084KiB');
    expect(human(6171021n, HUMAN.SI | HUMAN.B, 4096n, 1000n)).toBe('25276503kB');
    // Rounded up: 3 blocks of 4096 bytes are 12.288 kB.
    expect(human(3n, 0, 4096n, 1000n)).toBe('13');
    expect(human(0n, HUMAN_1024)).toBe('0');
  });

  it('gives the digits of humanSize (df -h) for any count', () => {
    const next = random(17);
    for (let i = 0; i < 20_000; i++) {
      const bits = BigInt(Math.floor(next() * 64));
      const count = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
      const value = count % (1n << bits || 1n);
      expect(human(value, HUMAN_1024), String(value)).toBe(humanSize(value));
    }
  });

  it('wraps the letter of a huge block size past 2^64 as uintmax_t does', () => {
    expect(human(1n, HUMAN.SI | HUMAN.base1024, 1n << 60n, 1n << 60n)).toBe('1E');
    expect(human(1n, HUMAN.SI | HUMAN.base1024, 1n << 63n, 1n << 63n)).toBe('1Y');
  });
});

describe.skipIf(announceSkip('long double rescaling vs the C compiler', compilerSkipReason()))('long double rescaling vs the C compiler', () => {
  it("takes the ceiling of count × (from / to) exactly as C's long double does", () => {
    const dir = tempDir('diskprobe-ld-');
    const source = join(dir, 'ld.c');
    // human.c's floating-point branch without autoscale, and adjust_value with human_ceiling.
    writeFileSync(
      source,
      `#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>
int main(void) {
  uintmax_t n, from, to;
  while (scanf("%" SCNuMAX " %" SCNuMAX " %" SCNuMAX, &n, &from, &to) == 3) {
    long double dto = to;
    long double value = n * (from / dto);
    if (value < UINTMAX_MAX) { uintmax_t u = value; value = u + (u != value); }
    printf("%.0Lf\\n", value);
  }
  return 0;
}
`,
    );
    const binary = join(dir, 'ld');
    const built = spawnSync('cc', ['-O0', source, '-o', binary], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);

    const next = random(42);
    const cases: Array<[bigint, bigint, bigint]> = [];
    const blockSizes = [512n, 1024n, 2048n, 4096n, 65536n, 1n << 20n];
    const outputSizes = [1000n, 3n, 7n, 1000000n, 1500n, 999n, 10n ** 18n, 12345678901n];
    for (const from of blockSizes) {
      for (const to of outputSizes) {
        // Multiples of the count where the exact product is an integer, where rounding decides.
        const exact = to / gcd(from, to);
        for (let k = 1n; k <= 40n; k++) cases.push([exact * k, from, to]);
        for (let i = 0; i < 60; i++) cases.push([BigInt(Math.floor(next() * 2 ** 52)) * BigInt(1 + Math.floor(next() * 4096)), from, to]);
        cases.push([(1n << 64n) - 1n, from, to], [0n, from, to], [1n, from, to]);
      }
    }
    const ran = spawnSync(binary, { input: cases.map((c) => c.join(' ')).join('\n'), encoding: 'utf8', maxBuffer: 64 << 20 });
    const expected = ran.stdout.trim().split('\n');
    expect(expected).toHaveLength(cases.length);
    const mismatches = cases.filter(([n, from, to], i) => longDoubleCeilScaled(n, from, to, PRECISION) !== expected[i]);
    expect(mismatches).toEqual([]);
  });
});

function gcd(a: bigint, b: bigint): bigint {
  return b === 0n ? a : gcd(b, a % b);
}

describe('block sizes (human_options)', () => {
  it.each([
    ['1K', 0, 1024n],
    ['K', HUMAN.SI | HUMAN.base1024, 1024n],
    ['KiB', HUMAN.SI | HUMAN.base1024 | HUMAN.B, 1024n],
    ['kB', HUMAN.SI | HUMAN.B, 1000n],
    ['1KB', 0, 1000n],
    ['1kD', 0, 1000n],
    ["'1k", HUMAN.groupDigits, 1024n],
    ['human-readable', HUMAN_1024, 1n],
    ['h', HUMAN_1024, 1n],
    ['si', HUMAN_1000, 1n],
    ['0x10', 0, 16n],
    ['010', 0, 8n],
    [' 1K', 0, 1024n],
    ['+2K', 0, 2048n],
    ['1E', 0, 1n << 60n],
    ['15E', 0, 15n << 60n],
  ])('reads %j as options %i, %i bytes', (spec, options, blockSize) => {
    expect(humanOptions(spec, {})).toEqual({ error: STRTOL.ok, options, blockSize });
  });

  it.each([
    ['x', STRTOL.invalid],
    ['', STRTOL.invalid],
    ['0', STRTOL.invalid],
    ['0x', STRTOL.invalid],
    ['-1', STRTOL.invalid],
    ['1x', STRTOL.invalidSuffixChar],
    ['1e', STRTOL.invalidSuffixChar],
    ['1KBx', STRTOL.invalidSuffixChar],
    ['16E', STRTOL.overflow],
    ['99999999999999999999', STRTOL.overflow],
    ['99999999999999999999x', STRTOL.invalidSuffixCharWithOverflow],
  ])('refuses %j (%i)', (spec, error) => {
    expect(humanOptions(spec, {}).error).toBe(error);
  });

  it('reads the variables in the order df does, falling back on 1024 (512 under POSIXLY_CORRECT)', () => {
    expect(humanOptions(undefined, { BLOCK_SIZE: '2K', BLOCKSIZE: '4K' }).blockSize).toBe(2048n);
    expect(humanOptions(undefined, { BLOCKSIZE: '4K' }).blockSize).toBe(4096n);
    expect(humanOptions(undefined, {}).blockSize).toBe(1024n);
    expect(humanOptions(undefined, { POSIXLY_CORRECT: '' }).blockSize).toBe(512n);
    // What a bad value leaves: xstrtoumax's partial number, else the default.
    expect(humanOptions(undefined, { BLOCK_SIZE: '3x' })).toEqual({ error: STRTOL.invalidSuffixChar, options: 0, blockSize: 3n });
    expect(humanOptions(undefined, { BLOCK_SIZE: 'x' })).toEqual({ error: STRTOL.invalid, options: 0, blockSize: 1024n });
    expect(xstrtoumax('12MiBs')).toEqual({ error: STRTOL.invalidSuffixChar, value: 12n << 20n, end: 5 });
  });
});

describe("df's percentages", () => {
  it('rounds up in integers, and in doubles past uintmax_t as df.c does', () => {
    expect(dfPercentCell(1n, 2n)).toBe('34%');
    expect(dfPercentCell(0n, 0n)).toBe('-');
    expect(dfPercentCell(0n, 5n)).toBe('0%');
    expect(dfPercentCell((1n << 64n) - 1n, 5n)).toBe('-');
    // 100 × used overflows: the double fallback.
    const big = (1n << 62n) + 1n;
    expect(dfPercentCell(big, big)).toBe('50%');
    expect(dfPercentCell(big, 3n * big)).toBe('25%');
    expect(dfPercentCell(big, 1n)).toBe('100%');
  });
});
