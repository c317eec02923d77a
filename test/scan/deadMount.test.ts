// A dead mount inside the walked tree: the FUSE fixture's `dead` mode
// (test/fixtures/fusefix.c) answers nothing after INIT, so the thread that
// stats its mount point waits for ever. The walk must answer anyway: by its
// deadline, or once nothing has moved for 5 s, naming the dead mount; and
// the next walk must skip it at once. Each tree sits on a tmpfs of its own;
// the daemon is killed after each test whatever happens, which frees every
// thread stuck on it (in this process on the native backend, in the helper
// process on statfs). Runs once per backend.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse, mountTmpfs, type TestMount } from '../helpers/system.js';
import { type DirectoryUsage, directoryUsage } from '../lib.js';
import { write } from './duOracle.js';
import { backendUnderTest } from './expectations.js';

const TIMEOUT = 2000;
/** How long after its deadline (or the 5 s stall) a walk may take to answer: a bound on failure. */
const LATE_MS = 1000;
const STALL_MS = 5000;

/** Runs `walk` and says how long it took. */
async function timed<T>(walk: () => Promise<T>): Promise<{ usage: T; ms: number }> {
  const start = performance.now();
  const usage = await walk();
  return { usage, ms: Math.round(performance.now() - start) };
}

/** The unfinished directories, those where a thread is held first. */
const held = (usage: DirectoryUsage, _root: string) => usage.unfinished.first;

describe.skipIf(announceSkip(`a dead mount inside the tree (${backendUnderTest})`, fuseSkipReason))(`a dead mount inside the tree, ${backendUnderTest}`, () => {
  const mounts: TestMount[] = [];
  // The daemon first: nothing else can end a call stuck on its mount.
  afterEach(() => {
    for (const mount of mounts.splice(0).reverse()) mount.cleanup();
  });

  /** root/other/f (10,000 bytes, 3 pages), and the dead mount at root/sub/dead. */
  async function treeWithDeadMount(): Promise<{ root: string; other: string; dead: FuseMount }> {
    const tmpfs = mountTmpfs('size=8M');
    mounts.push(tmpfs);
    const root = tmpfs.dir;
    mkdirSync(join(root, 'other'));
    write(join(root, 'other', 'f'), 10_000);
    const dead = await mountFuse('dead', join(root, 'sub', 'dead'));
    mounts.push(dead);
    return { root, other: join(root, 'other'), dead };
  }

  /**
   * The statfs backend re-reads the mount table when its copy is a second old
   * (the addon's backend when the kernel flags a change): until then a walk
   * does not know the new mount is one. The last test shows what that costs.
   */
  const tableKnowsTheMount = () => (backendUnderTest === 'statfs' ? sleep(1100) : Promise.resolve());

  it('with a timeout, answers by the deadline with what it has, the dead mount first among the unfinished', async () => {
    const { root, dead } = await treeWithDeadMount();
    await tableKnowsTheMount();
    const { usage, ms } = await timed(() => directoryUsage(root, { timeout: TIMEOUT, fresh: true }));
    console.log(`[dead mount, ${backendUnderTest}] answered after ${ms} ms with timeout ${TIMEOUT}`);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT - 50);
    expect(ms).toBeLessThan(TIMEOUT + LATE_MS);
    expect(usage.complete).toBe(false);
    expect(held(usage, root)[0]).toBe(dead.dir);
    expect(usage.allocated).toBeGreaterThanOrEqual(12_288); // other/f was counted
    expect(usage.errors.count).toBe(0);
  });

  // Only the threads held by the dead mount count as held: the others, idle or done,
  // must not mark the tmpfs holding the start stuck (the next walk would reject with ETIMEDOUT).
  it('then skips the dead mount at once: the next walk answers in well under a second, naming it in skipped', async () => {
    const { root, other, dead } = await treeWithDeadMount();
    await tableKnowsTheMount();
    await directoryUsage(root, { timeout: TIMEOUT, fresh: true });
    const { usage, ms } = await timed(() => directoryUsage(root, { timeout: TIMEOUT, fresh: true }));
    console.log(`[dead mount, ${backendUnderTest}] the next walk answered after ${ms} ms`);
    expect(ms).toBeLessThan(1000);
    expect(usage.skipped).toEqual([dead.dir]);
    expect(usage.unfinished.count).toBe(0);
    expect(usage.complete).toBe(false);
    expect(usage.allocated).toBeGreaterThanOrEqual(12_288);
    // The rest of that file system is fine.
    const rest = await directoryUsage(other, { fresh: true });
    expect(rest).toMatchObject({ files: 1, directories: 1, complete: true });
  });

  it('with no timeout, gives up once nothing has moved for 5 s, naming the dead mount', async () => {
    const { root, dead } = await treeWithDeadMount();
    await tableKnowsTheMount();
    const { usage, ms } = await timed(() => directoryUsage(root, { fresh: true }));
    console.log(`[dead mount, ${backendUnderTest}] the stalled walk answered after ${ms} ms`);
    expect(ms).toBeGreaterThanOrEqual(STALL_MS - 50);
    expect(ms).toBeLessThan(STALL_MS + LATE_MS);
    expect(usage.complete).toBe(false);
    expect(held(usage, root)[0]).toBe(dead.dir);
    expect(usage.allocated).toBeGreaterThanOrEqual(12_288);
  });

  // A file system's timeout, not the default 5 s: what `serve --probe-timeout` gives the MCP tool's walks.
  it('with a stallTimeout, gives up once nothing has moved for that long', async () => {
    const { root, dead } = await treeWithDeadMount();
    await tableKnowsTheMount();
    const stallTimeout = 1000;
    const { usage, ms } = await timed(() => directoryUsage(root, { fresh: true, stallTimeout }));
    expect(ms).toBeGreaterThanOrEqual(stallTimeout - 50);
    expect(ms).toBeLessThan(stallTimeout + LATE_MS);
    expect(usage.complete).toBe(false);
    expect(held(usage, root)[0]).toBe(dead.dir);
  });

  // statfs: a walk begun within a second of the dead mount appearing lstats it while listing
  // its parent (the table does not name it a mount yet). Given up, the walk names the parent
  // as unfinished, and blames the parent's mount: it marks the tmpfs stuck, so that walks of
  // anything else on it (and diskUsage of it) reject with ETIMEDOUT until the daemon dies.
  it('blames the dead mount, not the one above it, when the walk begins as it appears', async () => {
    const { root, other, dead } = await treeWithDeadMount();
    const { usage } = await timed(() => directoryUsage(root, { timeout: TIMEOUT, fresh: true }));
    expect(usage.unfinished.first[0]).toBe(dead.dir);
    await expect(directoryUsage(other, { fresh: true })).resolves.toMatchObject({ files: 1, complete: true });
  });
});
