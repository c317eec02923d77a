// The MCP Bundle as a desktop host uses it: built by `npm run bundle:mcpb`,
// checked by the official mcpb CLI (validate, info), unpacked into a
// temporary folder, and started exactly as the host would from its manifest:
// mcp_config with ${__dirname} and the user's settings substituted by mcpb's
// own getMcpConfigForManifest (the code Claude for macOS and Windows loads
// bundles with), from an unrelated working directory, with a bare PATH. A
// preload records every module and addon the server and its helper
// processes load: all must come from inside the unpacked bundle. Then the
// MCP handshake, the tool and prompt lists against the manifest's, and
// disk_usage and list_mounts, on the native prebuild and, with the prebuilds
// removed, on the fallback.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, linuxSkipReason, projectRoot, tempDir } from '../helpers/system.js';
import { checkServerJson } from './serverJson.js';

const mcpb = join(projectRoot, 'node_modules/.bin/mcpb');
const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { name: string; version: string; mcpName: string };

interface Manifest {
  server: { mcp_config: { command: string; args: string[]; env?: Record<string, string> } };
  tools: Array<{ name: string; description: string }>;
  prompts: Array<{ name: string; description: string; arguments: string[]; text: string }>;
  user_config: Record<string, { default?: unknown }>;
  [key: string]: unknown;
}

/** Logs each module file and addon a process loads, one path a line, to $DISKPROBE_TEST_LOAD_LOG; inherited by child processes through NODE_OPTIONS. */
const PRELOAD = `
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
const log = (path) => appendFileSync(process.env.DISKPROBE_TEST_LOAD_LOG, path + '\\n');
register('data:text/javascript,' + encodeURIComponent(\`
  import { appendFileSync } from 'node:fs';
  import { fileURLToPath } from 'node:url';
  export async function load(url, context, next) {
    if (url.startsWith('file:')) appendFileSync(process.env.DISKPROBE_TEST_LOAD_LOG, fileURLToPath(url) + '\\\\n');
    return next(url, context);
  }\`));
const resolve = Module._resolveFilename;
Module._resolveFilename = function (...args) { const path = resolve.apply(this, args); if (path.startsWith('/')) log(path); return path; };
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) { log(filename); return dlopen.call(this, module, filename, ...rest); };
`;

function run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
}

interface Started {
  readonly client: Client;
  readonly loaded: () => string[];
  readonly stderr: () => string;
}

/** The unpacked bundle in `dir`, started as a host starts it, with these settings. */
async function startAsHost(dir: string, userConfig: Record<string, unknown>, extraEnv: Record<string, string> = {}): Promise<Started> {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const home = tempDir('diskprobe-mcpb-home-');
  const config = await getMcpConfigForManifest({
    manifest: manifest as never,
    extensionPath: dir,
    systemDirs: { HOME: home, DESKTOP: join(home, 'Desktop'), DOCUMENTS: join(home, 'Documents'), DOWNLOADS: join(home, 'Downloads') },
    userConfig: userConfig as never,
    pathSeparator: '/',
  });
  if (config === undefined) throw new Error('the host would not start the server: a required setting is missing');
  expect(config.command).toBe('node');
  const hooks = tempDir('diskprobe-mcpb-hooks-');
  writeFileSync(join(hooks, 'preload.mjs'), PRELOAD);
  const logFile = join(hooks, 'loaded.log');
  writeFileSync(logFile, '');
  let stderr = '';
  const transport = new StdioClientTransport({
    // The host's own Node runs it; nothing of the repository is on the path or in the environment.
    command: process.execPath,
    args: config.args ?? [],
    cwd: home,
    env: {
      PATH: '/usr/bin:/bin',
      HOME: home,
      NODE_OPTIONS: `--import=${join(hooks, 'preload.mjs')}`,
      DISKPROBE_TEST_LOAD_LOG: logFile,
      ...config.env,
      ...extraEnv,
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'mcpb-host-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    loaded: () => [
      ...new Set(
        readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '' && line !== join(hooks, 'preload.mjs')),
      ),
    ],
    stderr: () => stderr,
  };
}

const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text: string }>)[0]!.text;

