// Percentages that round up to exactly what df prints. df computes Use% in
// integers, ceil(100 × used / (used + available)); a float quotient can land
// a hair on the wrong side of an integer, so the float is checked against the
// exact integer ceiling and moved inside it when needed.

const SAFE = Number.MAX_SAFE_INTEGER;

/** Percent, unrounded, of `part` in `part + rest`; 0 when both are 0. Math.ceil of it is df's percentage. */
export function usedPercent(part: number, rest: number): number {
  const whole = part + rest;
  if (whole === 0) return 0;
  const scaled = part * 100;
  if (scaled > SAFE || whole > SAFE) return usedPercentBig(BigInt(part), BigInt(rest));
  const quotient = scaled / whole;
  // Far from an integer, rounding cannot carry it across one: no need to check.
  const fraction = quotient - Math.floor(quotient);
  if (fraction > 1e-6 && fraction < 1 - 1e-6) return quotient;
  const remainder = scaled % whole;
  const exactCeil = (scaled - remainder) / whole + (remainder === 0 ? 0 : 1);
  return within(quotient, exactCeil);
}

/** Below it, 100 × part and part + rest are exact in doubles. */
const SMALL = BigInt(Math.floor(SAFE / 100));

/** As usedPercent, for bigint counts: in doubles while that is exact (far cheaper), in bigints above. */
export function usedPercentBig(part: bigint, rest: bigint): number {
  if (part <= SMALL && rest <= SMALL) return usedPercent(Number(part), Number(rest));
  const whole = part + rest;
  if (whole === 0n) return 0;
  const scaled = part * 100n;
  const quotient = scaled / whole;
  const remainder = scaled % whole;
  const exactCeil = Number(quotient) + (remainder === 0n ? 0 : 1);
  return within(Number(quotient) + Number(remainder) / Number(whole), exactCeil);
}

/** `value`, moved into (ceil − 1, ceil] if rounding pushed it out. */
function within(value: number, ceil: number): number {
  if (Math.ceil(value) === ceil) return value;
  if (value > ceil) return ceil;
  const floor = ceil - 1;
  return floor + Math.max(Number.EPSILON * floor, Number.MIN_VALUE);
}
