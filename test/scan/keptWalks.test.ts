// Kept walks: once /t is walked, questions about /t/a and /t/a/b answer from
// that walk at once (ageMs > 0) with what a walk of their own finds; fresh:
// true walks again; and a mount coming or going below /t drops the kept
// walk. Runs once per backend.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, mountTmpfs, rootSkipReason, type TestMount } from '../helpers/system.js';
import { type DirectoryUsage, directoryUsage } from '../lib.js';
import { write } from './duOracle.js';
import { backendUnderTest, expectWhole } from './expectations.js';

/** How long an answer from a kept walk may take: a bound on failure (the walks here take 100 ms to seconds). */
const KEPT_MS = 100;
/** The statfs backend re-reads the mount table when its copy is a second old: until then it cannot know of a new mount. */
const TABLE_MS = backendUnderTest === 'statfs' ? 1100 : 0;

/** An answer's figures: what a kept walk and a walk of its own must agree on. */
function figures(usage: DirectoryUsage & { ms?: number }) {
  const { scannedAt: _at, elapsedMs: _elapsed, ageMs: _age, complete: _complete, unfinished: _unfinished, ms: _ms, ...rest } = usage;
  return rest;
}

async function timed(walk: () => Promise<DirectoryUsage>): Promise<DirectoryUsage & { ms: number }> {
  const start = performance.now();
  const usage = await walk();
  return { ...usage, ms: performance.now() - start };
}

describe.skipIf(announceSkip(`kept walks (${backendUnderTest})`, rootSkipReason))(`kept walks, ${backendUnderTest}`, () => {
  const mounts: TestMount[] = [];
  let base: string;
  let t: string;
  beforeAll(() => {
    const mount = mountTmpfs('size=64M');
    mounts.push(mount);
    base = mount.dir;
    t = join(base, 't');
    // /t/a/b/c0..c299 with a file each, the largest 15 of distinct sizes (the largest 10 files
    // and directories are then one list whatever the order of ties), and siblings of /t/a.
    mkdirSync(join(t, 'a', 'b'), { recursive: true });
    for (let i = 0; i < 300; i++) {
      mkdirSync(join(t, 'a', 'b', `c${i}`));
      write(join(t, 'a', 'b', `c${i}`, 'f'), i < 15 ? (i + 2) * 4096 : 1000, i);
      mkdirSync(join(t, `s${i}`));
      write(join(t, `s${i}`, 'g'), 5000, i);
    }
    write(join(t, 'a', 'own'), 20_000);
  });
  afterAll(() => {
    for (const mount of mounts.reverse()) mount.cleanup();
  });

  it('answers for /t/a and /t/a/b from the walk of /t, at once, as walks of their own would', async () => {
    const whole = await directoryUsage(t, { fresh: true, depth: 2 });
    expect(whole.ageMs).toBe(0);
    expectWhole(whole);
    await sleep(5); // so that the age shows in whole milliseconds
    const paths = [join(t, 'a'), join(t, 'a', 'b')];
    const answers: Array<DirectoryUsage & { ms: number }> = [];
    for (const path of paths) answers.push(await timed(() => directoryUsage(path, { depth: 2 })));
    for (const [i, path] of paths.entries()) {
      const kept = answers[i]!;
      expect(kept.ageMs, path).toBeGreaterThan(0);
      expect(kept.ms, path).toBeLessThan(KEPT_MS);
      expect(kept.scannedAt).toBe(whole.scannedAt); // the same walk
      expect(kept.complete).toBe(true);
      // The walks of their own are kept too, and would answer later calls: made after all the above.
      const own = await directoryUsage(path, { depth: 2, fresh: true });
      expect(own.ageMs).toBe(0);
      expect(figures(kept), path).toEqual(figures(own));
    }
  });

  it('walks again with fresh: true', async () => {
    await directoryUsage(t);
    await sleep(5);
    const kept = await directoryUsage(join(t, 'a'));
    expect(kept.ageMs).toBeGreaterThan(0);
    const again = await directoryUsage(join(t, 'a'), { fresh: true });
    expect(again.ageMs).toBe(0);
    expect(again.scannedAt).not.toBe(kept.scannedAt);
  });

  // src/scan/keptWalks.ts keeps the new walk beside the old one of the same start, and
  // findKeptWalk ranks them by the length of their start alone: the older one wins. So after
  // fresh: true (the MCP tool's too), the next call answers from the walk before it, stale.
  it('answers later calls from the walk fresh: true made, not from the one before it', async () => {
    const u = join(base, 'u');
    mkdirSync(join(u, 'a'), { recursive: true });
    write(join(u, 'a', 'f'), 1000);
    await directoryUsage(u);
    write(join(u, 'a', 'f'), 100_000);
    const fresh = await directoryUsage(u, { fresh: true });
    await sleep(5);
    for (const path of [u, join(u, 'a')]) {
      const later = await directoryUsage(path);
      expect(later.ageMs).toBeGreaterThan(0);
      expect(later.scannedAt, path).toBe(fresh.scannedAt);
      expect(later.apparent).toBeGreaterThan(100_000);
    }
  });

  it('drops the walk when a tmpfs is mounted below /t, and again when it goes', async () => {
    const before = await directoryUsage(t, { fresh: true });
    await sleep(5);
    expect((await directoryUsage(join(t, 'a', 'b'))).ageMs).toBeGreaterThan(0);
    const inner = mountTmpfs('size=1M', join(t, 'a', 'b', 'mnt'));
    mounts.push(inner);
    write(join(inner.dir, 'new'), 40_000);
    await sleep(TABLE_MS);
    const after = await directoryUsage(join(t, 'a', 'b'));
    expect(after.ageMs, 'answered from the walk made before the mount').toBe(0);
    // And what the new walk sees includes the mount (du's default crosses it).
    expect((await directoryUsage(t)).allocated).toBeGreaterThan(before.allocated + 40_000);
    await sleep(5);
    expect((await directoryUsage(t)).ageMs).toBeGreaterThan(0);
    mounts.pop()!.cleanup();
    await sleep(TABLE_MS);
    const gone = await directoryUsage(t);
    expect(gone.ageMs, 'answered from the walk made while it was mounted').toBe(0);
    expect(gone.allocated).toBe(before.allocated);
  });

  // The statfs backend's copy of the mount table is up to a second old (the addon's is
  // re-read when the kernel flags a change): a call within that second of a mount below
  // the kept walk's start still answers from it, without the mount.
  it('drops the walk at once when a tmpfs is mounted below it', async () => {
    const v = join(base, 'v');
    mkdirSync(join(v, 'a'), { recursive: true });
    await directoryUsage(v);
    const inner = mountTmpfs('size=1M', join(v, 'a', 'mnt'));
    mounts.push(inner);
    write(join(inner.dir, 'new'), 40_000);
    expect((await directoryUsage(v)).ageMs).toBe(0);
  });
});
