// The public API's contract, run once per backend (see vitest.config.ts).
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, realpathSync, rmSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, isRoot, posixPathsSkipReason, projectRoot, tempDir } from '../helpers/system.js';
import { backend, type DiskUsage, diskUsage, diskUsageSync, listMounts, mountsUsage, stuckMounts } from '../lib.js';

const expected = process.env.DISKPROBE_BACKEND as 'native' | 'statfs';

function expectComplete(usage: DiskUsage<number> | DiskUsage<bigint>): void {
  for (const [key, value] of Object.entries(usage)) expect(value, key).not.toBeUndefined();
  if (usage.inodes) for (const [key, value] of Object.entries(usage.inodes)) expect(value, `inodes.${key}`).not.toBeUndefined();
}

describe.skipIf(announceSkip(`the API contract (${expected})`, posixPathsSkipReason))(`diskprobe on the ${expected} backend`, () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers with the backend DISKPROBE_BACKEND asked for', async () => {
    expect(backend).toBe(expected);
    expect(diskUsageSync('/').backend).toBe(expected);
    expect((await diskUsage('/')).backend).toBe(expected);
  });

  it('reports the root file system whole, with no undefined field', async () => {
    for (const usage of [diskUsageSync('/'), await diskUsage('/'), diskUsageSync('/', { timeout: 5000 })]) {
      expectComplete(usage);
      expect(usage.path).toBe('/');
      expect(usage.mountPoint).toBe('/');
      expect(usage.fsType).toMatch(/\w/);
      expect(usage.used).toBe(usage.total - usage.free);
      expect(usage.free).toBeGreaterThanOrEqual(usage.available);
      expect(usage.usedPercent).toBeGreaterThan(0);
      expect(usage.usedPercent).toBeLessThanOrEqual(100);
      expect(Number.isInteger(usage.total)).toBe(true);
    }
  });

  it('matches fs.statfs counts on an ordinary file system (bsize = frsize there)', () => {
    const node = statfsSync(dir, { bigint: true });
    const ours = diskUsageSync(dir, { bigint: true });
    expect(ours.total).toBe(node.blocks * node.bsize);
    expect(ours.blockSize).toBe(node.bsize);
    expect(ours.inodes?.total).toBe(node.files);
  });

  it('gives bigint counts with { bigint: true }, on every entry point', async () => {
    const usages = [diskUsageSync(dir, { bigint: true }), await diskUsage(dir, { bigint: true }), diskUsageSync(dir, { bigint: true, timeout: 5000 })];
    for (const usage of usages) {
      expectComplete(usage);
      expect(typeof usage.total).toBe('bigint');
      expect(typeof usage.blockSize).toBe('bigint');
      expect(typeof usage.usedPercent).toBe('number');
      expect(usage.used).toBe(usage.total - usage.free);
    }
  });

  it('works on a file as well as a directory', async () => {
    const file = join(dir, 'file');
    expect(diskUsageSync(file).mountPoint).toBe(diskUsageSync(dir).mountPoint);
    expect((await diskUsage(file)).path).toBe(file);
  });

  it('resolves a relative path against the current directory, as fs does', async () => {
    const rel = relative(process.cwd(), dir);
    expect(diskUsageSync(rel).path).toBe(dir);
    expect((await diskUsage(rel)).path).toBe(dir);
    expect(diskUsageSync('.').path).toBe(process.cwd());
  });

  it('resolves a relative path against the directory current at the call, even when it changes before the probe runs', async () => {
    const start = process.cwd();
    try {
      process.chdir(dir);
      // Asked for in `dir`; the probe runs later, on a thread or in a helper process.
      const pending = [diskUsage('file'), diskUsage('.'), diskUsage('file', { bigint: true })] as const;
      process.chdir(start);
      const [file, here, big] = await Promise.all(pending);
      expect(file.path).toBe(join(dir, 'file'));
      expect(here.path).toBe(dir);
      expect(big.path).toBe(join(dir, 'file'));
      expect(file.mountPoint).toBe(diskUsageSync(dir).mountPoint);
    } finally {
      process.chdir(start);
    }
  });

  it('probes a path again on every call: one removed since gives ENOENT, not what the last call learned', async () => {
    const gone = join(dir, 'soon-gone');
    mkdirSync(gone);
    for (let i = 0; i < 3; i++) expect(diskUsageSync(gone).path).toBe(gone); // learned, then the quick way
    rmSync(gone, { recursive: true });
    expect(() => diskUsageSync(gone)).toThrow(expect.objectContaining({ code: 'ENOENT', path: gone }));
    await expect(diskUsage(gone)).rejects.toMatchObject({ code: 'ENOENT', path: gone });
  });

  it('gives the kernel the path as written, as fs does: ".." after a symlink goes up from its target, "file/" is ENOTDIR, "missing/.." ENOENT', async () => {
    const shm = '/dev/shm';
    symlinkSync(shm, join(dir, 'shm-link'));
    try {
      const viaLink = `${dir}/shm-link/..`; // the kernel: /dev, not `dir` (join() would normalize it away)
      const node = statfsSync(viaLink, { bigint: true });
      for (const usage of [
        diskUsageSync(viaLink, { bigint: true }),
        await diskUsage(viaLink, { bigint: true }),
        diskUsageSync(viaLink, { bigint: true, timeout: 5000 }),
      ]) {
        expect(usage.total).toBe(node.blocks * node.bsize);
        expect(usage.mountPoint).toBe(diskUsageSync(realpathSync.native(viaLink)).mountPoint); // the kernel's answer: fs.realpathSync would drop the ".." by name first
      }
      const start = process.cwd();
      try {
        process.chdir(dir);
        expect(diskUsageSync('shm-link/..', { bigint: true }).total).toBe(node.blocks * node.bsize);
        expect((await diskUsage('shm-link/..', { bigint: true })).total).toBe(node.blocks * node.bsize);
      } finally {
        process.chdir(start);
      }
    } finally {
      rmSync(join(dir, 'shm-link'));
    }
    for (const [path, code] of [
      [`${join(dir, 'file')}/`, 'ENOTDIR'],
      [`${dir}/file/..`, 'ENOTDIR'],
      [`${dir}/missing/..`, 'ENOENT'],
    ] as const) {
      // Named as written, as fs names them: not as the directory they are by name.
      expect(() => statfsSync(path)).toThrow(expect.objectContaining({ code, path }));
      expect(() => diskUsageSync(path)).toThrow(expect.objectContaining({ code, path, message: expect.stringContaining(`'${path}'`) }));
      await expect(diskUsage(path)).rejects.toMatchObject({ code, path });
    }
    // A relative one, made absolute against the working directory.
    expect(() => diskUsageSync('missing-here/..')).toThrow(expect.objectContaining({ code: 'ENOENT', path: `${process.cwd()}/missing-here/..` }));
  });

  it('refuses an empty path with ENOENT naming it, as fs does, instead of probing the current directory', async () => {
    expect(() => diskUsageSync('')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '' }));
    await expect(diskUsage('')).rejects.toMatchObject({ code: 'ENOENT', path: '' });
  });

  it('throws a TypeError for a path that is not a string', async () => {
    for (const bad of [undefined, null, 42, {}, Buffer.from('/')]) {
      expect(() => diskUsageSync(bad as never)).toThrow(TypeError);
      await expect(diskUsage(bad as never)).rejects.toThrow(TypeError);
    }
    expect(() => diskUsageSync(42 as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('refuses a NUL byte with ERR_INVALID_ARG_VALUE, as fs does', async () => {
    expect(() => diskUsageSync('/tmp\0/x')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE', name: 'TypeError' }));
    await expect(diskUsage('/\0')).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
  });

  it('refuses a lone surrogate, which fs would quietly turn into U+FFFD, the name of another file', async () => {
    for (const path of ['/tmp/\ud800', '/tmp/x\udfff', '/\udc00\ud800']) {
      expect(() => diskUsageSync(path)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE', message: expect.stringContaining('lone surrogate') }));
      await expect(diskUsage(path)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
    }
    // A pair is one character, and fine.
    expect(() => diskUsageSync('/tmp/\ud83d\ude00-missing')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it.skipIf(announceSkip('PATH_MAX of 4096 bytes', process.platform === 'linux' ? undefined : "Linux's PATH_MAX"))(
    'refuses a path of PATH_MAX bytes or more with ENAMETOOLONG before any lookup, as the kernel would',
    async () => {
      const syscall = backend === 'native' ? 'statvfs' : 'statfs';
      const atLimit = `/${'x'.repeat(4095)}`;
      const huge = `/${'y/'.repeat(2 ** 20)}`;
      for (const path of [atLimit, huge, `/${'é'.repeat(2048)}`]) {
        expect(() => diskUsageSync(path)).toThrow(expect.objectContaining({ code: 'ENAMETOOLONG', syscall, path }));
        await expect(diskUsage(path)).rejects.toMatchObject({ code: 'ENAMETOOLONG', syscall });
      }
      // One byte less reaches the file system, which has its own limit per name (NAME_MAX).
      expect(() => diskUsageSync(`/tmp/${'x/'.repeat(2044)}`)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    },
  );

  it('rejects bad options clearly', async () => {
    for (const timeout of [0, -1, NaN, 2 ** 31]) {
      expect(() => diskUsageSync('/', { timeout })).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE', name: 'RangeError' }));
      await expect(diskUsage('/', { timeout })).rejects.toMatchObject({ code: 'ERR_OUT_OF_RANGE' });
    }
    for (const timeout of ['5', null, {}] as never[]) {
      expect(() => diskUsageSync('/', { timeout })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }));
      await expect(diskUsage('/', { timeout })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    }
    await expect(diskUsage('/', { signal: {} as never })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    for (const options of [5, 'bigint', true]) {
      expect(() => diskUsageSync('/', options as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }));
      await expect(diskUsage('/', options as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    }
  });

  it('refuses an option it does not take, naming it, the one meant, and the ones it takes', async () => {
    const unknown = (key: string, meant: string | undefined, known: string) =>
      expect.objectContaining({
        name: 'TypeError',
        code: 'ERR_INVALID_ARG_VALUE',
        message: `The "options" argument has an unknown property "${key}"${meant ? ` (did you mean "${meant}"?)` : ''}. Known: ${known}`,
      });
    expect(() => diskUsageSync('/', { timeot: 100 } as never)).toThrow(unknown('timeot', 'timeout', 'bigint, timeout'));
    await expect(diskUsage('/', { bigInt: true } as never)).rejects.toEqual(unknown('bigInt', 'bigint', 'bigint, timeout, signal'));
    await expect(diskUsage('/', { colour: 'red' } as never)).rejects.toEqual(unknown('colour', undefined, 'bigint, timeout, signal'));
    await expect(mountsUsage({ al: true } as never)).rejects.toEqual(unknown('al', 'all', 'all, bigint, timeout, signal'));
    await expect(listMounts({ bigint: true } as never)).rejects.toEqual(unknown('bigint', undefined, 'all, timeout, signal'));
    // A key set to undefined is still a misspelling; inherited keys are not the caller's.
    expect(() => diskUsageSync('/', { timout: undefined } as never)).toThrow(unknown('timout', 'timeout', 'bigint, timeout'));
    expect(diskUsageSync('/', Object.create({ inherited: 1 })).mountPoint).toBe('/');
  });

  it('takes a fractional timeout as the next whole millisecond', async () => {
    // 0.5 ms was 0 to the addon's pool (an instant ETIMEDOUT that marked "/") and a RangeError to child_process.
    const outcome = (probe: () => unknown): unknown => {
      try {
        return probe();
      } catch (error) {
        return error;
      }
    };
    for (const timeout of [0.5, 1.5]) {
      // The fallback may not start its helper process in 1 or 2 ms: that is its own clear ETIMEDOUT.
      for (const result of [outcome(() => diskUsageSync('/', { timeout })), await diskUsage('/', { timeout }).catch((error: unknown) => error)]) {
        if (result instanceof Error) expect(result).toMatchObject({ code: 'ETIMEDOUT', timeout: Math.ceil(timeout) });
        else expect(result).toMatchObject({ mountPoint: '/' });
      }
    }
    // A probe given 1 ms may outlast it and mark "/" until it returns (on the fallback, a
    // helper's probe takes longer than that): then it is healthy again.
    for (const until = Date.now() + 10_000; stuckMounts().length > 0 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stuckMounts()).toEqual([]);
    expect(diskUsageSync('/', { timeout: 5000.5 }).mountPoint).toBe('/');
  });

  it('gives every mount listMounts lists its usage, in the same order, in one call', async () => {
    const [listed, withUsage] = await Promise.all([listMounts(), mountsUsage()]);
    expect(withUsage.map(({ mount }) => mount)).toEqual(listed);
    for (const { mount, usage, error } of withUsage) {
      expect(usage === null ? error : usage.mountPoint, mount.mountPoint).toEqual(
        usage === null ? expect.objectContaining({ code: expect.any(String) }) : mount.mountPoint,
      );
    }
    const exact = await mountsUsage({ bigint: true });
    expect(typeof exact.find(({ usage }) => usage !== null)?.usage?.total).toBe('bigint');
    for (const bad of [{ all: 'yes' }, { bigint: 1 }, { timeout: 'soon' }] as never[])
      await expect(mountsUsage(bad)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    await expect(mountsUsage({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('checks listMounts options: all must be a boolean, and an aborted signal rejects with all as well', async () => {
    for (const all of ['yes', 1, null] as never[]) await expect(listMounts({ all })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    for (const all of [true, false]) await expect(listMounts({ all, signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    // One listener on the caller's signal while it lists, none after.
    const controller = new AbortController();
    const listing = listMounts({ signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    expect((await listing).length).toBeGreaterThan(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it.skipIf(announceSkip('/proc/self paths', process.platform === 'linux' && existsSync('/dev/shm') ? undefined : 'needs Linux and /dev/shm'))(
    'answers /proc/self, /dev/fd and /dev/stdin for this process, not a helper',
    async () => {
      // The fallback probes in helper processes, where these would name the helper.
      const file = join('/dev/shm', `diskprobe-self-${process.pid}`);
      const fd = openSync(file, 'w');
      try {
        for (const path of [`/proc/self/fd/${fd}`, `/dev/fd/${fd}`]) {
          expect((await diskUsage(path)).mountPoint).toBe('/dev/shm');
          expect(diskUsageSync(path, { timeout: 5000 }).mountPoint).toBe('/dev/shm');
          expect(diskUsageSync(path).mountPoint).toBe('/dev/shm');
        }
      } finally {
        closeSync(fd);
        rmSync(file);
      }
    },
  );

  it('takes null options as none', async () => {
    expect(diskUsageSync('/', null).mountPoint).toBe('/');
    expect((await diskUsage('/', null)).mountPoint).toBe('/');
  });

  it.each([
    ['a missing path', 'missing', 'ENOENT'],
    ['a path through a file', 'file/below', 'ENOTDIR'],
  ])('names the path in an fs-style error for %s', async (_, name, code) => {
    const path = join(dir, name);
    const check = (error: unknown): void => {
      expect(error).toMatchObject({ code, path, errno: expect.any(Number), syscall: expect.any(String) });
      expect((error as Error).message).toContain(path);
      expect((error as Error).message).toMatch(new RegExp(`^${code}: `));
    };
    let thrown: unknown;
    try {
      diskUsageSync(path);
    } catch (error) {
      thrown = error;
    }
    check(thrown);
    check(await diskUsage(path).catch((error: unknown) => error));
    try {
      diskUsageSync(path, { timeout: 5000 });
      thrown = undefined;
    } catch (error) {
      thrown = error;
    }
    check(thrown);
  });

  it('reports ENAMETOOLONG for a path longer than PATH_MAX', async () => {
    const long = `/${'a/'.repeat(3000)}`;
    expect(() => diskUsageSync(long)).toThrow(expect.objectContaining({ code: 'ENAMETOOLONG' }));
    await expect(diskUsage(long)).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
  });

  // The probe runs as nobody, who must be able to read the package: not so in a clone under a private folder (/root, a 0700 home).
  const nobodyReadsPackage = () =>
    spawnSync(process.execPath, ['-e', 'require("fs").accessSync(process.argv[1], require("fs").constants.R_OK)', join(projectRoot, 'dist/index.js')], {
      uid: 65534,
      gid: 65534,
    }).status === 0;
  const eaccesSkipReason = !isRoot
    ? 'needs root to run a probe as another user'
    : !nobodyReadsPackage()
      ? `uid 65534 cannot read ${projectRoot}dist/index.js (a folder above the project is not world-searchable)`
      : undefined;
  it.skipIf(announceSkip(`EACCES as uid 65534 (${expected})`, eaccesSkipReason))('reports EACCES for a path the caller may not search', () => {
    const locked = join(dir, 'locked');
    mkdirSync(join(locked, 'inside'), { recursive: true });
    chmodSync(locked, 0o700);
    chmodSync(dir, 0o755);
    // Root passes every permission check, so ask as nobody.
    const script = `import('${join(projectRoot, 'dist/index.js')}').then(async (m) => {
      const out = [];
      try { m.diskUsageSync(process.argv[1]) } catch (e) { out.push(e.code) }
      await m.diskUsage(process.argv[1]).catch((e) => out.push(e.code));
      console.log(out.join(' '));
    })`;
    const result = spawnSync(process.execPath, ['-e', script, join(locked, 'inside')], { uid: 65534, gid: 65534, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('EACCES EACCES');
  });

  it('does not blame a healthy mount for a timeout shorter than a helper process takes to start', () => {
    // A fresh process: the fallback has no helper running yet, and starting one takes ~50 ms.
    const script = `import('${join(projectRoot, 'dist/index.js')}').then(async (m) => {
      const out = {};
      try { m.diskUsageSync(process.argv[1], { timeout: 3 }); out.sync = 'answered' } catch (e) { out.sync = e.message }
      const settled = await Promise.allSettled([m.diskUsage('/', { timeout: 20 }), m.diskUsage(process.argv[1], { timeout: 20 })]);
      out.async = settled.map((s) => s.status === 'fulfilled' ? 'answered' : s.reason.message);
      out.stuck = m.stuckMounts();
      out.after = [m.diskUsageSync(process.argv[1]).path, (await m.diskUsage(process.argv[1])).path];
      console.log(JSON.stringify(out));
    })`;
    const result = spawnSync(process.execPath, ['-e', script, dir], { encoding: 'utf8', env: { ...process.env, DISKPROBE_BACKEND: expected } });
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout) as { sync: string; async: string[]; stuck: string[]; after: string[] };
    // The sync call must return within its 3 ms: the fallback cannot start a helper that fast, and says so.
    if (expected === 'statfs') expect(out.sync).toMatch(/^ETIMEDOUT: the fs\.statfs fallback's helper process did not start within 3 ms/);
    else expect(out.sync).toBe('answered');
    // The asynchronous calls give the mount its 20 ms (less than a helper's start-up) once a helper holds the probe.
    expect(out.async).toEqual(['answered', 'answered']);
    expect(out.stuck).toEqual([]);
    expect(out.after).toEqual([dir, dir]);
    // A helper cut off before it started is killed, not left to run (or to hang on a dead mount).
    const deadline = Date.now() + 2000;
    const helpersLeft = () => spawnSync('pgrep', ['-f', `statfsHelper.js --once ${dir}`], { encoding: 'utf8' }).stdout.trim();
    let left = helpersLeft();
    while (left !== '' && Date.now() < deadline) {
      spawnSync('sleep', ['0.1']);
      left = helpersLeft();
    }
    expect(left).toBe('');
  });

  it('rejects with an AbortError when the signal aborts, and at once when it already has', async () => {
    await expect(diskUsage('/', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    const controller = new AbortController();
    const pending = diskUsage('/', { signal: controller.signal });
    controller.abort(new Error('enough'));
    // Either outcome is legal once the call is under way; a settled promise is not.
    await pending.then(
      (usage) => expect(usage.mountPoint).toBe('/'),
      (error: Error) => expect(error.name).toBe('AbortError'),
    );
  });

  it('answers many concurrent probes, each exactly once', async () => {
    const paths = Array.from({ length: 200 }, (_, i) => (i % 2 ? '/' : dir));
    const usages = await Promise.all(paths.map((path) => diskUsage(path)));
    expect(usages.map((usage) => usage.path)).toEqual(paths);
  });
});
