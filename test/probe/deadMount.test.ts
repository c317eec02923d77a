// A dead mount (the FUSE `hang` fixture: statfs never answers) must not
// freeze the caller, starve libuv's pool, or cost a thread per probe.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountExt4, mountFuse, projectRoot, rootSkipReason } from '../helpers/system.js';
import { diskUsage, diskUsageSync, listMounts, mountsUsage, onMountEvent, stuckMounts } from '../lib.js';

const TIMEOUT = 400;
const skip = announceSkip(`dead mount (${process.env.DISKPROBE_BACKEND})`, fuseSkipReason);

/** The processes `pid` started (Linux: /proc/PID/task/TID/children), or none once it is gone. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

describe.skipIf(skip)(`a dead mount on the ${process.env.DISKPROBE_BACKEND} backend`, () => {
  let dead: FuseMount;
  const events: string[] = [];
  beforeAll(async () => {
    dead = await mountFuse('hang');
    onMountEvent((event) => {
      if (event.type === 'mounts-changed') events.push(...event.added.map((dir) => `mounted ${dir}`), ...event.removed.map((dir) => `unmounted ${dir}`));
      else events.push(`${event.type} ${event.mountPoint}`);
    });
  });
  // Killing the daemon frees every call stuck on it, even if a test failed.
  afterAll(() => dead?.cleanup());

  it('times out with ETIMEDOUT naming the path and the mount, while everything else keeps answering', async () => {
    const started = performance.now();
    const stuck = Array.from({ length: 8 }, () =>
      diskUsage(dead.dir, { timeout: TIMEOUT }).then(
        () => ({ error: undefined, at: performance.now() - started }),
        (error: NodeJS.ErrnoException) => ({ error, at: performance.now() - started }),
      ),
    );
    // Healthy mounts and Node's own fs (libuv's pool) answer before any stuck probe gives up.
    const healthy = await Promise.all([
      ...Array.from({ length: 8 }, () => diskUsage('/')),
      ...Array.from({ length: 8 }, () => readFile(join(projectRoot, 'package.json'), 'utf8')),
    ]);
    const healthyAt = performance.now() - started;
    expect(healthy).toHaveLength(16);
    const results = await Promise.all(stuck);
    for (const { error, at } of results) {
      expect(error?.code).toBe('ETIMEDOUT');
      expect(error?.message).toContain(dead.dir);
      expect(error?.message).toMatch(`not responding after ${TIMEOUT} ms`);
      expect((error as { mountPoint?: string }).mountPoint).toBe(dead.dir);
      expect(at).toBeGreaterThanOrEqual(TIMEOUT - 5);
    }
    expect(healthyAt).toBeLessThan(Math.min(...results.map((r) => r.at)));
    expect(events).toContain(`stuck ${dead.dir}`);
    expect(stuckMounts()).toContain(dead.dir);
  });

  it('fails fast, without another thread, while the earlier probe is stuck', async () => {
    const started = performance.now();
    await expect(diskUsage(dead.dir, { timeout: 60_000 })).rejects.toMatchObject({ code: 'ETIMEDOUT', mountPoint: dead.dir });
    expect(() => diskUsageSync(dead.dir)).toThrow(expect.objectContaining({ code: 'ETIMEDOUT' }));
    expect(() => diskUsageSync(join(dead.dir, 'x'), { timeout: 60_000 })).toThrow(expect.objectContaining({ code: 'ETIMEDOUT' }));
    // Nothing waited: a minute-long timeout would have shown.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('lists the dead mount without waiting on it', async () => {
    const mounts = await listMounts({ timeout: TIMEOUT });
    expect(mounts.map((m) => m.mountPoint)).toContain(dead.dir);
    expect(mounts.map((m) => m.mountPoint)).toContain('/');
  });

  it('gives every other mount its usage beside the dead one, within the timeout', async () => {
    const started = performance.now();
    const all = await mountsUsage({ timeout: TIMEOUT, bigint: true });
    expect(performance.now() - started).toBeLessThan(TIMEOUT + 2000);
    const deadOne = all.find(({ mount }) => mount.mountPoint === dead.dir);
    expect(deadOne).toMatchObject({ usage: null, error: { code: 'ETIMEDOUT', mountPoint: dead.dir } });
    const root = all.find(({ mount }) => mount.mountPoint === '/');
    expect(root?.error).toBeNull();
    expect(root?.usage?.total).toBe(BigInt(statfsSync('/', { bigint: true }).blocks) * BigInt(statfsSync('/', { bigint: true }).bsize));
    for (const { mount, usage, error } of all) if (mount.mountPoint !== dead.dir) expect(usage !== null || error !== null, mount.mountPoint).toBe(true);
  });

  it('lets a process exit while its probe of a dead mount is stuck', async () => {
    // This process holds the call the daemon is stuck on; the child's call
    // waits behind it in the kernel, killable, as a dead NFS server's calls
    // are. Its probe must neither keep it alive nor be joined at exit.
    const script = `import(${JSON.stringify(join(projectRoot, 'dist/index.js'))}).then(async (m) => {
      await m.diskUsage(process.argv[1], { timeout: 200 }).catch((e) => console.log(e.code));
      try { m.diskUsageSync(process.argv[1], { timeout: 200 }) } catch (e) { console.log(e.code) }
    })`;
    const child = spawn(process.execPath, ['-e', script, dead.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 10_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    if (exited === null) child.kill('SIGKILL');
    expect(exited).toBe(0);
    expect(output.trim().split('\n')).toEqual(['ETIMEDOUT', 'ETIMEDOUT']);
  });

  it("never holds libuv's thread pool: with UV_THREADPOOL_SIZE=1, fs and healthy probes answer while probes of two dead mounts are stuck", async () => {
    // A child with a one-thread pool: had a probe run there, the first one
    // stuck would starve every fs call behind it. The child is fresh (nothing
    // marked stuck), so its probes really go to the kernel and wait there.
    const other = await mountFuse('hang');
    const script = `
      const { once } = await import('node:events');
      const { readFile, stat } = await import('node:fs/promises');
      const m = await import(${JSON.stringify(join(projectRoot, 'dist/index.js'))});
      const packageJson = ${JSON.stringify(join(projectRoot, 'package.json'))};
      const [first, second] = process.argv.slice(1);
      let settled = 0;
      for (let i = 0; i < 4; i++) {
        for (const dir of [first, second]) m.diskUsage(dir, { timeout: 60_000 }).then(() => settled++, () => settled++);
      }
      console.log('probing');
      await once(process.stdin, 'data');  // the parent saw a probe reach a daemon
      // Each call alone, timed; one still waiting after 5 s reports that instead of hanging.
      async function timed(call) {
        const started = performance.now();
        let timer;
        const result = await Promise.race([
          call().then((value) => value, (error) => 'failed: ' + (error.code ?? error.message)),
          new Promise((resolve) => (timer = setTimeout(resolve, 5000, 'no answer in 5000 ms'))),
        ]);
        clearTimeout(timer);
        return { result, ms: Math.round(performance.now() - started) };
      }
      const report = {
        backend: m.backend,
        threadpool: process.env.UV_THREADPOOL_SIZE,
        readFile: await timed(() => readFile(packageJson, 'utf8').then((text) => JSON.parse(text).name)),
        stat: await timed(() => stat(packageJson).then((s) => s.isFile())),
        diskUsage: await timed(() => m.diskUsage('/').then((usage) => usage.mountPoint)),
        settled,
      };
      console.log(JSON.stringify(report));
      process.exit(0);  // its threads stuck on the daemons may hold the exit until they die: the parent reads, not waits
    `;
    const backendName = process.env.DISKPROBE_BACKEND!;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dead.dir, other.dir], {
      env: { ...process.env, UV_THREADPOOL_SIZE: '1', DISKPROBE_BACKEND: backendName },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.stdin.on('error', () => {}); // it died early: its output and stderr tell why
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const line = async (index: number, within: number): Promise<string> => {
      const deadline = Date.now() + within;
      while (output.split('\n').length <= index + 1) {
        // not yet index + 1 whole lines
        if (Date.now() > deadline) throw new Error(`the child printed ${JSON.stringify(output)} in ${within} ms, not line ${index + 1}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return output.split('\n')[index]!;
    };
    try {
      expect(await line(0, 10_000)).toBe('probing');
      // Nothing else touches `other`: once its daemon sleeps in its statfs
      // handler, a probe of the child's is stuck in the kernel.
      const deadline = Date.now() + 10_000;
      const wchanOf = () => readFileSync(`/proc/${other.pid}/wchan`, 'utf8');
      let wchan = wchanOf();
      while (!wchan.includes('pause') && wchan !== '0' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        wchan = wchanOf();
      }
      if (wchan === '0')
        await new Promise((r) => setTimeout(r, 1000)); // no wchan in this kernel: give the probes time instead
      else expect(wchan, 'the child never probed the second dead mount').toContain('pause');
      child.stdin.write('go\n');
      const report = JSON.parse(await line(1, 20_000)) as Record<string, unknown>;
      expect(report).toMatchObject({
        backend: backendName,
        threadpool: '1',
        readFile: { result: 'diskprobe' },
        stat: { result: true },
        diskUsage: { result: '/' },
        settled: 0, // all 8 stuck probes were still waiting
      });
      for (const call of ['readFile', 'stat', 'diskUsage']) expect((report[call] as { ms: number }).ms, call).toBeLessThan(1000);
    } finally {
      // Its helper processes (statfs backend) too: calls waiting on `dead`
      // are killable; the ones `other` took end when its daemon dies.
      const helpers = childrenOf(child.pid!);
      child.kill('SIGKILL');
      for (const pid of helpers) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      other.cleanup();
    }
  });

  it('never blocks longer than its timeout in diskUsageSync', async () => {
    const other = await mountFuse('hang');
    try {
      // The fallback has no change signal, and its table may be up to a second
      // old (docs/dead-mounts.md): read afresh, or the probe of a mount made a
      // moment ago is put on the mount below it (/), which would then be marked.
      // (all: true probes nothing; the default probes each mount's size.)
      expect((await listMounts({ all: true })).map(({ mountPoint }) => mountPoint)).toContain(other.dir);
      const started = performance.now();
      expect(() => diskUsageSync(other.dir, { timeout: TIMEOUT })).toThrow(expect.objectContaining({ code: 'ETIMEDOUT' }));
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(TIMEOUT - 5);
      expect(took).toBeLessThan(TIMEOUT + 2000);
    } finally {
      other.cleanup();
    }
  });

  // On the fallback, the documented limit (docs/dead-mounts.md): fs.statfs
  // cannot tell a path that leads off its mount, so the mount is marked. In a
  // child, since the mark would hold the temp dir's mount for the rest of this file.
  if (process.env.DISKPROBE_BACKEND === 'statfs') {
    it('marks the mount a symlink into the dead one lies on, which the fallback cannot tell apart', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'diskprobe-link-'));
      try {
        const link = join(dir, 'link');
        symlinkSync(dead.dir, link);
        const holder = (await diskUsage(dir)).mountPoint!;
        const script = `
          const m = await import(${JSON.stringify(join(projectRoot, 'dist/index.js'))});
          const error = await m.diskUsage(process.argv[1], { timeout: ${TIMEOUT} }).then(() => undefined, (e) => e);
          console.log(JSON.stringify({ backend: m.backend, code: error?.code, mountPoint: error?.mountPoint, stuck: m.stuckMounts() }));
          process.exit(0);`;
        const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, link], {
          encoding: 'utf8',
          timeout: 20_000,
          env: { ...process.env, DISKPROBE_BACKEND: 'statfs' },
        });
        expect(JSON.parse(child.stdout)).toEqual({ backend: 'statfs', code: 'ETIMEDOUT', mountPoint: holder, stuck: [holder] });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  } else {
    const offMountSkip = process.platform !== 'linux' ? 'inline probes, which tell a path that leads off its mount, are Linux only' : undefined;
    it.skipIf(announceSkip('a symlink into the dead mount', offMountSkip))(
      'marks only the path stuck when a symlink on a mount that keeps its counts in memory leads into the dead one',
      async () => {
        // The temp dir's file system answers statfs from memory (ext4, tmpfs, ...):
        // a probe there hangs only where the path leads off it.
        const dir = mkdtempSync(join(tmpdir(), 'diskprobe-link-'));
        try {
          const link = join(dir, 'link');
          symlinkSync(dead.dir, link);
          mkdirSync(join(dir, 'sub'));
          writeFileSync(join(dir, 'file'), 'x');
          const holder = (await diskUsage(dir)).mountPoint!;
          const started = performance.now();
          const stuck = diskUsage(link, { timeout: TIMEOUT });
          // Queued behind the stuck probe in its mount's lane (".." keeps them off the inline path).
          const behind = Array.from({ length: 4 }, () => diskUsage(join(dir, 'sub', '..', 'file'), { timeout: 10 * TIMEOUT }));
          await expect(stuck).rejects.toMatchObject({ code: 'ETIMEDOUT', mountPoint: link, message: expect.stringContaining('which leads off its mount') });
          for (const usage of await Promise.all(behind)) expect(usage.mountPoint).toBe(holder);
          expect(performance.now() - started).toBeLessThan(3 * TIMEOUT);
          expect(stuckMounts()).toContain(link);
          expect(stuckMounts()).not.toContain(holder);
          // The mount goes on answering, the link fails fast, and a sync probe of it is bounded.
          expect(diskUsageSync(join(dir, 'sub')).mountPoint).toBe(holder);
          expect((await diskUsage(join(dir, 'sub', '..'))).mountPoint).toBe(holder);
          await expect(diskUsage(link, { timeout: 60_000 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
          expect(() => diskUsageSync(link, { timeout: 60_000 })).toThrow(expect.objectContaining({ code: 'ETIMEDOUT' }));
          // So do paths below it, without another thread each.
          await expect(diskUsage(join(link, 'deeper', 'still'), { timeout: 60_000 })).rejects.toMatchObject({ code: 'ETIMEDOUT', mountPoint: link });
          // A new link into it is not known to be stuck, but a mount is: a sync
          // probe without a timeout gets the default one instead of hanging.
          const fresh = join(dir, 'fresh-link');
          symlinkSync(dead.dir, fresh);
          const freshStarted = performance.now();
          expect(() => diskUsageSync(fresh)).toThrow(expect.objectContaining({ code: 'ETIMEDOUT', message: expect.stringContaining('after 5000 ms') }));
          expect(performance.now() - freshStarted).toBeLessThan(5000 + 2000);
          expect(diskUsageSync(join(dir, 'file')).mountPoint).toBe(holder);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );

    it.skipIf(announceSkip('a cold symlink into the dead mount', offMountSkip ?? rootSkipReason))(
      "marks only the path stuck when the symlink is not in the kernel's cache yet",
      async () => {
        // A fresh mount of an ext4 image that already holds the links: nothing
        // below its root is cached, so the inline probe cannot place them, and
        // the addon's thread has to, before the probe follows them.
        const disk = mountExt4(16, 0, (dir) => {
          mkdirSync(join(dir, 'sub'));
          writeFileSync(join(dir, 'sub', 'file'), 'x');
          symlinkSync(dead.dir, join(dir, 'sub', 'link'));
          symlinkSync(dead.dir, join(dir, 'sub', 'other-link'));
        });
        try {
          const link = join(disk.dir, 'sub', 'link');
          const stuck = diskUsage(link, { timeout: TIMEOUT });
          const stuckAt = stuck.catch(() => performance.now());
          // Queued after it in its mount's lane, and cold too: answered, not held up until their own timeout.
          const behind = await Promise.all(Array.from({ length: 4 }, () => diskUsage(join(disk.dir, 'sub', 'file'), { timeout: 20 * TIMEOUT })));
          const behindAt = performance.now();
          for (const usage of behind) expect(usage.mountPoint).toBe(disk.dir);
          expect(behindAt).toBeLessThan((await stuckAt) as number);
          await expect(stuck).rejects.toMatchObject({ code: 'ETIMEDOUT', mountPoint: link, message: expect.stringContaining('which leads off its mount') });
          expect(stuckMounts()).toContain(link);
          expect(stuckMounts()).not.toContain(disk.dir);
          expect((await diskUsage(disk.dir)).mountPoint).toBe(disk.dir);
          // The link fails fast from now on, without another thread.
          const again = performance.now();
          await expect(diskUsage(link, { timeout: 60_000 })).rejects.toMatchObject({ code: 'ETIMEDOUT', mountPoint: link });
          expect(() => diskUsageSync(link, { timeout: 60_000 })).toThrow(expect.objectContaining({ code: 'ETIMEDOUT' }));
          expect(performance.now() - again).toBeLessThan(10_000); // far below the 60 s a wait would take
          // A synchronous probe with a timeout tells a cold link apart the same way.
          const other = join(disk.dir, 'sub', 'other-link');
          expect(() => diskUsageSync(other, { timeout: TIMEOUT })).toThrow(expect.objectContaining({ code: 'ETIMEDOUT', mountPoint: other }));
          expect(stuckMounts()).not.toContain(disk.dir);
          expect(diskUsageSync(join(disk.dir, 'sub', 'file'), { timeout: TIMEOUT }).mountPoint).toBe(disk.dir);
        } finally {
          disk.cleanup();
        }
      },
    );
  }

  it('is healthy again once the mount answers', async () => {
    dead.cleanup(); // the daemon dies: stuck calls return ENOTCONN
    const deadline = Date.now() + 10_000;
    let error: NodeJS.ErrnoException | undefined;
    do {
      await new Promise((r) => setTimeout(r, 50));
      error = await diskUsage(dead.dir, { timeout: 2000 }).then(
        () => undefined,
        (e: NodeJS.ErrnoException) => e,
      );
    } while (error?.code === 'ETIMEDOUT' && Date.now() < deadline);
    expect(error?.code).not.toBe('ETIMEDOUT');
    expect(events).toContain(`recovered ${dead.dir}`);
    expect(stuckMounts()).not.toContain(dead.dir);
    await listMounts();
    expect(events).toContain(`unmounted ${dead.dir}`);
  });
});
