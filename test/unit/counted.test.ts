// Counts as diskprobe's own texts write them (src/format/counted.ts): digits
// grouped as en-US groups them, and the noun in the number the count takes,
// 0 and 2 plural, 1 singular (issue 27: "1 files", "(1 more directories)").
import { describe, expect, it } from 'vitest';

import { counted, grouped } from '../../dist/format/counted.js';

describe('grouped', () => {
  it('writes counts as en-US does, with a comma every three digits', () => {
    for (const count of [0, 7, 999, 1000, 2006, 10000, 123456, 1234567, 1000000000, Number.MAX_SAFE_INTEGER]) {
      expect(grouped(count)).toBe(count.toLocaleString('en-US'));
    }
  });
});

describe('counted', () => {
  it('takes the singular for 1 only, the plural for 0, 2 and more', () => {
    expect([0, 1, 2].map((count) => counted(count, 'file'))).toEqual(['0 files', '1 file', '2 files']);
    expect([0, 1, 2].map((count) => counted(count, 'more directory', 'more directories'))).toEqual([
      '0 more directories',
      '1 more directory',
      '2 more directories',
    ]);
    expect([0, 1, 2].map((count) => counted(count, 'entry', 'entries'))).toEqual(['0 entries', '1 entry', '2 entries']);
  });

  it('groups the digits, and a noun of several words takes its plural at the end', () => {
    expect(counted(2006, 'file system')).toBe('2,006 file systems');
    expect(counted(1001, 'file system')).toBe('1,001 file systems');
    expect(counted(1, 'other type')).toBe('1 other type');
  });
});