describe.skipIf(
  announceSkip(
    'the MCP Bundle, unpacked and run as a host would',
    linuxSkipReason ?? (existsSync(mcpb) ? undefined : 'the mcpb CLI is not installed (npm ci)'),
  ),
)('the MCP Bundle', () => {
  const out = tempDir('diskprobe-mcpb-out-');
  const bundle = join(out, `diskprobe-${pkg.version}.mcpb`);
  const unpacked = join(tempDir('diskprobe-mcpb-unpacked-'), 'diskprobe');
  let manifest: Manifest;
  const rootA = tempDir('diskprobe-mcpb-rootA-');
  const rootB = tempDir('diskprobe-mcpb-rootB-');

  beforeAll(() => {
    const built = run(process.execPath, [join(projectRoot, 'scripts/bundle-mcpb.mjs'), '--out', out]);
    expect(built.status, built.stderr + built.stdout).toBe(0);
    const unpack = run(mcpb, ['unpack', bundle, unpacked]);
    expect(unpack.status, unpack.stderr + unpack.stdout).toBe(0);
    manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
  }, 180_000);

  it('passes mcpb validate and mcpb info, and writes server.json with the hash of the file built', () => {
    const validate = run(mcpb, ['validate', join(unpacked, 'manifest.json')]);
    expect(validate.status, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toContain('Manifest schema validation passes!');
    const info = run(mcpb, ['info', bundle]);
    expect(info.status, info.stdout + info.stderr).toBe(0);
    expect(info.stdout).toContain(`File: diskprobe-${pkg.version}.mcpb`);
    const serverJson = JSON.parse(readFileSync(join(out, 'server.json'), 'utf8')) as { packages: Array<{ registryType: string; fileSha256?: string }> };
    const sha256 = createHash('sha256').update(readFileSync(bundle)).digest('hex');
    expect(serverJson.packages.find((entry) => entry.registryType === 'mcpb')?.fileSha256).toBe(sha256);
    // The registry's schema and rules, with this file's hash.
    expect(checkServerJson(serverJson, { packageJson: pkg, mcpbSha256: sha256 })).toEqual([]);
  });

  it('holds the bin, the views, all eight prebuilds, node-gyp-build and nothing else', () => {
    // What mcpb unpack wrote: every file of the zip (it has no directory entries).
    const listing = readdirSync(unpacked, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(unpacked, join(entry.parentPath, entry.name)))
      .sort();
    const prebuilds = Object.keys((JSON.parse(readFileSync(join(projectRoot, 'prebuilds/MANIFEST.json'), 'utf8')) as { prebuilds: object }).prebuilds);
    expect(prebuilds).toHaveLength(8);
    for (const file of prebuilds) expect(listing).toContain(`prebuilds/${file}`);
    const tops = new Set(
      listing.map((file) =>
        file
          .split('/')
          .slice(0, file.startsWith('dist/') ? 2 : 1)
          .join('/'),
      ),
    );
    expect([...tops].sort()).toEqual(['LICENSE', 'dist/bin', 'dist/views', 'icon.png', 'manifest.json', 'node_modules', 'package.json', 'prebuilds']);
    expect(listing.filter((file) => file.endsWith('.map') || file.endsWith('.d.ts') || file.startsWith('src/'))).toEqual([]);
    expect(listing.filter((file) => file.startsWith('node_modules/')).every((file) => file.startsWith('node_modules/node-gyp-build/'))).toBe(true);
  });

  it('lists, with a Prometheus URL set, exactly the tools and prompts the server lists', async () => {
    const server = await startAsHost(unpacked, { roots: [rootA], probe_timeout: 5000, prometheus_url: 'http://127.0.0.1:9' });
    try {
      const tools = (await server.client.listTools()).tools.map(({ name, description }) => ({ name, description }));
      expect(manifest.tools).toEqual(tools);
      const prompts = (await server.client.listPrompts()).prompts.map(({ name, description, arguments: args }) => ({
        name,
        description,
        arguments: (args ?? []).map((arg) => arg.name),
      }));
      expect(manifest.prompts.map(({ text: _, ...rest }) => rest)).toEqual(prompts);
      const report = await server.client.getPrompt({ name: 'disk_report' });
      expect(manifest.prompts[0]!.text).toBe((report.messages[0]!.content as { text: string }).text);
    } finally {
      await server.client.close();
    }
  });

  it('starts from the manifest alone, on the native prebuild, loading nothing from outside the bundle', async () => {
    const server = await startAsHost(unpacked, { roots: [rootA, rootB], probe_timeout: 3000 });
    try {
      // Without a Prometheus URL (the empty default), the fleet tools are not offered.
      const names = (await server.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(['disk_usage', 'list_mounts', 'directory_usage', 'explain_disk_usage', 'system_info']);
      for (const root of [rootA, rootB]) {
        const usage = await server.client.callTool({ name: 'disk_usage', arguments: { path: root } });
        expect(usage.isError, textOf(usage)).toBeFalsy();
        expect(usage.structuredContent).toMatchObject({ path: root });
      }
      // Both directories reached it, after one --root: anything else is refused.
      const outside = await server.client.callTool({ name: 'disk_usage', arguments: { path: '/' } });
      expect(outside.isError).toBe(true);
      const mounts = await server.client.callTool({ name: 'list_mounts', arguments: {} });
      expect(mounts.isError, textOf(mounts)).toBeFalsy();
      expect((mounts.structuredContent as { total: number }).total).toBeGreaterThan(0);
    } finally {
      await server.client.close();
    }
    const loaded = server.loaded();
    expect(loaded.filter((path) => !path.startsWith(`${unpacked}/`))).toEqual([]);
    expect(loaded).toContain(join(unpacked, 'prebuilds/linux-x64/diskprobe.glibc.node'));
    expect(loaded).toContain(join(unpacked, 'dist/bin/diskprobe.js'));
    expect(server.stderr()).not.toMatch(/DISKPROBE_NO_ADDON|fallback/);
  });

  it('works on the fallback where no prebuild loads, its helpers inside dist/bin', async () => {
    const bare = join(tempDir('diskprobe-mcpb-bare-'), 'diskprobe');
    mkdirSync(bare);
    const unpack = run(mcpb, ['unpack', bundle, bare]);
    expect(unpack.status, unpack.stderr).toBe(0);
    rmSync(join(bare, 'prebuilds'), { recursive: true });
    const server = await startAsHost(bare, { roots: [rootA], probe_timeout: 3000 });
    try {
      const usage = await server.client.callTool({ name: 'disk_usage', arguments: { path: rootA } });
      expect(usage.isError, textOf(usage)).toBeFalsy();
      const walk = await server.client.callTool({ name: 'directory_usage', arguments: { path: rootA } });
      expect(walk.isError, textOf(walk)).toBeFalsy();
    } finally {
      await server.client.close();
    }
    const loaded = server.loaded();
    expect(loaded.filter((path) => !path.startsWith(`${bare}/`))).toEqual([]);
    expect(loaded).toContain(join(bare, 'dist/bin/statfsHelper.js'));
    expect(server.stderr()).toContain('DISKPROBE_NO_ADDON');
  });
});
