// Numbers as GNU df prints them, for every way of asking: gnulib's
// human_readable() (human.c, as coreutils 9.1 ships it), ported step for step
// with bigints: -B's block sizes, -k, -m, -h's powers of 1024, -H's powers of
// 1000 and their suffixes, and df's rounding, human_ceiling. humanSize.ts is
// the fast path for df -h alone; this covers the rest.
//
// Printed as in the C locale: "." as the decimal point, and no thousands
// separators even when asked for (the C locale's grouping is empty).

import { longDoubleCeilScaled } from './extendedFloat.js';

/** gnulib's human_readable option bits (human.h). */
export const HUMAN = {
  /** Round up (df's style; the value 0 means it). */
  ceiling: 0,
  roundToNearest: 1,
  floor: 2,
  /** Group the thousands as the locale says: nothing in the C locale. */
  groupDigits: 4,
  /** "1K", not "1.0K" (df's headers). */
  suppressPointZero: 8,
  /** Choose the power of the base that fits (-h, -H). */
  autoscale: 16,
  /** Powers of 1024, not of 1000. */
  base1024: 32,
  spaceBeforeUnit: 64,
  /** Append the power's letter: K, M, ... ("k" for 1000). */
  SI: 128,
  /** Append "B" ("iB" in base 1024). */
  B: 256,
} as const;

/** -h: autoscaled powers of 1024 with a letter. */
export const HUMAN_1024 = HUMAN.autoscale | HUMAN.SI | HUMAN.base1024;
/** -H, --si: autoscaled powers of 1000 with a letter. */
export const HUMAN_1000 = HUMAN.autoscale | HUMAN.SI;

// power_letter in human.c; past Y the number simply grows (exponent_max).
const POWER_LETTERS = ['', 'K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'] as const;
const EXPONENT_MAX = POWER_LETTERS.length - 1;
const TWO_64 = 1n << 64n;
const wrap = (value: bigint): bigint => BigInt.asUintN(64, value);

/**
 * `count` units of `fromBlockSize` bytes, printed in units of `toBlockSize`
 * as human_readable(count, buf, options, fromBlockSize, toBlockSize) prints
 * it. Counts and block sizes are below 2^64, as uintmax_t's are;
 * `toBlockSize` is at least 1. `precision` is the bits of C's long double,
 * for the rescalings human.c does in floating point (extendedFloat.ts).
 */
export function humanReadable(count: bigint, options: number, fromBlockSize: bigint, toBlockSize: bigint, precision: number): string {
  const inexactStyle = options & (HUMAN.roundToNearest | HUMAN.floor | HUMAN.ceiling);
  const base = options & HUMAN.base1024 ? 1024 : 1000;
  const bigBase = BigInt(base);
  let amount: bigint | undefined;
  let tenths = 0;
  // 0: exact; 1: below half a tenth more; 2: exactly half; 3: above half.
  let rounding = 0;
  let exponent = -1;

  // Rescale in integers when one block size divides the other, as human.c does.
  if (toBlockSize <= fromBlockSize) {
    if (fromBlockSize % toBlockSize === 0n) {
      const product = count * (fromBlockSize / toBlockSize);
      if (product < TWO_64) amount = product;
    }
  } else if (fromBlockSize !== 0n && toBlockSize % fromBlockSize === 0n) {
    const divisor = toBlockSize / fromBlockSize;
    // uintmax_t arithmetic: these products wrap as C's do.
    const r10 = wrap((count % divisor) * 10n);
    const r2 = wrap((r10 % divisor) * 2n);
    amount = count / divisor;
    tenths = Number(r10 / divisor);
    rounding = r2 < divisor ? (r2 > 0n ? 1 : 0) : 2 + (divisor < r2 ? 1 : 0);
  }

  if (amount === undefined) {
    if (!(options & HUMAN.autoscale) && inexactStyle === HUMAN.ceiling) {
      return longDoubleCeilScaled(count, fromBlockSize, toBlockSize, precision) + suffix(-1, options, base, toBlockSize);
    }
    // human.c would go on in floating point; that needs a count times its
    // block size at or past 2^64 bytes, which no statvfs gives. Exact instead.
    amount = (count * fromBlockSize) / toBlockSize;
    const rest = (count * fromBlockSize) % toBlockSize;
    tenths = Number((rest * 10n) / toBlockSize);
    const r2 = ((rest * 10n) % toBlockSize) * 2n;
    rounding = r2 < toBlockSize ? (r2 > 0n ? 1 : 0) : 2 + (toBlockSize < r2 ? 1 : 0);
  }

  let decimal = '';
  if (options & HUMAN.autoscale) {
    exponent = 0;
    if (bigBase <= amount) {
      do {
        const r10 = Number(amount % bigBase) * 10 + tenths;
        const r2 = (r10 % base) * 2 + (rounding >> 1);
        amount /= bigBase;
        tenths = Math.floor(r10 / base);
        rounding = r2 < base ? (r2 + rounding !== 0 ? 1 : 0) : 2 + (base < r2 + rounding ? 1 : 0);
        exponent++;
      } while (bigBase <= amount && exponent < EXPONENT_MAX);

      if (amount < 10n) {
        const roundUp = inexactStyle === HUMAN.roundToNearest ? 2 < rounding + (tenths & 1) : inexactStyle === HUMAN.ceiling && 0 < rounding;
        if (roundUp) {
          tenths++;
          rounding = 0;
          if (tenths === 10) {
            amount++;
            tenths = 0;
          }
        }
        if (amount < 10n && (tenths !== 0 || !(options & HUMAN.suppressPointZero))) {
          decimal = `.${tenths}`;
          tenths = 0;
          rounding = 0;
        }
      }
    }
  }

  const bump =
    inexactStyle === HUMAN.roundToNearest ? 5 < tenths + (0 < rounding + Number(amount & 1n) ? 1 : 0) : inexactStyle === HUMAN.ceiling && 0 < tenths + rounding;
  if (bump) {
    amount++;
    // 1023.1K rounds up to 1024K, shown as 1.0M.
    if (options & HUMAN.autoscale && amount === bigBase && exponent < EXPONENT_MAX) {
      exponent++;
      if (!(options & HUMAN.suppressPointZero)) decimal = '.0';
      amount = 1n;
    }
  }
  return `${amount}${decimal}${suffix(exponent, options, base, toBlockSize)}`;
}

/** The unit after the number: "K", "kB", "MiB"... or nothing without human_SI. */
function suffix(exponent: number, options: number, base: number, toBlockSize: bigint): string {
  if (!(options & HUMAN.SI)) return '';
  if (exponent < 0) {
    // Not autoscaled: the letter of the output block size (-BK prints "12K").
    // power *= base wraps past 2^64, as uintmax_t does.
    exponent = 0;
    for (let power = 1n; power < toBlockSize; power = wrap(power * BigInt(base))) {
      if (++exponent === EXPONENT_MAX) break;
    }
  }
  let text = (exponent | (options & HUMAN.B)) !== 0 && options & HUMAN.spaceBeforeUnit ? ' ' : '';
  if (exponent !== 0) text += !(options & HUMAN.base1024) && exponent === 1 ? 'k' : POWER_LETTERS[exponent];
  if (options & HUMAN.B) text += options & HUMAN.base1024 && exponent !== 0 ? 'iB' : 'B';
  return text;
}
