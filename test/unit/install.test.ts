// What users get from npm install, which runs no script of diskprobe's: the
// prebuilt binary, loaded as it is; and where none matches, the fs.statfs
// fallback, whose first probe says once on stderr why, and how to build the
// addon. Run on a copy of the package in a temp dir.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { announceSkip, projectRoot, tempDir } from '../helpers/system.js';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The package as installed: dist/, package.json, its one runtime dependency; prebuilds/ if asked. */
function installedCopy(withPrebuilds: boolean): string {
  const dir = join(tempDir(), 'diskprobe');
  copies.push(dir);
  for (const entry of ['dist', 'package.json', 'binding.gyp', 'native', ...(withPrebuilds ? ['prebuilds'] : [])]) {
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  }
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(projectRoot, 'node_modules/node-gyp-build'), join(dir, 'node_modules/node-gyp-build'));
  return dir;
}

/** Runs `node` in `dir` with a PATH that has no compiler, make or node-gyp. */
function node(dir: string, args: string[], env: NodeJS.ProcessEnv = {}, input?: string) {
  return spawnSync(process.execPath, args, { cwd: dir, env: { HOME: dir, PATH: '/nonexistent', ...env }, encoding: 'utf8', input, timeout: 20_000 });
}

const probeTwice = "import('./dist/index.js').then(async (m) => { m.diskUsageSync('/'); await m.diskUsage('/'); console.log(m.backend) })";
const importOnly = "import('./dist/index.js').then((m) => console.log(m.backend))";
const NOTICE = /\(node:\d+\) \[DISKPROBE_NO_ADDON\] Warning: the native addon did not load for [\w-]+ \(.+\), so the fs\.statfs fallback answers/;

/** stdin for the server: initialize and notifications/initialized in one write, as some clients send them. */
const HANDSHAKE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'install-test', version: '1' } },
})}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`;

// Each run of node here gets a POSIX environment (PATH=/nonexistent, no SystemRoot) and a symlinked dependency.
const posixInstall =
  process.platform === 'win32'
    ? "runs node with a POSIX-only environment and a symlinked node_modules; on win32 the prebuild workflow's smoke step checks loading instead"
    : undefined;

describe.skipIf(announceSkip('installing diskprobe', posixInstall))('installing diskprobe', () => {
  it('has no install script: npm 11.16+ warns of every one, and npm 12 runs none', () => {
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string>; gypfile: boolean };
    for (const hook of ['preinstall', 'install', 'postinstall']) expect(manifest.scripts[hook], hook).toBeUndefined();
    // Without it npm would run `node-gyp rebuild` at install because binding.gyp is there.
    expect(manifest.gypfile).toBe(false);
  });

  it('loads the prebuilt binary, and says nothing', () => {
    const result = node(installedCopy(true), ['--input-type=module', '-e', probeTwice]);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('native');
  });

  it('without a prebuild: the fallback answers, and its first probe says once on stderr how to build the addon', () => {
    const dir = installedCopy(false);
    const quiet = node(dir, ['--input-type=module', '-e', importOnly]);
    expect([quiet.stdout.trim(), quiet.stderr]).toEqual(['statfs', '']);
    const result = node(dir, ['--input-type=module', '-e', probeTwice]);
    expect(result.stdout.trim()).toBe('statfs');
    expect(result.stderr).toMatch(NOTICE);
    expect(result.stderr.match(/DISKPROBE_NO_ADDON/g)).toHaveLength(1);
    expect(result.stderr).toContain('npm explore diskprobe -- npx --yes node-gyp@12 rebuild');
  });

  it('without a prebuild, the MCP server answers initialize first, then warns the client that the addon did not load', () => {
    const result = node(installedCopy(false), ['dist/bin/diskprobe.js'], {}, HANDSHAKE);
    expect(result.status).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id?: number; method?: string; params?: { data?: { detail?: string } } });
    expect(lines[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    const warning = lines.find((line) => line.method === 'notifications/message');
    expect(warning?.params?.data?.detail).toMatch(/^the native addon did not load for [\w-]+ \(.+\), so the fs\.statfs fallback answers/);
  });

  it('DISKPROBE_BACKEND=statfs: chosen, so no notice on stderr, and the client is told it was chosen', () => {
    const dir = installedCopy(true);
    const library = node(dir, ['--input-type=module', '-e', probeTwice], { DISKPROBE_BACKEND: 'statfs' });
    expect([library.stdout.trim(), library.stderr]).toEqual(['statfs', '']);
    const server = node(dir, ['dist/bin/diskprobe.js'], { DISKPROBE_BACKEND: 'statfs' }, HANDSHAKE);
    const first = JSON.parse(server.stdout.split('\n')[0]!) as { id?: number };
    expect(first.id).toBe(1);
    expect(server.stdout).toContain('"detail":"DISKPROBE_BACKEND=statfs chose the fs.statfs fallback; sizes are inexact');
  });

  it('says clearly when DISKPROBE_BACKEND=native cannot be honoured, and how to build the addon', () => {
    const result = node(installedCopy(false), ['--input-type=module', '-e', importOnly], { DISKPROBE_BACKEND: 'native' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/DISKPROBE_BACKEND=native, but diskprobe's native addon could not be loaded/);
    expect(result.stderr).toContain('npm explore diskprobe -- npx --yes node-gyp@12 rebuild');
  });

  it('refuses an unknown DISKPROBE_BACKEND', () => {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', importOnly], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH, DISKPROBE_BACKEND: 'fast' },
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/DISKPROBE_BACKEND must be "native" or "statfs", not "fast"/);
  });
});
