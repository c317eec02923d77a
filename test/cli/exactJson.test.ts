import { describe, expect, it } from 'vitest';

import { stringifyExact } from '../../dist/cli/exactJson.js';

describe('stringifyExact', () => {
  it('prints what JSON.stringify(value, null, 2) prints when there are no bigints', () => {
    const samples: unknown[] = [
      null,
      0,
      -1.5e-7,
      'quote " and \\ and \n and é and \u2028',
      true,
      [],
      {},
      [1, [2, [3, {}]], { a: [] }],
      { a: 1, skipped: undefined, fn: () => 1, nested: { b: null, c: [undefined, Number.NaN, Infinity] } },
    ];
    for (const sample of samples) expect(stringifyExact(sample)).toBe(JSON.stringify(sample, null, 2));
  });

  it('writes bigints as exact integers, also above 2^53', () => {
    const text = stringifyExact([{ total: 2n ** 64n - 1n, free: 2n ** 53n + 1n, used: 0n, usedPercent: 12.5 }]);
    expect(text).toBe('[\n  {\n    "total": 18446744073709551615,\n    "free": 9007199254740993,\n    "used": 0,\n    "usedPercent": 12.5\n  }\n]');
  });
});
