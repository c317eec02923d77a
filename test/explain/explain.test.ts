// explainUsage() on real file systems, a tmpfs and a loop-mounted ext4 image
// (5 % reserved), each holding what df counts and a walk cannot see (see
// world.ts): files deleted but still held, open, only mapped, O_TMPFILE,
// held by two processes, through a bind mount, from another mount
// namespace, and by nobody; a held file whose other name is left (not
// deleted space); and a directory and a file that mounts cover. The parts are checked
// against the holders' own fstat, GNU du and df, tune2fs, statfs and lsof;
// run as nobody, what it cannot see is named, never shown as 0. Then files
// held in unusual ways, and the options.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, df, has, mountTmpfs, projectRoot, rootSkipReason, run, statFs, type TestMount } from '../helpers/system.js';
import { type ExplainUsage, explainUsage } from '../lib.js';
import { duTotal, gnuDuSkipReason } from '../scan/duOracle.js';
import { commandOf, pythonSkipReason, startHolder, stopHolders } from './holders.js';
import { lsofDeleted, lsofSkipReason } from './lsofOracle.js';
import { asSeenUnprivileged, expectedFiles, MiB, makeWorld, NOBODY, pidsOf, sorted, type World, withoutOthersInDState } from './world.js';

const skipReason = rootSkipReason ?? pythonSkipReason ?? gnuDuSkipReason;

/** A program that prints explainUsage() of its last argument as JSON, for nobody to run. */
const printExplanation = `import(${JSON.stringify(`${projectRoot}dist/index.js`)}).then(async ({ explainUsage }) =>
  process.stdout.write(JSON.stringify(await explainUsage(process.argv.at(-1)))));`;

type Part = 'visible' | 'deletedOpen' | 'hidden' | 'reserved' | 'reservedByFileSystem';
const PARTS: readonly Part[] = ['visible', 'deletedOpen', 'hidden', 'reserved', 'reservedByFileSystem'];

