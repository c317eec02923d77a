// The static checks every prebuild must pass, from its bytes alone
// (scripts/binaryFacts.mjs): the CPU, the oldest OS or libc it claims, the
// module entry points Node looks for, and that everything it imports is
// Node-API (bound to the host at load time) or the platform's C library.
// npm run prebuilds runs them on what it builds, and
// test/unit/prebuildBinaries.test.ts on what is committed. For darwin and
// win32-arm64 they are the only checks this machine can make.

/** The symbols Node looks up in an addon (node_api.h: NAPI_MODULE_INIT, NODE_API_MODULE_GET_API_VERSION). */
export const ENTRY_POINTS = ['napi_register_module_v1', 'node_api_module_get_api_version_v1'];
/** The highest glibc symbol version a Linux glibc prebuild may need: Node 20's own floor is 2.28. */
export const GLIBC_CEILING = '2.28';

const GLIBC_LIBS = new Set(['libc.so.6', 'libm.so.6', 'libpthread.so.0', 'libdl.so.2', 'ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1']);
const isNodeApi = (name) => /^_?(napi|node_api)_/.test(name);
/** A C++ runtime symbol (Itanium mangling): one would mean a libstdc++ or libc++ left to the host. */
const isCxx = (name) => /^_?_Z/.test(name);

