// What users get from npm install: the prebuilt binary without running any
// script, and a working fallback when there is neither a prebuild nor a
// compiler. Run on a copy of the package in a temp dir.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { announceSkip, projectRoot, tempDir } from '../helpers/system.js';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The package as installed: dist/, scripts/, package.json, its one runtime dependency; prebuilds/ if asked. */
function installedCopy(withPrebuilds: boolean): string {
  const dir = join(tempDir(), 'diskprobe');
  copies.push(dir);
  for (const entry of ['dist', 'scripts', 'package.json', 'binding.gyp', 'native', ...(withPrebuilds ? ['prebuilds'] : [])]) {
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  }
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(projectRoot, 'node_modules/node-gyp-build'), join(dir, 'node_modules/node-gyp-build'));
  return dir;
}

/** Runs `node` in `dir` with a PATH that has no compiler, make or node-gyp. */
function node(dir: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { HOME: dir, PATH: '/nonexistent' };
  return spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8' });
}

const probeBackend = "import('./dist/index.js').then((m) => console.log(m.backend, m.diskUsageSync('/').total > 0))";

// Each run of node here gets a POSIX environment (PATH=/nonexistent, no SystemRoot) and a symlinked dependency.
const posixInstall =
  process.platform === 'win32'
    ? "runs node with a POSIX-only environment and a symlinked node_modules; on win32 the prebuild workflow's smoke step checks loading instead"
    : undefined;

describe.skipIf(announceSkip('installing diskprobe', posixInstall))('installing diskprobe', () => {
  it('loads the prebuilt binary with no install script run', () => {
    const dir = installedCopy(true);
    const result = node(dir, ['--input-type=module', '-e', probeBackend]);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('native true');
  });

  it.skipIf(
    announceSkip(
      'install without a prebuild',
      `${process.platform}-${process.arch}` === 'linux-x64' ? undefined : `its expected message names linux-x64; this is ${process.platform}-${process.arch}`,
    ),
  )('succeeds without a prebuild or a compiler, and falls back to fs.statfs', () => {
    const dir = installedCopy(false);
    const install = node(dir, ['scripts/install.cjs']);
    expect(install.status).toBe(0);
    expect(install.stderr).toMatch(/no prebuilt binary for linux-x64, and building one failed/);
    expect(install.stderr).toMatch(/fs\.statfs fallback/);
    const result = node(dir, ['--input-type=module', '-e', probeBackend]);
    expect(result.stdout.trim()).toBe('statfs true');
  });

  it('says clearly when DISKPROBE_BACKEND=native cannot be honoured', () => {
    const dir = installedCopy(false);
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', probeBackend], {
      cwd: dir,
      env: { PATH: '/nonexistent', DISKPROBE_BACKEND: 'native' },
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/DISKPROBE_BACKEND=native, but diskprobe's native addon could not be loaded/);
  });

  it('refuses an unknown DISKPROBE_BACKEND', () => {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', probeBackend], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH, DISKPROBE_BACKEND: 'fast' },
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/DISKPROBE_BACKEND must be "native" or "statfs", not "fast"/);
  });
});