describe.skipIf(announceSkip('explainUsage on tmpfs and ext4', skipReason))('explainUsage', () => {
  describe.each(['tmpfs', 'ext4'] as const)('on %s', (fsType) => {
    const mounts: TestMount[] = [];
    let world: World;
    let explained: ExplainUsage<bigint>;
    beforeAll(async () => {
      world = await makeWorld(fsType, mounts);
      explained = await explainUsage(world.dir, { bigint: true });
    });
    afterAll(async () => {
      try {
        await stopHolders(); // their files must be closed before the file system can be unmounted
      } finally {
        for (const mount of mounts.splice(0).reverse()) mount.cleanup();
      }
    });

    it('lists each deleted file still held once, sized as its holder fstat-ed it, with every holder and its fd', () => {
      const expected = expectedFiles(world.holdings);
      expect(expected.map((file) => file.heldBy).sort()).toEqual(['mapped', 'mapped', 'open', 'open', 'open', 'open', 'open', 'tmpfile']);
      expect(sorted(explained.deletedOpen!.files)).toEqual(sorted(expected));
      expect(explained.deletedOpen!.bytes).toBe(expected.reduce((sum, file) => sum + file.bytes!, 0n));
      // The shared file: one entry, two processes.
      const shared = explained.deletedOpen!.files.find((file) => file.path.endsWith('shared.log'))!;
      expect(shared.holders.map((holder) => holder.pid).sort()).toEqual([world.root.pid, world.sharer.pid].sort());
    });

    it('leaves out a held file whose other name is left: the walk sees it, it is not deleted space', () => {
      const linked = world.root.files.find((file) => file.kind === 'linked')!;
      expect(linked.links).toBe(1);
      expect(explained.deletedOpen!.files.map((file) => file.inode)).not.toContain(BigInt(linked.inode));
    });

    it('finds what mounts hide: a directory and a file, each as du measured it before the mount', () => {
      const [directory, file] = world.coveredBytes;
      expect(directory).toBeGreaterThanOrEqual(BigInt(20 * MiB));
      expect(file).toBe(BigInt(MiB));
      expect(explained.hidden).toEqual({
        bytes: directory! + file!,
        mounts: world.covered.map((mountPoint, i) => ({ mountPoint, bytes: world.coveredBytes[i], files: 1n, complete: true })),
      });
    });

    it("accounts for df's Used to the byte: visible as du -x sees it, and the parts sum to Used", () => {
      const byDf = df(world.dir);
      expect(explained).toMatchObject({ path: world.dir, mountPoint: world.dir, walkedFrom: world.dir, fsType, used: byDf.used, available: byDf.avail });
      expect(explained.visible).toBe(duTotal(['-x', '-B1'], world.dir));
      const { visible, deletedOpen, hidden, unexplained, used } = explained;
      expect(visible! + deletedOpen!.bytes + hidden!.bytes + unexplained).toBe(used);
      if (fsType === 'tmpfs') expect((unexplained < 0n ? -unexplained : unexplained) * 100n).toBeLessThan(used);
      const settled = withoutOthersInDState(explained, pidsOf(world));
      expect(settled.unseen).toEqual([]);
      expect(settled.complete).toBe(true);
    });

    it('splits what df counts as neither used nor available: the root reserve as tune2fs gives it, and the rest', () => {
      const kernel = statFs(world.dir);
      expect(explained.blockSize).toBe(kernel.frsize);
      expect(explained.reserved! + explained.reservedByFileSystem!).toBe((kernel.bfree - kernel.bavail) * kernel.frsize);
      if (fsType === 'tmpfs') {
        expect([explained.reserved, explained.reservedByFileSystem]).toEqual([0n, 0n]);
        return;
      }
      const superblock = run('tune2fs', ['-l', join(dirname(world.dir), 'fs.img')]);
      const field = (name: string) => BigInt(new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(superblock)![1]!);
      expect(explained.reserved).toBe(field('Reserved block count') * field('Block size'));
      expect(explained.reserved).toBeGreaterThan(0n);
    });

    it.skipIf(announceSkip('explainUsage against lsof', lsofSkipReason))('finds every deleted file lsof finds held on it, and no other', () => {
      const listed = lsofDeleted(world.dir);
      const files = explained.deletedOpen!.files;
      // By an fd: the same (pid, fd) pairs, each naming the same inode and size.
      const byFd = (entries: { pid: number; fd: string; inode: bigint | null; size: bigint }[]) =>
        Object.fromEntries(entries.map(({ pid, fd, inode, size }) => [`${pid}:${fd}`, { inode, size }]));
      const ours = files.flatMap((file) =>
        file.holders.filter((holder) => holder.fd !== null).map(({ pid, fd }) => ({ pid, fd: String(fd), inode: file.inode, size: file.apparent! })),
      );
      expect(listed.byFd.length).toBeGreaterThanOrEqual(7);
      expect(byFd(ours)).toEqual(byFd(listed.byFd.map(({ pid, fd, inode, size }) => ({ pid, fd, inode: BigInt(inode!), size: BigInt(size!) }))));
      // By a mapping alone: lsof's DEL entries, by pid and inode.
      const mapped = files.filter((file) => file.heldBy === 'mapped').flatMap((file) => file.holders.map((holder) => `${holder.pid}:${file.inode}`));
      expect(mapped).toHaveLength(2);
      expect(listed.mapped.map((file) => `${file.pid}:${file.inode}`).sort()).toEqual(mapped.sort());
    });

    it.skipIf(announceSkip('explainUsage as nobody', has('setpriv') ? undefined : 'setpriv (util-linux) is missing'))(
      'run as nobody, names what it could not see (root processes, what mounts cover) and shows none of it as 0',
      () => {
        const ran = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', printExplanation, world.dir], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, LC_ALL: 'C' },
          timeout: 20_000,
        });
        expect(ran.status, ran.stderr).toBe(0);
        const seen = JSON.parse(ran.stdout) as ExplainUsage;
        // Its own process's files, and none of root's: the one only mapped known to be held, not how much.
        const mine = expectedFiles(world.holdings.filter((holding) => holding.uid === NOBODY)).map(asSeenUnprivileged);
        expect(sorted(seen.deletedOpen!.files)).toEqual(sorted(mine));
        expect(seen.deletedOpen!.bytes).toBe(mine.reduce((sum, file) => sum + (file.bytes ?? 0), 0));
        expect(seen.unseen).toContainEqual({
          part: 'deletedOpen',
          reason: expect.stringMatching(/^1 deleted file held only by a memory mapping could not be sized.*CAP_SYS_ADMIN/),
        });
        expect(seen.unseen).toContainEqual({ part: 'deletedOpen', reason: expect.stringMatching(/processes of other users not readable.*CAP_SYS_PTRACE/) });
        const others = Number(/(\d+) processes of other users/.exec(seen.unseen.map((unseen) => unseen.reason).join('\n'))![1]);
        expect(others).toBeGreaterThanOrEqual(3); // at least root's three holders
        // What the mounts cover: not looked beneath, so not a hidden 0.
        expect(seen.hidden).toBeNull();
        expect(seen.unseen).toContainEqual({ part: 'hidden', reason: expect.stringContaining('CAP_SYS_ADMIN') });
        const unseenParts = seen.unseen.map((unseen) => unseen.part);
        for (const part of PARTS.filter((part) => seen[part] === null)) expect(unseenParts, part).toContain(part);
        expect(seen.visible).toBe(Number(explained.visible));
        expect(seen.unexplained).toBe(seen.used - seen.visible! - seen.deletedOpen!.bytes);
        expect(seen.complete).toBe(false);
      },
    );

    it('answers in numbers without bigint, the same counts', async () => {
      const plain = await explainUsage(world.dir, { bigint: false });
      for (const key of ['used', 'available', 'blockSize', 'visible', 'unexplained'] as const) expect(typeof plain[key], key).toBe('number');
      expect(typeof plain.deletedOpen!.files[0]!.inode).toBe('number');
      const asNumbers: ExplainUsage = JSON.parse(JSON.stringify(explained, (_, value) => (typeof value === 'bigint' ? Number(value) : value)));
      const comparable = (answer: ExplainUsage) => ({
        ...withoutOthersInDState(answer, pidsOf(world)),
        elapsedMs: 0,
        deletedOpen: { ...answer.deletedOpen!, files: sorted(answer.deletedOpen!.files) },
      });
      expect(comparable(plain)).toEqual(comparable(asNumbers));
    });
  });
});

