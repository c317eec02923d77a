// scripts/build-native.mjs with PREBUILDS_ONLY set (the prebuild workflow's
// jobs): a prebuild from prebuilds/ or a loud failure, never build/ and never
// node-gyp. Run on copies of the package in a temp dir whose node_modules has
// node-gyp-build and no node-gyp, so a build attempt could not go unnoticed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { announceSkip, projectRoot, tempDir } from '../helpers/system.js';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The package's build inputs, a build/Release/diskprobe.node that is not an addon at all, and `prebuilds` as given. */
function packageCopy(prebuilds: (dir: string) => void): string {
  const base = tempDir();
  copies.push(base);
  const dir = join(base, 'diskprobe');
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  copyFileSync(join(projectRoot, 'scripts', 'build-native.mjs'), join(dir, 'scripts', 'build-native.mjs'));
  for (const entry of ['package.json', 'binding.gyp', 'native']) cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  mkdirSync(join(dir, 'build', 'Release'), { recursive: true });
  writeFileSync(join(dir, 'build', 'Release', 'diskprobe.node'), 'not an addon');
  mkdirSync(join(dir, 'prebuilds'));
  prebuilds(join(dir, 'prebuilds'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(projectRoot, 'node_modules', 'node-gyp-build'), join(dir, 'node_modules', 'node-gyp-build'), 'junction');
  return dir;
}

function buildNative(dir: string, prebuildsOnly: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.PREBUILDS_ONLY;
  if (prebuildsOnly !== undefined) env.PREBUILDS_ONLY = prebuildsOnly;
  return spawnSync(process.execPath, [join(dir, 'scripts', 'build-native.mjs')], { cwd: dir, env, encoding: 'utf8' });
}

const target = `${process.platform}-${process.arch}`;

/** Whether this package has a prebuild that loads here: then a copy of prebuilds/ must be taken as it is. */
const loadable = spawnSync(process.execPath, ['-e', 'require(require("node-gyp-build").path(process.argv[1]))', projectRoot], {
  env: { ...process.env, PREBUILDS_ONLY: '1' },
  encoding: 'utf8',
});
const noPrebuildHere = loadable.status === 0 ? undefined : `no prebuild in prebuilds/ loads on ${target}`;

describe('build-native with PREBUILDS_ONLY', () => {
  it('fails loudly when no prebuild matches, though build/ has an addon file, and runs no node-gyp', () => {
    const dir = packageCopy(() => {});
    const result = buildNative(dir, '1');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`PREBUILDS_ONLY is set, and no prebuild in prebuilds/ matches ${target}`);
    expect(result.stderr).toContain('node-gyp is not run');
    expect(result.stderr).not.toMatch(/Cannot find module|gyp (info|ERR)/);
    expect(readdirSync(join(dir, 'build'))).toEqual(['Release']);
  });

  it('fails loudly when the prebuild that matches does not load', () => {
    const dir = packageCopy((prebuilds) => {
      mkdirSync(join(prebuilds, target));
      writeFileSync(join(prebuilds, target, 'diskprobe.node'), 'not an addon either');
    });
    const result = buildNative(dir, '1');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`prebuilds/${target}/diskprobe.node matches ${target} but does not load`);
    expect(existsSync(join(dir, 'build', 'config.gypi'))).toBe(false);
  });

  it.skipIf(announceSkip("build-native takes this platform's prebuild", noPrebuildHere))('takes the matching prebuild and ignores build/', () => {
    const dir = packageCopy((prebuilds) => cpSync(join(projectRoot, 'prebuilds'), prebuilds, { recursive: true }));
    const result = buildNative(dir, '1');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const used = /^build:native: PREBUILDS_ONLY: using prebuilds\/([^/]+)\/\S+\.node\n$/.exec(result.stdout);
    expect(used, result.stdout).not.toBeNull();
    // prebuilds/<platform>-<arch>, one folder for each (scripts/prebuildTargets.mjs).
    expect(used![1]).toBe(`${process.platform}-${process.arch}`);
  });

  it('without it, still takes build/ first, as node-gyp-build does', () => {
    const dir = packageCopy(() => {});
    const result = buildNative(dir, undefined);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^build:native: using build[\\/]Release[\\/]diskprobe\.node\n$/);
  });
});
