// explainUsage() beside a dead mount: the FUSE fixture's `dead` mode
// (test/fixtures/fusefix.c), which answers nothing after INIT, mounted on a
// directory of a tmpfs, with a process holding an O_PATH fd of its root and
// another stuck listing it. Explaining the tmpfs must answer in time (the
// scan of /proc only reads the link of an fd that is not deleted, and the
// walk and the look beneath the mount never enter it); explaining the dead
// mount itself must reject with ETIMEDOUT by the stallTimeout. The daemon is
// SIGKILLed after the tests whatever happens: nothing else frees the stuck one.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse, mountTmpfs, type TestMount } from '../helpers/system.js';
import { explainUsage } from '../lib.js';
import { type Holder, pythonSkipReason, startHolder, stopHolders } from './holders.js';
import { IN_D_STATE, MiB } from './world.js';

describe.skipIf(announceSkip('explainUsage beside a dead FUSE mount', fuseSkipReason ?? pythonSkipReason))('beside a dead FUSE mount', () => {
  const STALL_MS = 1000;
  const mounts: TestMount[] = [];
  let tmpfs: TestMount;
  let dead: FuseMount;
  let holder: Holder;
  let stuck: Holder;
  beforeAll(async () => {
    tmpfs = mountTmpfs('size=16m');
    mounts.push(tmpfs);
    mkdirSync(join(tmpfs.dir, 'sub'));
    dead = await mountFuse('dead', join(tmpfs.dir, 'sub', 'dead'));
    mounts.push(dead);
    // An O_PATH fd of its root asks the daemon nothing (a plain open would wait for ever).
    holder = await startHolder([
      { kind: 'open', path: join(tmpfs.dir, 'f.log'), bytes: MiB },
      { kind: 'path', path: dead.dir },
    ]);
    stuck = await startHolder([{ kind: 'stuck', path: dead.dir }]);
  });
  afterAll(async () => {
    const stopped = stopHolders(); // SIGKILLed at once; the stuck one goes once the daemon does
    for (const mount of mounts.splice(0).reverse()) mount.cleanup(); // the daemon first: SIGKILL, then umount -l
    await stopped;
  });

  const timed = async <T>(explain: () => Promise<T>) => {
    const start = performance.now();
    const settled = await explain().then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
    return { ...settled, ms: performance.now() - start };
  };

  it('explains the tmpfs it sits in, in time, with the deleted file held beside an fd on the dead mount', async () => {
    const { value, error, ms } = await timed(() => explainUsage(tmpfs.dir, { stallTimeout: STALL_MS, bigint: true }));
    expect(error).toBeUndefined();
    expect(ms).toBeLessThan(5000);
    const file = holder.files.find((held) => held.kind === 'open')!;
    expect(value!.deletedOpen!.files.map(({ path, bytes, holders }) => ({ path, bytes, holders: holders.map(({ pid, fd }) => ({ pid, fd })) }))).toEqual([
      { path: file.path, bytes: BigInt(file.bytes), holders: [{ pid: holder.pid, fd: file.fd }] },
    ]);
    // Beneath the dead mount, in the clone of the tmpfs: its empty directory.
    expect(value!.hidden!.mounts).toEqual([{ mountPoint: dead.dir, bytes: 0n, files: 0n, complete: true }]);
    // The only thing it may say it missed: the maps of processes in state D (the one stuck on the dead mount may be).
    const state = /\) (\S)/.exec(readFileSync(`/proc/${stuck.pid}/stat`, 'utf8'))![1];
    console.log(`[dead mount] the process stuck on it is in state ${state}; unseen: ${JSON.stringify(value!.unseen)}`);
    for (const unseen of value!.unseen) expect(unseen.reason).toMatch(IN_D_STATE);
  });

  it('rejects with ETIMEDOUT on the dead mount itself, by the stallTimeout, and still explains the tmpfs after', async () => {
    const { error, ms } = await timed(() => explainUsage(dead.dir, { stallTimeout: STALL_MS }));
    expect(error).toMatchObject({ code: 'ETIMEDOUT' });
    expect(ms).toBeGreaterThanOrEqual(STALL_MS - 50);
    expect(ms).toBeLessThan(STALL_MS + 1000);
    const again = await timed(() => explainUsage(tmpfs.dir, { stallTimeout: STALL_MS }));
    expect(again.error).toBeUndefined();
    expect(again.ms).toBeLessThan(5000);
    expect(again.value!.deletedOpen!.files).toHaveLength(1);
  });
});
