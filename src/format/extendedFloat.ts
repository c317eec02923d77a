// C's long double, as far as df needs it. gnulib's human_readable() falls
// back on long double arithmetic when a count cannot be rescaled in integers
// (df -B1000 on a file system of 4096-byte blocks: neither size divides the
// other), and takes the ceiling of the product. That product is a rounded
// binary value: 125 blocks × (4096 / 1000) can land a hair above 512 and come
// out as 513. To print the same digits, the rounding is replayed here exactly,
// with bigints, at the precision of the machine's long double.

/** A non-negative binary floating-point value: mantissa × 2^exponent. */
interface Binary {
  readonly mantissa: bigint;
  readonly exponent: number;
}

/**
 * Bits of mantissa in C's long double on this machine, as GNU df was built
 * for it: the x87 80-bit format on x86 (64 bits); IEEE quadruple on Linux's
 * other 64-bit ABIs (113); a plain double elsewhere (53), as on macOS.
 */
export function longDoublePrecision(arch: string = process.arch, platform: string = process.platform): number {
  if (arch === 'x64' || arch === 'ia32') return 64;
  if (platform === 'linux' && (arch === 'arm64' || arch === 'riscv64' || arch === 's390x' || arch === 'loong64')) return 113;
  return 53;
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/** numerator / denominator (both > 0 or numerator 0), rounded to `precision` bits, ties to even: IEEE's default rounding. */
function roundQuotient(numerator: bigint, denominator: bigint, precision: number): Binary {
  if (numerator === 0n) return { mantissa: 0n, exponent: 0 };
  // Scale so that the quotient has exactly `precision` bits before rounding.
  let shift = precision - (bitLength(numerator) - bitLength(denominator)) - 1;
  const top = 1n << BigInt(precision);
  for (;;) {
    const scaledNumerator = shift >= 0 ? numerator << BigInt(shift) : numerator;
    const scaledDenominator = shift >= 0 ? denominator : denominator << BigInt(-shift);
    let quotient = scaledNumerator / scaledDenominator;
    if (quotient >= top) {
      shift--;
      continue;
    }
    if (quotient < top >> 1n) {
      shift++;
      continue;
    }
    const twiceRemainder = (scaledNumerator % scaledDenominator) * 2n;
    if (twiceRemainder > scaledDenominator || (twiceRemainder === scaledDenominator && (quotient & 1n) === 1n)) quotient++;
    if (quotient === top) return { mantissa: top >> 1n, exponent: 1 - shift };
    return { mantissa: quotient, exponent: -shift };
  }
}

/** The value as numerator / denominator, both bigints. */
function asFraction(value: Binary): [bigint, bigint] {
  return value.exponent >= 0 ? [value.mantissa << BigInt(value.exponent), 1n] : [value.mantissa, 1n << BigInt(-value.exponent)];
}

function round(value: bigint, precision: number): Binary {
  return roundQuotient(value, 1n, precision);
}

function multiply(a: Binary, b: Binary, precision: number): Binary {
  const [an, ad] = asFraction(a);
  const [bn, bd] = asFraction(b);
  return roundQuotient(an * bn, ad * bd, precision);
}

function divide(a: Binary, b: Binary, precision: number): Binary {
  const [an, ad] = asFraction(a);
  const [bn, bd] = asFraction(b);
  return roundQuotient(an * bd, ad * bn, precision);
}

/** Whether a < b. */
function less(a: Binary, b: Binary): boolean {
  const [an, ad] = asFraction(a);
  const [bn, bd] = asFraction(b);
  return an * bd < bn * ad;
}

/** The integer nearest `value`, ties to even: printf's "%.0Lf". */
function nearestInteger(value: Binary): bigint {
  const [numerator, denominator] = asFraction(value);
  const quotient = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  return twiceRemainder > denominator || (twiceRemainder === denominator && (quotient & 1n) === 1n) ? quotient + 1n : quotient;
}

const UINTMAX_MAX = (1n << 64n) - 1n;

/**
 * What human_readable() prints for `count` units of `fromBlockSize` bytes in
 * units of `toBlockSize` when it has to use floating point, without
 * autoscaling and rounding up (df's human_ceiling): the digits of
 * `ceil(count × (from / to))` as long double computes it (adjust_value in
 * gnulib's human.c, then "%.0Lf"). Every argument is below 2^64.
 */
export function longDoubleCeilScaled(count: bigint, fromBlockSize: bigint, toBlockSize: bigint, precision: number): string {
  const ratio = divide(round(fromBlockSize, precision), round(toBlockSize, precision), precision);
  const product = multiply(round(count, precision), ratio, precision);
  let value = product;
  // adjust_value: values at or past UINTMAX_MAX are left as they are.
  if (less(product, round(UINTMAX_MAX, precision))) {
    const [numerator, denominator] = asFraction(product);
    const truncated = numerator / denominator;
    value = round(truncated + (numerator % denominator === 0n ? 0n : 1n), precision);
  }
  return nearestInteger(value).toString();
}
