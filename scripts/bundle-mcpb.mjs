// `npm run bundle:mcpb [-- --out <dir>]`: the MCP Bundle for desktop hosts,
// <dir>/diskprobe-<version>.mcpb (default dir: build/mcpb), packed by the
// official mcpb CLI, and <dir>/server.json: the repository's MCP Registry
// entry with the bundle's sha256, taken from the file actually built (mcpb
// pack stamps the time into the zip, so no hash can be known before).
//
// The bundle holds what the server needs and nothing else: the bundled bin
// (dist/bin/, which needs nothing else of dist/), the MCP Apps pages, all
// eight prebuilds, node-gyp-build (which finds the right one), a minimal
// package.json (ESM, the version) and the icon. The manifest's tools and
// prompts come from the built server itself (tools/list, prompts/list), so
// they cannot drift from it; test/mcpb/bundle.test.ts checks them again.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ?? join(root, 'build', 'mcpb');
const stage = join(out, 'stage');
const bundleName = `diskprobe-${pkg.version}.mcpb`;

function fail(message) {
  console.error(`bundle:mcpb: ${message}`);
  process.exit(1);
}

/** The newest manifest version the pinned mcpb CLI validates (its LATEST_MANIFEST_VERSION is 0.4 in 2.1.2). */
const MANIFEST_VERSION = '0.4';
const REPOSITORY = 'https://github.com/diskprobe/diskprobe';

/**
 * What the built server says of its tools and prompts, asked over stdio as a
 * host would, with a Prometheus configured (none is reached: listing asks
 * nothing) so that the fleet tools are listed too.
 */
async function serverDefinitions() {
  const server = spawn(process.execPath, [join(root, 'dist/bin/diskprobe.js'), 'serve', '--prometheus', 'http://127.0.0.1:9'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, DISKPROBE_PROMETHEUS_URL: '' },
  });
  const requests = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-mcpb', version: pkg.version } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'prompts/list' },
    { jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: 'disk_report' } },
  ];
  server.stdin.end(`${requests.map((request) => JSON.stringify(request)).join('\n')}\n`);
  let stdout = '';
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  const status = await new Promise((resolve) => server.once('exit', resolve));
  if (status !== 0) fail(`the built server exited ${status} while listing its tools: run npm run compile`);
  const answers = new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((message) => [message.id, message.result]),
  );
  const tools = answers.get(2)?.tools;
  const prompts = answers.get(3)?.prompts;
  const report = answers.get(4)?.messages?.[0]?.content?.text;
  if (!Array.isArray(tools) || !Array.isArray(prompts) || typeof report !== 'string') fail(`unexpected answers from the server:\n${stdout}`);
  return {
    tools: tools.map(({ name, description }) => ({ name, description })),
    // mcpb wants each prompt's text; disk_report's, as the server words it without a path.
    prompts: prompts.map(({ name, description, arguments: args }) => ({ name, description, arguments: (args ?? []).map((arg) => arg.name), text: report })),
  };
}

