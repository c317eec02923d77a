// What the walk suite expects of every walk, on either backend.
import { expect } from 'vitest';

import type { DirectoryUsage } from '../lib.js';

export const backendUnderTest = process.env.DISKPROBE_BACKEND as 'native' | 'statfs';

/** Expects a walk of `usage.path` that read everything: no errors, nothing skipped or unfinished. */
export function expectWhole(usage: DirectoryUsage<number | bigint>): void {
  expect(usage.errors).toEqual({ count: 0, first: [] });
  expect(usage.skipped).toEqual([]);
  expectListed(usage);
}

/** Expects a walk that listed every directory (entries may have failed): nothing unfinished, complete. */
export function expectListed(usage: DirectoryUsage<number | bigint>): void {
  expect(usage.unfinished).toEqual({ count: 0, first: [] });
  expect(usage.complete).toBe(true);
}
