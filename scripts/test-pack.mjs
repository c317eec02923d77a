// `npm run test:pack`: what a user gets from the registry. Packs the package,
// installs the tarball into a fresh folder with a PATH that has no compiler
// and no make, and checks that it works: first with the prebuilds (native
// backend, nothing compiled), then without them (the install still succeeds,
// the fs.statfs fallback answers, and the command it prints to build the
// addon does build it, once a compiler is on the PATH). Also checks what the
// tarball holds. diskprobe has no install script: npm 11.16+ warns of every
// dependency's script, and npm 12 runs none it was not told to. So the
// install must print no such warning, with npm 11 here and with npm 12 (from
// the registry, on npm's node@22, as test:conformance runs Node 22).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'diskprobe-pack-'));
let failures = 0;

function check(what, ok, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures++;
}

/** A bin folder with node and npm and nothing else: no cc, g++, make or python. */
function bareBin() {
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const npmCli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin');
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh')); // npm runs scripts with sh
  for (const tool of ['npm', 'npx']) {
    const target = existsSync(join(npmCli, `${tool}-cli.js`))
      ? join(npmCli, `${tool}-cli.js`)
      : execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, tool), `#!/bin/sh\nexec "${process.execPath}" "${target}" "$@"\n`, { mode: 0o755 });
  }
  return bin;
}

/**
 * A bin folder whose npm is npm 12, on the Node 22 it needs, both installed
 * into test/npm12/ from its lockfile. npm 12 runs no dependency's install
 * script unless the project allows it.
 */