/** The manifest (mcpb MANIFEST.md). Settings reach the server through mcp_config, as the host substitutes them. */
function manifest({ tools, prompts }) {
  return {
    manifest_version: MANIFEST_VERSION,
    name: 'diskprobe',
    display_name: 'diskprobe',
    version: pkg.version,
    description: 'How full your disks are, what fills them, and when they will be full: fast, exact, and never hangs on a dead mount.',
    long_description:
      'diskprobe answers from statvfs and a native parallel directory walk: how full each file system is (as df shows it), ' +
      'what fills a directory (as du and ncdu show it), and, with a Prometheus URL, which machines of a fleet will fill up and when. ' +
      'A mount that does not answer (a dead NFS server) is reported as not responding, never waited on. It only reads.',
    author: { name: 'diskprobe contributors', url: REPOSITORY },
    repository: { type: 'git', url: `${REPOSITORY}.git` },
    homepage: `${REPOSITORY}#readme`,
    documentation: `${REPOSITORY}/blob/main/docs/mcp-server.md`,
    support: `${REPOSITORY}/issues`,
    icon: 'icon.png',
    license: pkg.license,
    keywords: ['disk', 'df', 'du', 'disk-usage', 'statvfs', 'prometheus'],
    server: {
      type: 'node',
      entry_point: 'dist/bin/diskprobe.js',
      mcp_config: {
        command: 'node',
        // The directories last: a setting with several values expands there into one argument each ("Array Expansion"),
        // which `serve` reads as `--root A B …`.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: mcpb's placeholders, which the host substitutes
        args: ['${__dirname}/dist/bin/diskprobe.js', 'serve', '--probe-timeout', '${user_config.probe_timeout}', '--root', '${user_config.roots}'],
        // An environment variable, not an argument: an optional setting left empty becomes "" here, which serve reads as none.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: mcpb's placeholders, which the host substitutes
        env: { DISKPROBE_PROMETHEUS_URL: '${user_config.prometheus_url}' },
      },
    },
    tools,
    tools_generated: false,
    prompts,
    prompts_generated: false,
    compatibility: { platforms: ['darwin', 'linux', 'win32'], runtimes: { node: pkg.engines.node.replace(/^>=(\d+\.\d+)$/, '>=$1.0') } },
    user_config: {
      roots: {
        type: 'directory',
        title: 'Directories',
        description: 'The directories diskprobe may report on (and the file systems holding them). It only reads.',
        multiple: true,
        required: true,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: mcpb's placeholders, which the host substitutes
        default: ['${HOME}'],
      },
      probe_timeout: {
        type: 'number',
        title: 'Probe timeout (ms)',
        description: 'How long a file system has to answer before it is reported as not responding.',
        default: 5000,
        min: 100,
        max: 600000,
        required: false,
      },
      prometheus_url: {
        type: 'string',
        title: 'Prometheus URL',
        description:
          'Optional: the Prometheus that scrapes your machines (e.g. http://prometheus:9090), for the fleet tools. Leave empty for this machine only.',
        default: '',
        required: false,
      },
    },
    privacy_policies: [],
  };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
}

function copy(from, to = from) {
  const source = join(root, from);
  if (!existsSync(source)) fail(`${from} is missing: run npm run compile first`);
  mkdirSync(dirname(join(stage, to)), { recursive: true });
  cpSync(source, join(stage, to), { recursive: true, filter: (path) => !path.endsWith('.map') });
}

const mcpb = join(root, 'node_modules', '.bin', 'mcpb');
function runMcpb(args) {
  const run = spawnSync(mcpb, args, { encoding: 'utf8' });
  if (run.status !== 0) fail(`mcpb ${args.join(' ')} failed:\n${run.stdout}${run.stderr}`);
  return run.stdout;
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
copy('dist/bin');
copy('dist/views');
copy('prebuilds');
copy('node_modules/node-gyp-build');
copy('assets/icon.png', 'icon.png');
copy('LICENSE');
// What the bin reads of package.json: its type (ESM) and version.
writeFileSync(
  join(stage, 'package.json'),
  `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', license: pkg.license, private: true }, null, 2)}\n`,
);
writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest(await serverDefinitions()), null, 2)}\n`);

runMcpb(['validate', join(stage, 'manifest.json')]);
const bundle = join(out, bundleName);
rmSync(bundle, { force: true });
runMcpb(['pack', stage, bundle]);
const bytes = readFileSync(bundle);
const sha256 = createHash('sha256').update(bytes).digest('hex');

// The registry entry for this very file.
const serverJson = JSON.parse(readFileSync(join(root, 'server.json'), 'utf8'));
for (const entry of serverJson.packages ?? []) if (entry.registryType === 'mcpb') entry.fileSha256 = sha256;
writeFileSync(join(out, 'server.json'), `${JSON.stringify(serverJson, null, 2)}\n`);

const files = filesUnder(stage);
const unpacked = files.reduce((sum, file) => sum + statSync(join(stage, file)).size, 0);
const mib = (n) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
console.log(`bundle:mcpb: ${relative(process.cwd(), bundle) || bundle}: ${mib(bytes.length)} (${files.length} files, ${mib(unpacked)} unpacked)`);
console.log(`bundle:mcpb: sha256 ${sha256}, written to ${relative(process.cwd(), join(out, 'server.json'))}`);
for (const part of ['dist/bin', 'dist/views', 'prebuilds', 'node_modules']) {
  const size = files.filter((file) => file.startsWith(`${part}/`)).reduce((sum, file) => sum + statSync(join(stage, file)).size, 0);
  console.log(`  ${part.padEnd(12)} ${mib(size)}`);
}