/** The state letter of /proc/<pid>/stat (after the command, which may hold spaces and parentheses). */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat[stat.lastIndexOf(')') + 2]!;
}

// Deleted files held where the scan of /proc/<pid>/fd meets them the hard
// way: by a process whose main thread has exited while another thread holds
// them (its leader a zombie: /proc/<pid>/fd and maps list nothing, the
// thread's /proc/<pid>/task/<tid>/ do), and by the kernel alone: a loop
// device backed by an image file deleted since, which no process holds.
// In this file, not beside it: a file held by such a thread shows in every
// explainUsage run at the same time (as one it could not place).
describe.skipIf(announceSkip('explainUsage of files held in unusual ways', rootSkipReason ?? pythonSkipReason))(
  'explainUsage of files held in unusual ways',
  () => {
    const mounts: TestMount[] = [];
    afterEach(async () => {
      try {
        await stopHolders();
      } finally {
        for (const mount of mounts.splice(0).reverse()) mount.cleanup();
      }
    });

    it('finds the files a thread holds (open, and only mapped) after its main thread exited, through /proc/<pid>/task', async () => {
      const tmpfs = mountTmpfs('size=16m');
      mounts.push(tmpfs);
      const holder = await startHolder(
        [
          { kind: 'open', path: join(tmpfs.dir, 'orphan.log'), bytes: 5 * MiB },
          { kind: 'mapped', path: join(tmpfs.dir, 'orphan.map'), bytes: 3 * MiB },
        ],
        { leaderExits: true },
      );
      expect(stateOf(holder.pid)).toBe('Z'); // the leader: /proc/<pid>/fd and maps went with its thread
      const explained = await explainUsage(tmpfs.dir, { bigint: true });
      const by = (fd: number | null) => ({ pid: holder.pid, command: commandOf(holder.pid), user: 'root', uid: 0, fd });
      expect(explained.deletedOpen!.files).toEqual(
        holder.files.map((file) => ({
          path: file.path,
          bytes: BigInt(file.bytes),
          apparent: BigInt(file.size),
          inode: BigInt(file.inode),
          heldBy: file.kind,
          holders: [by(file.fd)],
        })),
      );
      expect(explained.unexplained).toBe(0n);
      expect(withoutOthersInDState(explained, [holder.pid]).unseen).toEqual([]);
    });

    it('names a loop device backed by a deleted image, its size known and its bytes on disk null, not 0', async () => {
      const tmpfs = mountTmpfs('size=64m');
      mounts.push(tmpfs);
      const image = join(tmpfs.dir, 'disk.img');
      run('truncate', ['-s', '16M', image]);
      run('mkfs.ext4', ['-q', '-F', image]);
      const inner = join(tmpfs.dir, 'inner');
      mkdirSync(inner);
      run('mount', ['-o', 'loop', image, inner]);
      mounts.push({ dir: inner, cleanup: () => spawnSync('umount', ['-d', inner]) });
      const device = run('findmnt', ['-n', '-o', 'SOURCE', inner]).trim();
      rmSync(image);
      const explained = await explainUsage(tmpfs.dir, { bigint: true });
      expect(explained.deletedOpen!.files).toEqual([
        { path: image, bytes: null, apparent: BigInt(16 * MiB), inode: null, heldBy: 'loop', holders: [], device },
      ]);
      expect(explained.deletedOpen!.bytes).toBe(0n);
      expect(explained.unseen).toContainEqual({ part: 'deletedOpen', reason: expect.stringContaining('held by a loop device or swap') });
      expect(explained.complete).toBe(false);
    });
  },
);

describe('explainUsage options', () => {
  it('refuses a misspelt option with a TypeError naming the one meant, as a rejection like the other calls', async () => {
    await expect(explainUsage('/', { timout: 1 } as never)).rejects.toMatchObject({
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
      message: expect.stringContaining('(did you mean "timeout"?)'),
    });
    await expect(explainUsage('/', { bigint: 1 } as never)).rejects.toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  });
});