function npm12Bin() {
  const dir = join(root, 'test', 'npm12');
  const node22 = join(dir, 'node_modules', 'node', 'bin', 'node');
  const npmCli = join(dir, 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (!existsSync(node22) || !existsSync(npmCli)) {
    console.log('installing npm 12 and Node 22 into test/npm12/ (npm ci)');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  }
  const bin = join(work, 'bin-npm12');
  mkdirSync(bin);
  symlinkSync(node22, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\nexec "${node22}" "${npmCli}" "$@"\n`, { mode: 0o755 });
  return bin;
}

function install(tarball, name, bin, flags = []) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}\n');
  const env = {
    PATH: bin,
    HOME: work,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const result = spawnSync(join(bin, 'npm'), ['install', '--no-save', ...flags, tarball], { cwd: dir, env, encoding: 'utf8' });
  return { dir, env, result };
}

function run(dir, env, command, args, input) {
  return spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', input, timeout: 30_000 });
}

const tarball = join(work, execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop());
const listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
console.log(`tarball: ${tarball} (${(statSync(tarball).size / 1024).toFixed(1)} KiB, ${listing.length} files)`);
check(
  'holds no tests, CI files, build/ or sources of the benchmarks',
  !listing.some((f) => /^package\/(test|\.ci|build|bench|src|docs|prometheus\/tests)\//.test(f)),
);
check('ships the Prometheus alert and recording rules (docs/fleet.md)', listing.includes('package/prometheus/diskprobe.rules.yml'));
const shipped = Object.keys(JSON.parse(readFileSync(join(root, 'prebuilds', 'MANIFEST.json'), 'utf8')).prebuilds);
const missing = shipped.filter((file) => !listing.includes(`package/prebuilds/${file}`));
check(
  `holds all ${shipped.length} prebuilds and their manifest`,
  missing.length === 0 && listing.includes('package/prebuilds/MANIFEST.json'),
  missing.join(', '),
);
check('holds no scripts/ (no install script)', !listing.some((f) => f.startsWith('package/scripts/')));
check('holds no toolchain', !listing.some((f) => f.startsWith('package/toolchain/')));

const bin = bareBin();
check('the bare PATH has no compiler', spawnSync('sh', ['-c', 'command -v cc || command -v g++ || command -v make'], { env: { PATH: bin } }).status !== 0);

// 1. With the prebuilds.
const native = install(tarball, 'with-prebuilds', bin);
check('installs with no compiler', native.result.status === 0, native.result.stderr.trim().split('\n').slice(-3).join(' | '));
check('npm prints no install-script warning', !/install-scripts|install script/i.test(native.result.stderr), native.result.stderr.trim());
check('compiles nothing', !existsSync(join(native.dir, 'node_modules', 'diskprobe', 'build')));
const probeBackend = "import('diskprobe').then((m) => console.log(m.backend))";
const nativeBackend = run(native.dir, native.env, 'node', ['--input-type=module', '-e', probeBackend]);
check("backend is 'native'", nativeBackend.stdout.trim() === 'native', nativeBackend.stdout.trim() || nativeBackend.stderr.trim());
const df = run(native.dir, native.env, join(bin, 'npx'), ['diskprobe', 'df', '/']);
check('npx diskprobe df / works', df.status === 0 && /Mounted on/.test(df.stdout) && / \/\n$/.test(df.stdout), df.stderr.trim());
const initialize =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pack","version":"1"}}}\n';
const served = run(native.dir, native.env, join(bin, 'npx'), ['diskprobe'], initialize);
check('the MCP server answers initialize', served.status === 0 && /"serverInfo":\{"name":"diskprobe"/.test(served.stdout), served.stderr.trim());
// The MCP Apps views ship as pages in dist/views/, read by the bundled bin.
const viewRead = `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'ui://diskprobe/directory-usage', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'pack', version: '1' } } } })}\n`;
const view = run(native.dir, native.env, join(bin, 'npx'), ['diskprobe'], viewRead);
check(
  'the MCP server serves its views (ui://diskprobe/directory-usage)',
  view.status === 0 && view.stdout.includes('"mimeType":"text/html;profile=mcp-app"') && view.stdout.includes('<!DOCTYPE html>'),
  view.stderr.trim(),
);

// OAuth loads jose, a dependency, only with --auth-issuer: it must be installed with the package.
// The server runs until the timeout stops it; by then it has said what it asks of tokens.
// The bin itself, not npx, which would leave it running when the timeout stops npx.
const oauth = spawnSync(join(native.dir, 'node_modules', '.bin', 'diskprobe'), ['serve', '--http', '127.0.0.1:0', '--auth-issuer', 'http://127.0.0.1:9'], {
  cwd: native.dir,
  env: native.env,
  encoding: 'utf8',
  timeout: 4_000,
  killSignal: 'SIGTERM',
});
check(
  'serve --http --auth-issuer loads jose from the installed dependencies',
  /OAuth: access tokens from http:\/\/127\.0\.0\.1:9 /.test(oauth.stderr),
  oauth.stderr.trim(),
);

// 2. With the prebuilds, and no install script run (npm 12, pnpm, --ignore-scripts).
const scriptless = install(tarball, 'without-install-scripts', bin, ['--ignore-scripts']);
check('installs with --ignore-scripts', scriptless.result.status === 0, scriptless.result.stderr.trim().split('\n').slice(-3).join(' | '));
const scriptlessBackend = run(scriptless.dir, scriptless.env, 'node', ['--input-type=module', '-e', probeBackend]);
check(
  "backend is 'native' without the install script",
  scriptlessBackend.stdout.trim() === 'native',
  scriptlessBackend.stdout.trim() || scriptlessBackend.stderr.trim(),
);

// 3. Without the prebuilds: the same tarball, prebuilds/ removed.
const unpacked = join(work, 'unpacked');
mkdirSync(unpacked);
execFileSync('tar', ['xzf', tarball, '-C', unpacked]);
rmSync(join(unpacked, 'package', 'prebuilds'), { recursive: true });
const bare = join(work, 'diskprobe-no-prebuilds.tgz');
execFileSync('tar', ['czf', bare, '-C', unpacked, 'package']);
const fallback = install(bare, 'without-prebuilds', bin);
check('installs without prebuilds or a compiler', fallback.result.status === 0, fallback.result.stderr.trim().split('\n').slice(-3).join(' | '));
const fallbackBackend = run(fallback.dir, fallback.env, 'node', ['--input-type=module', '-e', probeBackend]);
check("backend is 'statfs'", fallbackBackend.stdout.trim() === 'statfs', fallbackBackend.stdout.trim() || fallbackBackend.stderr.trim());
const fallbackDf = run(fallback.dir, fallback.env, join(bin, 'npx'), ['diskprobe', 'df', '/']);
check('npx diskprobe df / works on the fallback', fallbackDf.status === 0 && /Mounted on/.test(fallbackDf.stdout), fallbackDf.stderr.trim());
const buildCommand = /run: (npm explore diskprobe -- .+)$/m.exec(fallbackDf.stderr)?.[1];
check(
  'it says once on stderr how to build the addon',
  (fallbackDf.stderr.match(/DISKPROBE_NO_ADDON/g) ?? []).length === 1 && buildCommand !== undefined,
  fallbackDf.stderr.trim(),
);

// 4. That command builds the addon, once a compiler is on the PATH (npm 11; node-gyp from the registry).
const nodedir = execFileSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).trim();
if (buildCommand !== undefined) {
  // The machine's own PATH, for g++, make and python3; Node's headers where npm is told to find them (no download).
  const buildEnv = { ...fallback.env, PATH: `${bin}:${process.env.PATH}`, ...(nodedir && nodedir !== 'undefined' && { npm_config_nodedir: nodedir }) };
  const built = spawnSync('sh', ['-c', buildCommand], { cwd: fallback.dir, env: buildEnv, encoding: 'utf8', timeout: 300_000 });
  check(`${buildCommand} builds the addon`, built.status === 0, `${built.stdout}${built.stderr}`.trim().split('\n').slice(-5).join(' | '));
  const rebuiltBackend = run(fallback.dir, fallback.env, 'node', ['--input-type=module', '-e', probeBackend]);
  check("backend is then 'native'", rebuiltBackend.stdout.trim() === 'native', rebuiltBackend.stdout.trim() || rebuiltBackend.stderr.trim());
}

// 5. npm 12: installs with its default of running no install script, warns of none, and the prebuild loads.
const npm12 = install(tarball, 'npm12', npm12Bin());
check('npm 12 installs it', npm12.result.status === 0, npm12.result.stderr.trim().split('\n').slice(-3).join(' | '));
check('npm 12 prints no warning', !/warn/i.test(npm12.result.stderr), npm12.result.stderr.trim());
const npm12Backend = run(npm12.dir, npm12.env, 'node', ['--input-type=module', '-e', probeBackend]);
check(
  "backend is 'native' after npm 12's install, on Node 22",
  npm12Backend.stdout.trim() === 'native',
  npm12Backend.stdout.trim() || npm12Backend.stderr.trim(),
);

if (failures === 0) rmSync(work, { recursive: true, force: true });
console.log(failures === 0 ? 'test:pack: all checks passed' : `test:pack: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
