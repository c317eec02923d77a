// df's Use% and IUse% cells, as get_dev in coreutils 9.1's df.c computes them:
// in integers, ceil(100 × used / (used + available)), while that fits in
// uintmax_t; in doubles past that, with its own way of rounding up. The
// probe's usedPercent (src/probe/percent.ts) is the exact ratio, which is what
// df prints everywhere but in that double fallback; the --total row and
// counts near 2^64 reach it, so the cell is ported whole.

const TWO_64 = 1n << 64n;
const UINTMAX_MAX = TWO_64 - 1n;

/** known_value in df.c: 2^64 − 1 (and AIX's 2^64 − 2) mean "unknown". */
export function knownValue(value: bigint): boolean {
  return value < UINTMAX_MAX - 1n;
}

/** uintmax_t to double, rounded to nearest as C converts it. */
function toDouble(value: bigint): number {
  return Number(value);
}

/**
 * The percent cell ("23%", or "-" when there is nothing to divide) for
 * `used` and `available` as df holds them: uintmax_t values, each with a flag
 * saying it stands for a negative number in two's complement.
 */
export function dfPercentCell(used: bigint, available: bigint, negateUsed = false, negateAvailable = false): string {
  let percent = -1;
  if (!knownValue(used) || !knownValue(available)) {
    // unknown: "-"
  } else {
    const sum = BigInt.asUintN(64, used + available);
    if (!negateUsed && used <= UINTMAX_MAX / 100n && sum !== 0n && sum < used === negateAvailable) {
      const scaled = used * 100n;
      percent = Number(scaled / sum + (scaled % sum !== 0n ? 1n : 0n));
    } else {
      const u = negateUsed ? -toDouble(TWO_64 - used) : toDouble(used);
      const a = negateAvailable ? -toDouble(TWO_64 - available) : toDouble(available);
      const total = u + a;
      if (total !== 0) {
        percent = (u * 100) / total;
        // long int lipct = pct; then round up without ceil(), as df.c does.
        const truncated = Math.trunc(percent);
        if (truncated - 1 < percent && percent <= truncated + 1) percent = truncated + (truncated < percent ? 1 : 0);
      }
    }
  }
  // "%.0f%%": rounds to nearest, ties to even, where the fallback left a fraction.
  return percent >= 0 ? `${roundHalfEven(percent)}%` : '-';
}

function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
