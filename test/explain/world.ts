// The world explainUsage's tests explain: a file system (a tmpfs, or a
// loop-mounted ext4 image with 5 % reserved) with something in every part
// of df's Used, and who holds what on it; and what deletedOpen must say of
// it, from what the holders' own fstat saw.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { bindMount, mountExt4, mountTmpfs, run, type TestMount, tempDir } from '../helpers/system.js';
import type { DeletedFile, ExplainUsage } from '../lib.js';
import { duTotal } from '../scan/duOracle.js';
import { commandOf, type Holder, startHolder } from './holders.js';

export const MiB = 1024 * 1024;
export const NOBODY = 65534;

/** A holder, and the user explainUsage must name it by. */
interface Holding {
  readonly holder: Holder;
  readonly uid: number;
  readonly user: string;
}

export interface World {
  readonly dir: string;
  /** A directory of it covered by a tmpfs, and a file covered by a bind mount of /dev/null. */
  readonly covered: readonly string[];
  /** Bytes: du -s -B1 of each covered path, before the mount hid it. */
  readonly coveredBytes: readonly bigint[];
  /** root's holder (its files open, one only mapped, an O_TMPFILE, one through a bind mount elsewhere, one with a name left). */
  readonly root: Holder;
  /** A root process that opens one of root's deleted files too. */
  readonly sharer: Holder;
  /** A root process in a mount namespace of its own. */
  readonly namespaced: Holder;
  /** nobody's: one file open, one only mapped. */
  readonly nobody: Holder;
  readonly holdings: readonly Holding[];
}

/** Makes the world on a fresh `fsType`; its mounts go on `mounts`, to be cleaned up in reverse, after the holders are stopped. */
export async function makeWorld(fsType: 'tmpfs' | 'ext4', mounts: TestMount[]): Promise<World> {
  const mount = fsType === 'tmpfs' ? mountTmpfs('size=256m,mode=755') : mountExt4(256, 5);
  mounts.push(mount);
  // nobody must reach the mount: mountExt4's is inside a temp dir of mode 700.
  if (fsType === 'ext4') chmodSync(dirname(mount.dir), 0o755);
  const dir = mount.dir;
  const [held, covered, mine] = [join(dir, 'held'), join(dir, 'covered'), join(dir, 'nobody')];
  for (const sub of [join(dir, 'visible'), held, covered, mine]) mkdirSync(sub);
  chownSync(mine, NOBODY, NOBODY);
  writeFileSync(join(dir, 'visible', 'seen'), Buffer.alloc(MiB, 1));
  writeFileSync(join(covered, 'data'), Buffer.alloc(20 * MiB, 2));
  const secret = join(dir, 'visible', 'secret');
  writeFileSync(secret, Buffer.alloc(MiB, 3));
  // The same directory, mounted elsewhere: a file opened there is on this file system too.
  const bound = bindMount(held, join(tempDir(), 'bound'));
  mounts.push(bound);
  const root = await startHolder([
    { kind: 'open', path: join(held, 'big.log'), bytes: 30 * MiB },
    { kind: 'mapped', path: join(held, 'mapped.bin'), bytes: 10 * MiB },
    { kind: 'tmpfile', path: held, bytes: 4 * MiB },
    { kind: 'open', path: join(held, 'shared.log'), bytes: 6 * MiB },
    { kind: 'open', path: join(bound.dir, 'through-bind.log'), bytes: MiB },
    { kind: 'linked', path: join(held, 'linked.log'), link: join(dir, 'visible', 'other-name'), bytes: 2 * MiB },
  ]);
  const shared = root.files.find((file) => file.path.endsWith('shared.log'))!;
  const sharer = await startHolder([{ kind: 'reopen', path: `/proc/${root.pid}/fd/${shared.fd}` }]);
  const namespaced = await startHolder([{ kind: 'open', path: join(held, 'namespaced.log'), bytes: MiB }], { ownMountNamespace: true });
  const nobody = await startHolder(
    [
      { kind: 'open', path: join(mine, 'mine.log'), bytes: 3 * MiB },
      { kind: 'mapped', path: join(mine, 'mine.map'), bytes: 2 * MiB },
    ],
    { asNobody: true },
  );
  run('sync', ['-f', dir]); // ext4: no delayed allocation left to change the counts while they are compared
  const coveredBytes = [covered, secret].map((path) => duTotal(['-B1'], path));
  mounts.push(mountTmpfs('size=1m', covered));
  run('mount', ['--bind', '/dev/null', secret]); // bindMount makes its target a directory
  mounts.push({ dir: secret, cleanup: () => spawnSync('umount', [secret]) });
  const holdings = [
    { holder: root, uid: 0, user: 'root' },
    { holder: sharer, uid: 0, user: 'root' },
    { holder: namespaced, uid: 0, user: 'root' },
    { holder: nobody, uid: NOBODY, user: 'nobody' },
  ];
  return { dir, covered: [covered, secret], coveredBytes, root, sharer, namespaced, nobody, holdings };
}

