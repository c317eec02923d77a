// Sizes exactly as GNU df -h prints them: gnulib's human_readable() with
// df's -h options (human_autoscale | human_SI | human_base_1024) and its
// default rounding, human_ceiling. Ported digit for digit rather than
// approximated with floats, because df's strings are the contract: the
// displayed value is never smaller than the true one, and a value below 10
// keeps one decimal ("4.0K", "9.8G", but "10K", "28G").

const BASE = 1024n;

// gnulib's power_letter table as coreutils 9.1 ships it. Past Y the number
// simply grows, as gnulib's does (exponent_max); 64-bit counts never get there.
const POWER_LETTERS = ['', 'K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'] as const;
const EXPONENT_MAX = POWER_LETTERS.length - 1;

/**
 * `value` (a count of bytes or inodes) as df -h shows it: powers of 1024,
 * rounded up, one decimal below 10. Bigints are exact at any size.
 * Throws RangeError for a negative or fractional number.
 */
export function humanSize(value: number | bigint): string {
  if (typeof value === 'number' && !(Number.isInteger(value) && value >= 0)) {
    throw new RangeError(`humanSize needs a non-negative integer, not ${value}`);
  }
  if (typeof value === 'bigint' && value < 0n) throw new RangeError(`humanSize needs a non-negative integer, not ${value}`);
  // Exact in doubles below 2^53, and far cheaper than bigints: a df of
  // thousands of mounts formats tens of thousands of sizes.
  if (value <= Number.MAX_SAFE_INTEGER) return humanSizeSafe(Number(value));
  let amount = BigInt(value);

  // What was divided away, as in human.c: `tenths` is the first decimal
  // digit; `rounding` says where the rest lies between two tenths
  // (0 exact, 1 below half, 2 half, 3 above half).
  let tenths = 0;
  let rounding = 0;
  let exponent = 0;
  let decimal = '';

  if (amount >= BASE) {
    do {
      const r10 = Number(amount % BASE) * 10 + tenths;
      const r2 = (r10 % 1024) * 2 + (rounding >> 1);
      amount /= BASE;
      tenths = Math.floor(r10 / 1024);
      rounding = r2 < 1024 ? (r2 + rounding !== 0 ? 1 : 0) : 2 + (1024 < r2 + rounding ? 1 : 0);
      exponent++;
    } while (amount >= BASE && exponent < EXPONENT_MAX);

    if (amount < 10n) {
      // Round the tenths digit up; 9.95 becomes 10 and loses its decimal.
      if (rounding > 0) {
        tenths++;
        rounding = 0;
        if (tenths === 10) {
          amount++;
          tenths = 0;
        }
      }
      if (amount < 10n) {
        decimal = `.${tenths}`;
        tenths = 0;
        rounding = 0;
      }
    }
  }

  if (tenths + rounding > 0) {
    amount++;
    // 1023.1K rounds up to 1024K, which df shows as 1.0M.
    if (amount === BASE && exponent < EXPONENT_MAX) {
      exponent++;
      amount = 1n;
      decimal = '.0';
    }
  }

  return `${amount}${decimal}${POWER_LETTERS[exponent]}`;
}

/** humanSize for a count below 2^53, the same steps in exact double arithmetic. */
function humanSizeSafe(value: number): string {
  let amount = value;
  let tenths = 0;
  let rounding = 0;
  let exponent = 0;
  let decimal = '';
  if (amount >= 1024) {
    do {
      const r10 = (amount % 1024) * 10 + tenths;
      const r2 = (r10 % 1024) * 2 + (rounding >> 1);
      amount = Math.floor(amount / 1024);
      tenths = Math.floor(r10 / 1024);
      rounding = r2 < 1024 ? (r2 + rounding !== 0 ? 1 : 0) : 2 + (1024 < r2 + rounding ? 1 : 0);
      exponent++;
    } while (amount >= 1024 && exponent < EXPONENT_MAX);
    if (amount < 10) {
      if (rounding > 0) {
        tenths++;
        rounding = 0;
        if (tenths === 10) {
          amount++;
          tenths = 0;
        }
      }
      if (amount < 10) {
        decimal = `.${tenths}`;
        tenths = 0;
        rounding = 0;
      }
    }
  }
  if (tenths + rounding > 0) {
    amount++;
    if (amount === 1024 && exponent < EXPONENT_MAX) {
      exponent++;
      amount = 1;
      decimal = '.0';
    }
  }
  return `${amount}${decimal}${POWER_LETTERS[exponent]}`;
}
