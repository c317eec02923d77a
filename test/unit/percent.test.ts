import { describe, expect, it } from 'vitest';

import { usedPercent, usedPercentBig } from '../../dist/probe/percent.js';

/** df's Use%: ceil(100 × used / (used + avail)) in integers. */
function dfPercent(used: bigint, avail: bigint): number {
  const whole = used + avail;
  if (whole === 0n) return 0;
  const scaled = used * 100n;
  return Number(scaled / whole + (scaled % whole === 0n ? 0n : 1n));
}

describe('usedPercent', () => {
  it('is 0 when nothing is used or available', () => {
    expect(usedPercent(0, 0)).toBe(0);
    expect(usedPercentBig(0n, 0n)).toBe(0);
  });

  it('is exact at whole percentages', () => {
    expect(usedPercent(1, 1)).toBe(50);
    expect(usedPercent(3, 1)).toBe(75);
    expect(usedPercent(1, 0)).toBe(100);
  });

  it("rounds up to df's Use% even where the float quotient lands on an integer", () => {
    // 100 × used / whole just above an integer by less than a double's ulp.
    const whole = 2n ** 52n + 1n;
    const used = whole / 2n + 1n;
    expect(Math.ceil(usedPercentBig(used, whole - used))).toBe(dfPercent(used, whole - used));
  });

  it('agrees with integer arithmetic on random counts, small and huge', () => {
    let seed = 42;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const scale = [1, 1e3, 1e9, 2 ** 40, 2 ** 52][i % 5]!;
      const used = BigInt(Math.floor((next() / 2 ** 31) * scale));
      const avail = BigInt(Math.floor((next() / 2 ** 31) * scale));
      const expected = dfPercent(used, avail);
      expect(Math.ceil(usedPercentBig(used, avail))).toBe(expected);
      if (used + avail <= BigInt(Number.MAX_SAFE_INTEGER)) expect(Math.ceil(usedPercent(Number(used), Number(avail)))).toBe(expected);
      const big = used * 2n ** 20n;
      expect(Math.ceil(usedPercentBig(big, avail))).toBe(dfPercent(big, avail));
    }
  });
});
