// --root: paths count by where they really are, and a refusal reads the same
// whether the path exists or not.
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskUsageTool } from '../../dist/mcp/features/tools/diskUsageTool.js';
import { RootPolicy } from '../../dist/mcp/protocol/roots.js';
import { parseMountInfo } from '../../dist/probe/mountInfo.js';
import { MountTable } from '../../dist/probe/mountTable.js';
import { announceSkip, bindMount, mountTmpfs, posixPathsSkipReason, rootSkipReason, type TestMount, tempDir } from '../helpers/system.js';

const toolContext = (policy: RootPolicy) => ({
  signal: new AbortController().signal,
  probeTimeout: 2000,
  walkBudgetMs: 20_000,
  roots: policy,
  progress() {},
  log() {},
});
const refusalOf = (path: string, root: string) => ({
  text: `EACCES: ${path}: outside the allowed roots (${root}); ask about a path under one of them`,
  isError: true,
});

// The refusals name the root as the test spells it, which is its real path only where the temp dir is one (not macOS's /var → /private/var).
const realTempSkipReason =
  posixPathsSkipReason ??
  (realpathSync.native(tmpdir()) === tmpdir() ? undefined : `the temp dir ${tmpdir()} is not its real path (${realpathSync.native(tmpdir())})`);

describe.skipIf(announceSkip('RootPolicy in a temp dir', realTempSkipReason))('RootPolicy with the disk_usage tool', () => {
  let base: string;
  let root: string;
  let policy: RootPolicy;
  const call = async (path: string) => diskUsageTool.call({ path }, toolContext(policy));

  beforeAll(() => {
    base = tempDir();
    root = join(base, 'allowed');
    mkdirSync(join(root, 'inside'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'secret'), 'x');
    symlinkSync(join(base, 'outside'), join(root, 'escape'));
    symlinkSync(join(root, 'inside'), join(base, 'into-root'));
    policy = new RootPolicy([root]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('allows paths under a root, existing or not', async () => {
    expect((await call(join(root, 'inside'))).isError).toBeFalsy();
    expect((await call(join(root, 'missing'))).text).toBe(`ENOENT: ${join(root, 'missing')}: no such file or directory`);
    // A link from outside into the root is judged by its target.
    expect((await call(join(base, 'into-root'))).isError).toBeFalsy();
  });

  it('refuses symlinks out of the root and ".." the same way as paths that do not exist', async () => {
    const refused = [
      join(root, 'escape'),
      join(root, 'escape', 'secret'),
      join(root, '..', 'outside'),
      join(root, 'escape', 'missing'),
      join(base, 'outside', 'nope'),
      '/etc',
    ];
    for (const path of refused) {
      const result = await call(path);
      expect(result).toEqual(refusalOf(path, root));
    }
  });

  it('refuses a NUL byte, a lone surrogate and a path over PATH_MAX, judging them by name only', async () => {
    // Inside the root: the path itself is the problem, and the answer says why.
    const nul = await call(`${root}/inside\0/etc`);
    expect(nul.isError).toBe(true);
    expect(nul.text).toMatch(/^ERR_INVALID_ARG_VALUE: .*without null bytes/);
    // fs would turn the surrogate into U+FFFD and probe another name.
    const lone = await call(`${root}/inside/\ud800`);
    expect(lone.isError).toBe(true);
    expect(lone.text).toMatch(/^ERR_INVALID_ARG_VALUE: .*lone surrogate/);
    const long = await call(`${root}/${'a/'.repeat(3000)}`);
    expect(long.isError).toBe(true);
    expect(long.text).toMatch(/^ENAMETOOLONG: .*…\(\d+ characters\)….*: name too long$/);
    expect(long.text.length).toBeLessThan(2000);
    // Outside: the one refusal, as for every other path there.
    for (const path of [`${base}/outside\0x`, `${base}/outside/\udc00`, `/etc/${'b'.repeat(5000)}`]) {
      const result = await call(path);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^EACCES: .*: outside the allowed roots/);
    }
  });

  it.skipIf(announceSkip('names that are not UTF-8', process.platform === 'linux' ? undefined : 'only Linux file systems take any bytes as a name'))(
    'refuses a path whose real path is not valid UTF-8, even where its lossy string would lie in a root',
    async () => {
      // Outside: a directory named by the byte 0xff. Inside the root: one named U+FFFD, the
      // character a lossy decoding of 0xff gives, and a link to the 0xff directory.
      const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
      const parentBytes = Buffer.concat([bytes(base), bytes('/')]);
      const invalid = Buffer.concat([parentBytes, Buffer.from([0xff])]);
      mkdirSync(invalid);
      const lookalikeRoot = join(base, '\ufffd');
      mkdirSync(lookalikeRoot);
      const lookalike = new RootPolicy([lookalikeRoot]);
      symlinkSync(invalid, Buffer.concat([bytes(lookalikeRoot), bytes('/link')]));
      const result = await diskUsageTool.call({ path: join(lookalikeRoot, 'link') }, toolContext(lookalike));
      expect(result).toEqual(refusalOf(join(lookalikeRoot, 'link'), lookalikeRoot));
      expect((await diskUsageTool.call({ path: lookalikeRoot }, toolContext(lookalike))).isError).toBeFalsy();
      // A root whose real path is not UTF-8 is refused at startup.
      expect(() => new RootPolicy([join(lookalikeRoot, 'link')])).toThrow('is not valid UTF-8');
    },
  );

  it('answers an existing path and a missing one outside the roots identically', async () => {
    const existing = join(base, 'outside', 'secret');
    const missing = join(base, 'outside', 'absent');
    const [a, b] = [await call(existing), await call(missing)];
    expect(a.text.replace(existing, '<path>')).toBe(b.text.replace(missing, '<path>'));
    expect(a).toEqual(refusalOf(existing, root));
  });

  it('refuses to start with a root that does not exist', () => {
    expect(() => new RootPolicy([join(base, 'nowhere')])).toThrow(`--root ${join(base, 'nowhere')}: no such directory`);
  });
});

describe('MountTable.source: where a path lies in its file system', () => {
  // mountinfo lines: id parent major:minor root mountPoint options - type source superOptions
  const table = new MountTable(
    parseMountInfo(
      ['1 0 8:1 / / rw - ext4 /dev/sda1 rw', '2 1 8:1 /etc /data/etc rw - ext4 /dev/sda1 rw', '3 1 0:40 / /data/tmp rw - tmpfs tmpfs rw'].join('\n'),
    ),
  );

  it('gives the mount, its device and root, and the place inside the device', () => {
    expect(table.source('/data/etc/passwd')).toEqual({ mountPoint: '/data/etc', deviceKey: 8 * 1048576 + 1, root: '/etc', inDevice: '/etc/passwd' });
    expect(table.source('/data/tmp')).toEqual({ mountPoint: '/data/tmp', deviceKey: 40, root: '/', inDevice: '/' });
    expect(table.source('/srv/x')).toMatchObject({ mountPoint: '/', inDevice: '/srv/x' });
  });

  it('gives the other names a bind mount gives a directory', () => {
    expect(table.aliases('/data/etc/passwd')).toEqual(['/etc/passwd']);
    expect(table.aliases('/etc')).toEqual(['/data/etc']);
    expect(table.aliases('/data/tmp/x')).toEqual([]);
  });
});

describe.skipIf(announceSkip('roots against real bind mounts', rootSkipReason))('RootPolicy with real bind mounts', () => {
  const mounts: TestMount[] = [];
  let base: string;
  afterAll(() => {
    for (const mount of mounts.reverse()) mount.cleanup();
    rmSync(base, { recursive: true, force: true });
  });

  it("refuses a bind mount of an outside directory inside a root, and allows mounts that are the root's own", async () => {
    // Everything lives on one tmpfs, so its directories can be bound elsewhere on it.
    base = tempDir();
    mounts.push(mountTmpfs('size=8m', base));
    const root = join(base, 'root');
    mkdirSync(join(root, 'own'), { recursive: true });
    mkdirSync(join(base, 'outside'), { recursive: true });
    writeFileSync(join(base, 'outside', 'secret'), 'x');
    mkdirSync(join(root, 'window'));
    mkdirSync(join(root, 'mirror'));
    mkdirSync(join(root, 'scratch'));
    mkdirSync(join(root, 'whole'));
    mounts.push(bindMount(join(base, 'outside'), join(root, 'window')));
    mounts.push(bindMount(join(root, 'own'), join(root, 'mirror')));
    mounts.push(mountTmpfs('size=1m', join(root, 'scratch')));
    // The root's whole file system, bound inside the root: it shows what lies outside too.
    mounts.push(bindMount(base, join(root, 'whole')));
    // A directory of the root bound outside it: still the root's to show.
    mounts.push(bindMount(join(root, 'own'), join(base, 'exposed')));
    const policy = new RootPolicy([root]);
    const call = async (path: string) => diskUsageTool.call({ path }, toolContext(policy));

    // A window onto an outside directory: refused, existing or not.
    expect(await call(join(root, 'window', 'secret'))).toEqual(refusalOf(join(root, 'window', 'secret'), root));
    expect(await call(join(root, 'window', 'absent'))).toEqual(refusalOf(join(root, 'window', 'absent'), root));
    expect(await call(join(root, 'window'))).toEqual(refusalOf(join(root, 'window'), root));
    // A bind of the root's own directory, and a file system of its own: allowed.
    expect((await call(join(root, 'mirror'))).isError).toBeFalsy();
    expect((await call(join(root, 'scratch'))).isError).toBeFalsy();
    expect((await call(join(root, 'own'))).isError).toBeFalsy();
    expect(await call(join(root, 'whole', 'outside', 'secret'))).toEqual(refusalOf(join(root, 'whole', 'outside', 'secret'), root));

    // A root that is itself a bind mount is reached under its source's name too.
    const viaBind = join(base, 'via');
    mkdirSync(viaBind);
    mounts.push(bindMount(root, viaBind));
    const boundPolicy = new RootPolicy([viaBind]);
    expect((await diskUsageTool.call({ path: join(viaBind, 'own') }, toolContext(boundPolicy))).isError).toBeFalsy();
  });
});
