// What `npm run prebuilds` builds, and from what: the targets, the compiler
// and linker flags of each, and the inputs whose hash prebuilds/MANIFEST.json
// records. This file is one of those inputs, so a change of flags marks every
// prebuild stale (test/unit/prebuildBinaries.test.ts) until it is rebuilt.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const WALK_SOURCES = ['walk/scan.cc', 'walk/scan_state.cc', 'walk/mount_trie.cc', 'walk/dedupe.cc', 'walk/snapshot.cc'];
const COMMON_SOURCES = ['addon/addon.cc', 'addon/addon_probe.cc', 'addon/addon_scan.cc', 'addon/addon_explain.cc', 'probe/probe_pool.cc', ...WALK_SOURCES];
const POSIX_SOURCES = [...COMMON_SOURCES, 'probe/disk_usage_posix.cc', 'probe/mount_list_posix.cc'];
const WINDOWS_SOURCES = [
  ...COMMON_SOURCES,
  'probe/disk_usage_win.cc',
  'probe/mount_list_win.cc',
  'walk/scan_win.cc',
  'explain/open_files_other.cc',
  'addon/win_delay_load_hook.cc',
];

/** The flags every target compiles with: binding.gyp's defines, C++17, exceptions on (node-addon-api's NAPI_CPP_EXCEPTIONS). */
export const COMMON_FLAGS = [
  '-std=c++17',
  '-O2',
  '-Wall',
  '-Wextra',
  // Zig passes flags of its own that clang reports unused for C++ sources.
  '-Wno-unused-command-line-argument',
  '-fvisibility=hidden',
  '-DNAPI_VERSION=8',
  '-DNAPI_CPP_EXCEPTIONS',
  '-DNODE_ADDON_API_DISABLE_DEPRECATED',
  '-DNODE_GYP_MODULE_NAME=diskprobe',
];

/**
 * The prebuilds, each where node-gyp-build looks for it
 * (prebuilds/<platform>-<arch>/, libc told apart by the file's tag).
 *   zig:      the Zig target triple; the version suffix is the oldest OS or
 *             libc the binary may run on (glibc 2.17, macOS 10.15 and 11.0,
 *             where Node 20 itself needs 2.28, 10.15 and 11.0).
 *   kind:     how it is linked (linkFlags below).
 *   machine:  what the binary's header must say (scripts/binaryFacts.mjs).
 */
export const TARGETS = [
  { name: 'linux-x64-glibc', dir: 'linux-x64', file: 'diskprobe.glibc.node', zig: 'x86_64-linux-gnu.2.17', kind: 'elf', libc: 'glibc', machine: 'x86-64' },
  {
    name: 'linux-arm64-glibc',
    dir: 'linux-arm64',
    file: 'diskprobe.glibc.node',
    zig: 'aarch64-linux-gnu.2.17',
    kind: 'elf',
    libc: 'glibc',
    machine: 'aarch64',
  },
  { name: 'linux-x64-musl', dir: 'linux-x64', file: 'diskprobe.musl.node', zig: 'x86_64-linux-musl', kind: 'elf', libc: 'musl', machine: 'x86-64' },
  { name: 'linux-arm64-musl', dir: 'linux-arm64', file: 'diskprobe.musl.node', zig: 'aarch64-linux-musl', kind: 'elf', libc: 'musl', machine: 'aarch64' },
  { name: 'darwin-x64', dir: 'darwin-x64', file: 'diskprobe.node', zig: 'x86_64-macos.10.15', kind: 'macho', machine: 'x86-64', minOs: '10.15' },
  { name: 'darwin-arm64', dir: 'darwin-arm64', file: 'diskprobe.node', zig: 'aarch64-macos.11.0', kind: 'macho', machine: 'arm64', minOs: '11.0' },
  { name: 'win32-x64', dir: 'win32-x64', file: 'diskprobe.node', zig: 'x86_64-windows-gnu', kind: 'pe', machine: 'x86-64', dlltoolMachine: 'i386:x86-64' },
  { name: 'win32-arm64', dir: 'win32-arm64', file: 'diskprobe.node', zig: 'aarch64-windows-gnu', kind: 'pe', machine: 'arm64', dlltoolMachine: 'arm64' },
];

/** The native sources a target compiles, relative to the project root. */
export function sourcesOf(target) {
  const sources =
    target.kind === 'pe'
      ? WINDOWS_SOURCES
      : target.kind === 'macho'
        ? [...POSIX_SOURCES, 'walk/scan_posix.cc', 'walk/scan_darwin.cc', 'explain/open_files_other.cc']
        : [...POSIX_SOURCES, 'walk/scan_posix.cc', 'walk/scan_linux.cc', 'explain/open_files_linux.cc', 'explain/proc_read.cc', 'explain/held_set.cc'];
  return sources.map((name) => `native/${name}`);
}

/** The flags that are the target's own, compile and link (the Windows relink adds its own: scripts/prebuild.mjs). */
export function targetFlags(target) {
  switch (target.kind) {
    case 'elf':
      // PIC, and only the module's entry points exported: the version script
      // hides the statically linked libc++, libc++abi and libunwind.
      return ['-fPIC', '-shared', '-s', `-Wl,--version-script=${join(root, 'native', 'addon', 'exports.map')}`];
    case 'macho':
      // Node-API comes from the host at load time. Zig's Mach-O linker takes
      // no exported-symbols list: -fvisibility=hidden (COMMON_FLAGS) keeps
      // the exports to the entry points, which napi.h marks visible.
      return ['-shared', '-s', '-Wl,-undefined,dynamic_lookup', '-Wl,-install_name,@rpath/diskprobe.node'];
    case 'pe':
      return ['-DUNICODE', '-D_UNICODE', '-DWIN32_LEAN_AND_MEAN'];
    default:
      throw new Error(`unknown target kind ${target.kind}`);
  }
}

/** The files whose bytes decide the prebuilds, relative to the project root, in order. */
export function inputFiles() {
  const list = (dir, keep) =>
    readdirSync(join(root, dir))
      .filter(keep)
      .sort()
      .map((name) => `${dir}/${name}`);
  // Every file below native/, in its folders by part, as "native/walk/scan.cc" on any platform.
  const tree = (dir) =>
    readdirSync(join(root, dir), { recursive: true })
      .filter((name) => statSync(join(root, dir, name)).isFile())
      .map((name) => name.split('\\').join('/'))
      .sort()
      .map((name) => `${dir}/${name}`);
  return [
    ...tree('native'),
    'scripts/prebuildTargets.mjs',
    ...list('node_modules/node-addon-api', (name) => name.endsWith('.h')),
    ...list('node_modules/node-api-headers/include', (name) => name.endsWith('.h')),
    ...list('node_modules/node-api-headers/def', (name) => name.endsWith('.def')),
  ];
}

/** sha256 over the inputs: each file's path, a NUL, its bytes, a NUL, in inputFiles' order. */
export function inputsSha256() {
  const hash = createHash('sha256');
  for (const file of inputFiles())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}
