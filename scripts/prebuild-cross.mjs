// `npm run prebuilds:cross`: prebuilds for the targets this Linux x64 machine
// can cross-compile, each recorded in prebuilds/MANIFEST.json:
//   linux-arm64, with Debian's g++-aarch64-linux-gnu;
//   win32-x64, with Debian's mingw-w64 (posix threads), node.exe's imports
//   taken from node-api-headers' .def files and delay-loaded, so a hook binds
//   them to whatever executable hosts the addon; libstdc++ and winpthread
//   linked in, so the addon imports only KERNEL32 and msvcrt besides the host.
// Installs the cross compilers from Debian when they are missing (needs root).
// Restores build/ for this machine afterwards, since prebuildify builds there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(command, args, env = {}) {
  console.log(`> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(`prebuilds:cross: ${command} failed (${result.error?.message ?? `exit status ${result.status}`})`);
    process.exit(1);
  }
}

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

function ensureDebianPackages(packages, check) {
  if (check()) return;
  if (process.getuid?.() !== 0) {
    console.error(`prebuilds:cross: needs ${packages.join(' ')} (apt-get install ${packages.join(' ')}, as root)`);
    process.exit(1);
  }
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { DEBIAN_FRONTEND: 'noninteractive' });
}

ensureDebianPackages(['g++-aarch64-linux-gnu', 'binutils-aarch64-linux-gnu'], () => has('aarch64-linux-gnu-g++') && has('aarch64-linux-gnu-strip'));
run(
  process.execPath,
  [fileURLToPath(import.meta.resolve('prebuildify/bin.js')), '--napi', '--strip', '--tag-libc', '--arch', 'arm64', '--target', process.versions.node],
  {
    CC: 'aarch64-linux-gnu-gcc',
    CXX: 'aarch64-linux-gnu-g++',
    LINK: 'aarch64-linux-gnu-g++',
    AR: 'aarch64-linux-gnu-ar',
    PREBUILD_STRIP_BIN: 'aarch64-linux-gnu-strip',
  },
);
run(process.execPath, ['scripts/prebuild-manifest.mjs', 'linux-arm64']);

ensureDebianPackages(
  ['g++-mingw-w64-x86-64-posix', 'binutils-mingw-w64-x86-64'],
  () => has('x86_64-w64-mingw32-g++-posix') && has('x86_64-w64-mingw32-dlltool'),
);
const work = mkdtempSync(join(tmpdir(), 'diskprobe-win32-'));
const defs = join(root, 'node_modules', 'node-api-headers', 'def');
const headers = join(root, 'node_modules', 'node-api-headers', 'include');
for (const name of ['node_api', 'js_native_api']) {
  run('x86_64-w64-mingw32-dlltool', ['-d', join(defs, `${name}.def`), '-y', join(work, `lib${name}_delay.a`)]);
}
mkdirSync(join(root, 'prebuilds', 'win32-x64'), { recursive: true });
run('x86_64-w64-mingw32-g++-posix', [
  '-std=c++17',
  '-O2',
  '-Wall',
  '-shared',
  '-static',
  '-s',
  '-DNAPI_VERSION=8',
  '-DNAPI_CPP_EXCEPTIONS',
  '-DNODE_ADDON_API_DISABLE_DEPRECATED',
  '-DUNICODE',
  '-D_UNICODE',
  '-DWIN32_LEAN_AND_MEAN',
  '-DNODE_GYP_MODULE_NAME=diskprobe',
  '-I',
  headers,
  '-I',
  join(root, 'node_modules', 'node-addon-api'),
  ...['addon.cc', 'probe_pool.cc', 'disk_usage_win.cc', 'mount_list_win.cc', 'win_delay_load_hook.cc'].map((file) => join(root, 'native', file)),
  join(work, 'libnode_api_delay.a'),
  join(work, 'libjs_native_api_delay.a'),
  '-ldelayimp',
  '-o',
  join(root, 'prebuilds', 'win32-x64', 'diskprobe.node'),
]);
rmSync(work, { recursive: true, force: true });
run(process.execPath, ['scripts/prebuild-manifest.mjs', 'win32-x64']);
// prebuildify left an arm64 build in build/, which node-gyp-build would try first here.
if (existsSync(`${root}/build`)) run(process.execPath, [fileURLToPath(import.meta.resolve('node-gyp/bin/node-gyp.js')), 'rebuild']);
