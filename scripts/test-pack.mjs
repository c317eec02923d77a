// `npm run test:pack`: what a user gets from the registry. Packs the package,
// installs the tarball into a fresh folder with a PATH that has no compiler
// and no make, and checks that it works: first with the prebuilds (native
// backend, nothing compiled), then without them (the install still succeeds
// and the fs.statfs fallback answers). Also checks what the tarball holds.
// npm 10 and 11 run a dependency's install script (npm 11 warns that it is
// not yet allowed); npm 12 and pnpm run none until the user approves it. So
// the prebuild is installed both ways, and must load without the script.
// What the install script does when it runs is tested in
// test/unit/install.test.ts.
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
check('holds no tests, CI files, build/ or sources of the benchmarks', !listing.some((f) => /^package\/(test|\.ci|build|bench|src|docs)\//.test(f)));
const shipped = Object.keys(JSON.parse(readFileSync(join(root, 'prebuilds', 'MANIFEST.json'), 'utf8')).prebuilds);
const missing = shipped.filter((file) => !listing.includes(`package/prebuilds/${file}`));
check(
  `holds all ${shipped.length} prebuilds, their manifest and the install script`,
  missing.length === 0 && listing.includes('package/prebuilds/MANIFEST.json') && listing.includes('package/scripts/install.cjs'),
  missing.join(', '),
);
check('holds no toolchain', !listing.some((f) => f.startsWith('package/toolchain/')));

const bin = bareBin();
check('the bare PATH has no compiler', spawnSync('sh', ['-c', 'command -v cc || command -v g++ || command -v make'], { env: { PATH: bin } }).status !== 0);

// 1. With the prebuilds.
const native = install(tarball, 'with-prebuilds', bin);
check('installs with no compiler', native.result.status === 0, native.result.stderr.trim().split('\n').slice(-3).join(' | '));
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

if (failures === 0) rmSync(work, { recursive: true, force: true });
console.log(failures === 0 ? 'test:pack: all checks passed' : `test:pack: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