export const pidsOf = (world: World) => world.holdings.map((holding) => holding.holder.pid);

const HELD_BY = { open: 'open', reopen: 'open', mapped: 'mapped', tmpfile: 'tmpfile' } as const;

type Expected = DeletedFile<bigint> & { holders: DeletedFile['holders'][number][] };

/** What deletedOpen.files must say of what `holdings` hold: each inode once, with all its holders; not the file with a name left. */
export function expectedFiles(holdings: readonly Holding[]): DeletedFile<bigint>[] {
  const byInode = new Map<number, Expected>();
  for (const { holder, uid, user } of holdings) {
    for (const file of holder.files) {
      if (!(file.kind in HELD_BY)) continue;
      const by = { pid: file.pid, command: commandOf(file.pid), user, uid, fd: file.fd };
      const known = byInode.get(file.inode);
      if (known) known.holders.push(by);
      else
        byInode.set(file.inode, {
          // An O_TMPFILE file never had a name: the kernel names its directory and "#inode".
          path: file.kind === 'tmpfile' ? `${file.path}/#${file.inode}` : file.path,
          bytes: BigInt(file.bytes),
          apparent: BigInt(file.size),
          inode: BigInt(file.inode),
          heldBy: HELD_BY[file.kind as keyof typeof HELD_BY],
          holders: [by],
        });
    }
  }
  return [...byInode.values()];
}

/** Files by inode, each one's holders by pid: explainUsage orders them by size, and ties as it met them. */
export function sorted<F extends { inode: number | bigint | null; holders: readonly { pid: number }[] }>(files: readonly F[]): F[] {
  return [...files].sort((a, b) => Number(a.inode) - Number(b.inode)).map((file) => ({ ...file, holders: [...file.holders].sort((a, b) => a.pid - b.pid) }));
}

/**
 * A file as an unprivileged user's answer must give it, in numbers (JSON):
 * one held only by a mapping cannot be sized without CAP_SYS_ADMIN
 * (/proc/PID/map_files), so its sizes are null, not 0.
 */
export function asSeenUnprivileged(file: DeletedFile<bigint>): DeletedFile {
  const mapped = file.heldBy === 'mapped';
  return { ...file, bytes: mapped ? null : Number(file.bytes), apparent: mapped ? null : Number(file.apparent), inode: Number(file.inode) };
}

/** The scan's note that it skipped the maps of processes in uninterruptible sleep (state D): any process doing disk I/O may be, for a moment. */
export const IN_D_STATE = /^memory mappings not read of \d+ processes in uninterruptible sleep \(pid ([\d, ]+)\)/;

/**
 * `answer` without that note where it names none of `ours`: the state of
 * another process on this machine, not of this test's world (printed, so
 * that it is seen). Its `complete` as it would be without it.
 */
export function withoutOthersInDState<A extends ExplainUsage<number | bigint>>(answer: A, ours: readonly number[]): A {
  const unseen = answer.unseen.filter((entry) => {
    const pids = IN_D_STATE.exec(entry.reason)?.[1]?.split(', ').map(Number);
    if (pids === undefined || pids.some((pid) => ours.includes(pid))) return true;
    console.warn(`[machine] explainUsage noted another process in state D: ${entry.reason}`);
    return false;
  });
  return { ...answer, unseen, complete: unseen.length === 0 };
}
