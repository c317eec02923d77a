// `npm run prebuild:cross`: prebuilds for the targets this Linux x64 machine
// can cross-compile, each recorded in prebuilds/MANIFEST.json:
//   linux-arm64, with Debian's g++-aarch64-linux-gnu.
// Installs the cross compilers from Debian when they are missing (needs root).
// Restores build/ for this machine afterwards, since prebuildify builds there.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(command, args, env = {}) {
  console.log(`> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(`prebuild:cross: ${command} failed (${result.error?.message ?? `exit status ${result.status}`})`);
    process.exit(1);
  }
}

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

function ensureDebianPackages(packages, check) {
  if (check()) return;
  if (process.getuid?.() !== 0) {
    console.error(`prebuild:cross: needs ${packages.join(' ')} (apt-get install ${packages.join(' ')}, as root)`);
    process.exit(1);
  }
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { DEBIAN_FRONTEND: 'noninteractive' });
}

ensureDebianPackages(['g++-aarch64-linux-gnu', 'binutils-aarch64-linux-gnu'], () => has('aarch64-linux-gnu-g++') && has('aarch64-linux-gnu-strip'));
run(process.execPath, [fileURLToPath(import.meta.resolve('prebuildify/bin.js')), '--napi', '--strip', '--tag-libc', '--arch', 'arm64', '--target', process.versions.node], {
  CC: 'aarch64-linux-gnu-gcc',
  CXX: 'aarch64-linux-gnu-g++',
  LINK: 'aarch64-linux-gnu-g++',
  AR: 'aarch64-linux-gnu-ar',
  PREBUILD_STRIP_BIN: 'aarch64-linux-gnu-strip',
});
run(process.execPath, ['scripts/prebuild-manifest.mjs', 'linux-arm64']);
// prebuildify left an arm64 build in build/, which node-gyp-build would try first here.
if (existsSync(`${root}/build`)) run(process.execPath, [fileURLToPath(import.meta.resolve('node-gyp/bin/node-gyp.js')), 'rebuild']);