/** Compares dotted versions numerically: negative, zero or positive. */
export function compareVersions(a, b) {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let index = 0; index < Math.max(x.length, y.length); index++) {
    const difference = (x[index] ?? 0) - (y[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The highest GLIBC_ version among the facts' imports, or undefined. */
export function highestGlibc(facts) {
  return facts.imports
    .map((symbol) => /^GLIBC_(\d+(?:\.\d+)*)$/.exec(symbol.version ?? '')?.[1])
    .filter((version) => version !== undefined)
    .sort(compareVersions)
    .at(-1);
}

/**
 * What is wrong with a binary built for `target` (scripts/prebuildTargets.mjs)
 * whose facts are `facts`: a list of sentences, empty when it passes.
 */
export function prebuildProblems(target, facts) {
  const problems = [];
  const fail = (what) => problems.push(what);
  if (facts.format !== target.kind) fail(`is ${facts.format}, not ${target.kind}`);
  if (facts.machine !== target.machine) fail(`is for ${facts.machine}, not ${target.machine}`);
  const prefix = facts.format === 'macho' ? '_' : '';
  for (const entry of ENTRY_POINTS) if (!facts.exports.includes(prefix + entry)) fail(`does not export ${prefix}${entry}`);
  // (Mach-O's weak definitions are bound to the image itself, "(self)": not the host's.)
  const cxxImports = facts.imports.filter(({ name, lib }) => isCxx(name) && lib !== '(self)').map(({ name }) => name);
  if (cxxImports.length > 0) fail(`imports C++ runtime symbols, which the host may lack: ${cxxImports.slice(0, 5).join(', ')}`);
  if (facts.format === 'elf') elfProblems(target, facts, fail);
  else if (facts.format === 'macho') machoProblems(target, facts, fail);
  else if (facts.format === 'pe') peProblems(facts, fail);
  return problems;
}

function elfProblems(target, facts, fail) {
  // ELF exports share one namespace with the host: only the entry points.
  const extra = facts.exports.filter((name) => !ENTRY_POINTS.includes(name));
  if (extra.length > 0) fail(`exports more than the entry points: ${extra.slice(0, 5).join(', ')}`);
  if (target.libc === 'musl') {
    const other = facts.needed.filter((lib) => lib !== 'libc.so');
    if (other.length > 0) fail(`needs ${other.join(', ')} besides musl's libc.so`);
    const versioned = facts.imports.filter(({ version }) => version !== undefined);
    if (versioned.length > 0) fail(`imports versioned symbols, which musl has none of: ${versioned[0].name}@${versioned[0].version}`);
    return;
  }
  const other = facts.needed.filter((lib) => !GLIBC_LIBS.has(lib));
  if (other.length > 0) fail(`needs ${other.join(', ')}: only glibc's own libraries may be needed`);
  const highest = highestGlibc(facts);
  if (highest !== undefined && compareVersions(highest, GLIBC_CEILING) > 0) fail(`needs GLIBC_${highest}, above the floor of GLIBC_${GLIBC_CEILING}`);
  const floor = /\.(\d+\.\d+)$/.exec(target.zig)?.[1];
  if (highest !== undefined && floor !== undefined && compareVersions(highest, floor) > 0) fail(`needs GLIBC_${highest}, above the ${floor} it was built for`);
  // Besides Node-API, an unversioned import is one glibc does not define: only the profiler's weak hook.
  const loose = facts.imports.filter(({ name, version }) => version === undefined && !isNodeApi(name) && name !== '__gmon_start__');
  if (loose.length > 0)
    fail(
      `imports symbols no glibc library versions: ${loose
        .map(({ name }) => name)
        .slice(0, 5)
        .join(', ')}`,
    );
  const misplaced = facts.imports.filter(({ name, version }) => isNodeApi(name) && version !== undefined);
  if (misplaced.length > 0) fail(`binds Node-API to a library: ${misplaced[0].name}@${misplaced[0].lib}`);
}

function machoProblems(target, facts, fail) {
  if (facts.minOs !== target.minOs) fail(`claims macOS ${facts.minOs ?? '(none)'}, not ${target.minOs}`);
  if (facts.needed.join() !== '/usr/lib/libSystem.B.dylib') fail(`needs ${facts.needed.join(', ') || 'nothing'}, not libSystem alone`);
  if (facts.installName !== '@rpath/diskprobe.node') fail(`has the install name ${facts.installName ?? '(none)'}`);
  for (const { name, lib } of facts.imports) {
    const expected = isNodeApi(name) ? '(dynamic lookup)' : '/usr/lib/libSystem.B.dylib';
    if (lib !== expected && lib !== '(self)') {
      fail(`imports ${name} from ${lib ?? '(nowhere)'}, not ${expected}`);
      return;
    }
  }
  // Two-level namespaces bind each import to the image that it names, so an
  // export is only found by who asks this image for it. Zig's linker takes no
  // exported-symbols list: besides the entry points, libc++'s replaceable
  // operator new and delete (default visibility by the standard) and the
  // linker's own image symbols are exported.
  const extra = facts.exports.filter(
    (name) => !ENTRY_POINTS.includes(name.slice(1)) && !/^__Z(nw|na|dl|da)/.test(name) && name !== '__mh_dylib_header' && name !== '___dso_handle',
  );
  if (extra.length > 0) fail(`exports ${extra.slice(0, 5).join(', ')}`);
}

function peProblems(facts, fail) {
  const allowed = (lib) => /^kernel32\.dll$/i.test(lib) || /^api-ms-win-crt-[a-z]+-l1-1-0\.dll$/i.test(lib);
  const other = facts.needed.filter((lib) => !allowed(lib));
  if (other.length > 0) fail(`imports from ${other.join(', ')} at load time: only KERNEL32 and the Universal CRT may be`);
  if ((facts.delayLoaded ?? []).join() !== 'node.exe') fail(`delay-loads ${(facts.delayLoaded ?? []).join(', ') || 'nothing'}, not node.exe alone`);
  for (const { name, lib, delayLoaded } of facts.imports) {
    if (isNodeApi(name) !== (lib === 'node.exe' && delayLoaded === true)) {
      fail(`imports ${name} from ${lib}${delayLoaded ? ' (delay-loaded)' : ''}: Node-API, and only it, comes from the host`);
      return;
    }
  }
  // A DLL's exports are only found by GetProcAddress on it: besides the entry
  // points, the statically linked libunwind's, which marks them dllexport.
  const extra = facts.exports.filter((name) => !ENTRY_POINTS.includes(name) && !/^(_Unwind_|unw_|_GCC_specific_handler$)/.test(name));
  if (extra.length > 0) fail(`exports ${extra.slice(0, 5).join(', ')}`);
}
