// Bugs these tests found and that are not fixed yet. Each has a test of its
// own marked it.fails, which starts failing (and so tells) once it is fixed;
// the other tests tolerate its exact symptom, and nothing else, through here.
import { expect } from 'vitest';

import type { DirectoryUsage } from '../lib.js';

export const backendUnderTest = process.env.DISKPROBE_BACKEND as 'native' | 'statfs';

/**
 * native/scan.cc, ScanState::Start: `busy_.resize(threads)` fills the slots
 * with ScanError{} (dir 0), not kNone, so a thread that never took a
 * directory shows as busy on the start (node 0) for ever. A finished walk
 * that left a thread idle (any tree with few directories) answers
 * complete: false, unfinished [start]; a walk given up (timeout, stall)
 * takes that thread as held and marks the mount holding the start stuck.
 */
export const idleThreadsShowBusy = backendUnderTest === 'native';

/** Expects a walk of `usage.path` that read everything: no errors, nothing skipped or unfinished. */
export function expectWhole(usage: DirectoryUsage<number | bigint>): void {
  expect(usage.errors).toEqual({ count: 0, first: [] });
  expect(usage.skipped).toEqual([]);
  expectListed(usage);
}

/** Expects a walk that listed every directory (entries may have failed): nothing unfinished, complete. */
export function expectListed(usage: DirectoryUsage<number | bigint>): void {
  if (idleThreadsShowBusy && !usage.complete) {
    expect(usage.unfinished, 'the idle-thread bug shows as the start unfinished, and only so').toEqual({ count: 1, first: [usage.path] });
    return;
  }
  expect(usage.unfinished).toEqual({ count: 0, first: [] });
  expect(usage.complete).toBe(true);
}
