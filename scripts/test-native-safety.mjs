// `npm run test:native-safety`: the addon's memory safety, checked by tools.
//
// Builds two instrumented copies of native/ into test/.fixtures/native-safety/
// (never build/ or prebuilds/): one with AddressSanitizer, LeakSanitizer and
// UBSan (GCC's runtime, preloaded into an uninstrumented node), one plain with
// -g for valgrind memcheck. Each copy sits in a package skeleton (dist/ copied,
// node_modules linked) so the public API loads it through the same JS backend.
// test/native-safety/driver.mjs then runs every path of the addon under each
// tool: good, missing, unreadable, overlong and non-ASCII paths, thousands of
// concurrent asynchronous probes in several lanes, timeouts and abandon() on a
// FUSE mount that never answers, the mount list and watcher, callbacks with
// ref/unref, and environment teardown in workers that end or are terminated.
//
// Node and V8 have reports of their own (uninitialised bytes in V8 builtins,
// memory still reachable at exit), so a report counts only when one of its
// stacks (including the allocation, free, or origin stack) has a frame in
// the addon: in its .node file or in native/ or node-addon-api sources. The
// verdict also fails when a driver does not finish (a crash, an abort).
// Before the real run, a self-test runs a deliberately broken addon
// (test/native-safety/canary.c) through the same tools and filters, and fails
// unless every planted bug is found and attributed: the check is not vacuous.
//
// Installs what it needs when missing (as root, with apt-get): g++ (whose
// libgcc-12-dev brings libasan8 and libubsan1) and valgrind.
//
//   node scripts/test-native-safety.mjs [--tool asan|memcheck|both] [--native <dir>] [--scale <n>]
//
// --native builds from another copy of the sources (to try a fix without
// touching native/); --scale multiplies the asynchronous workload.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFuseFixture, fuseMachineSkipReason, startFuseFixture } from '../test/fixtures/fusefix.mjs';
import { reExecInPrivateMounts } from '../test/helpers/privateMounts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const scratch = join(root, 'test/.fixtures/native-safety');
const here = join(root, 'test/native-safety');
const require = createRequire(import.meta.url);

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = argv.indexOf(name);
  return at === -1 ? fallback : argv[at + 1];
};
const toolChoice = flag('--tool', 'both');
const nativeDir = resolve(flag('--native', join(root, 'native')));
const scale = Number(flag('--scale', '1'));
if (!['asan', 'memcheck', 'both'].includes(toolChoice)) fail(`--tool must be asan, memcheck or both, not ${toolChoice}`);
const useAsan = toolChoice !== 'memcheck';
const useMemcheck = toolChoice !== 'asan';
const isRoot = process.getuid?.() === 0;
const started = performance.now();

function fail(message) {
  console.error(`test:native-safety: ${message}`);
  process.exit(2);
}
const say = (message) => console.log(`native-safety: ${message}`);
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

// The rest runs again in a mount namespace of its own (issue 27): the tmpfs
// lanes and the FUSE mount that never answers are seen by nothing outside,
// and go with the run however it ends. Where no namespace can be made, the
// steps that mount are left out, saying why.
const noPrivateMounts = await reExecInPrivateMounts('test:native-safety');
const mayMount = isRoot && noPrivateMounts === undefined;
if (isRoot && !mayMount) say(`no tmpfs lanes: no mount namespace of its own: ${noPrivateMounts}`);

// ------------------------------------------------------------------ tools
function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}
function gccRuntime(name) {
  if (!has('g++')) return undefined;
  const found = spawnSync('g++', [`-print-file-name=${name}`], { encoding: 'utf8' }).stdout.trim();
  return found.startsWith('/') && existsSync(found) ? realpathSync(found) : undefined;
}
function ensureTools() {
  const missing = [];
  if (!has('g++') || !has('gcc')) missing.push('g++', 'gcc');
  else if (useAsan && (!gccRuntime('libasan.so') || !gccRuntime('libubsan.so'))) missing.push('libgcc-12-dev');
  if (useMemcheck && !has('valgrind')) missing.push('valgrind');
  if (missing.length === 0) return;
  if (!isRoot || !has('apt-get')) fail(`missing ${missing.join(', ')}: install them (apt-get install ${missing.join(' ')})`);
  say(`installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  if (update.status !== 0 || install.status !== 0) fail(`apt-get install ${missing.join(' ')} failed`);
}

// ------------------------------------------------------------------ builds
/** Sources, defines and C++ flags of the Linux build, read from binding.gyp. */
function gypTarget() {
  const gyp = JSON.parse(readFileSync(join(root, 'binding.gyp'), 'utf8'));
  const target = gyp.targets.find((t) => t.target_name === 'diskprobe');
  const sources = [...target.sources];
  const defines = [...(target.defines ?? [])];
  const cflags = [...(target.cflags_cc ?? [])];
  for (const [condition, then, otherwise] of target.conditions ?? []) {
    // gyp conditions are Python expressions over OS; here OS is 'linux'.
    const holds = new Function(`return (${condition.replace(/\bOS\b/g, "'linux'")});`)();
    const branch = holds ? then : otherwise;
    if (!branch) continue;
    sources.push(...(branch.sources ?? []));
    defines.push(...(branch.defines ?? []));
    cflags.push(...(branch.cflags_cc ?? []));
  }
  return { sources: sources.map((s) => join(nativeDir, s.replace(/^native\//, ''))), defines, cflags };
}

const addonApiDir = realpathSync(resolve(root, require('node-addon-api').include_dir));
const nodeApiHeaders = require('node-api-headers').include_dir;

function run(command, args, options = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timer;
    if (options.timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, output });
    });
  });
}

const SANITIZE = ['-fsanitize=address,undefined', '-fsanitize-recover=address,undefined', '-fno-sanitize=vptr'];
const variants = {
  asan: { flags: SANITIZE },
  memcheck: { flags: [] },
};

/** A package skeleton whose build/Release holds the instrumented addon. */
async function buildVariant(name) {
  const dir = join(scratch, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'build/Release'), { recursive: true });
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const { sources, defines, cflags } = gypTarget();
  const out = join(dir, 'build/Release/diskprobe.node');
  const args = [
    ...cflags,
    '-fPIC',
    '-shared',
    '-pthread',
    '-g',
    '-O1',
    '-fno-omit-frame-pointer',
    ...variants[name].flags,
    ...defines.map((d) => `-D${d}`),
    '-DBUILDING_NODE_EXTENSION',
    '-DNODE_GYP_MODULE_NAME=diskprobe',
    `-I${nodeApiHeaders}`,
    `-I${addonApiDir}`,
    ...sources,
    '-o',
    out,
  ];
  const result = await run('g++', args);
  if (result.code !== 0) fail(`building the ${name} addon failed:\n${result.output}`);
  if (result.output.trim()) console.log(result.output.trim());
  return { dir, addon: out };
}

async function buildCanary(name) {
  const out = join(scratch, 'canary', `${name}.node`);
  mkdirSync(dirname(out), { recursive: true });
  const args = [
    '-std=c11',
    '-fPIC',
    '-shared',
    '-g',
    '-O1',
    '-fno-omit-frame-pointer',
    ...variants[name].flags,
    '-DNODE_GYP_MODULE_NAME=canary',
    '-DNAPI_VERSION=8',
    `-I${nodeApiHeaders}`,
    join(here, 'canary.c'),
    '-o',
    out,
  ];
  const result = await run('gcc', args);
  if (result.code !== 0) fail(`building the canary failed:\n${result.output}`);
  return out;
}

// ------------------------------------------------------------------ mounts
const mounts = [];
function cleanupMounts() {
  for (const mount of mounts.splice(0)) mount.cleanup();
}
process.on('exit', cleanupMounts);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

function mountTmpfs(name) {
  const dir = join(scratch, 'mnt', name);
  mkdirSync(dir, { recursive: true });
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]).status !== 0) return undefined;
  mounts.push({ cleanup: () => spawnSync('umount', ['-l', dir]) });
  return dir;
}

function fuseFixture() {
  if (!isRoot) return { reason: 'not root' };
  if (!mayMount) return { reason: `no mount namespace of its own: ${noPrivateMounts}` };
  const reason = fuseMachineSkipReason();
  if (reason) return { reason };
  // The fixture ships with the repository: a build that fails throws, it is not a skip.
  return { binary: buildFuseFixture(scratch) };
}

async function mountDead(name, binary) {
  const dir = join(scratch, 'mnt', name);
  mkdirSync(dir, { recursive: true });
  let pid;
  const cleanup = () => {
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      // gone already: the driver kills it to see the mount answer again
    }
    spawnSync('umount', ['-l', dir]);
  };
  mounts.push({ cleanup });
  pid = await startFuseFixture(binary, 'hang', dir);
  return { dir, pid, cleanup };
}

// ------------------------------------------------------------------ reports
/**
 * A report is attributable to the addon when a frame of any of its stacks is
 * in the addon's module or sources.
 */
function attributor(module, sourceDirs) {
  return (text) => text.includes(module) || sourceDirs.some((dir) => text.includes(dir));
}

/** Splits ASan, LSan and UBSan output into records: {kind, bytes, text}. */
function parseSanitizer(text) {
  const records = [];
  let current;
  for (const line of text.split('\n')) {
    const asan = /ERROR: AddressSanitizer: ([\w-]+)/.exec(line);
    const lsan = asan ? null : /^(Direct|Indirect) leak of (\d+) byte/.exec(line);
    const ubsan = asan || lsan ? null : /^(.*): runtime error: (.*)$/.exec(line);
    if (asan) {
      current = { tool: 'asan', kind: asan[1], bytes: 0, text: line };
      records.push(current);
    } else if (lsan) {
      current = { tool: 'lsan', kind: `${lsan[1].toLowerCase()} leak`, bytes: Number(lsan[2]), text: line };
      records.push(current);
    } else if (ubsan) {
      current = { tool: 'ubsan', kind: `runtime error: ${ubsan[2]}`, bytes: 0, text: line };
      records.push(current);
    } else if (/^(SUMMARY|==\d+==)/.test(line)) {
      current = undefined;
    } else if (current && line.trim() !== '') {
      current.text += `\n${line}`;
    }
  }
  return records;
}

const unescapeXml = (s) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Splits memcheck's XML into records: {kind, bytes, text} with one line per frame. */
function parseMemcheck(xml) {
  const records = [];
  for (const [error] of xml.matchAll(/<error>[\s\S]*?<\/error>/g)) {
    const kind = /<kind>(.*?)<\/kind>/.exec(error)?.[1] ?? 'unknown';
    const bytes = Number(/<leakedbytes>(\d+)<\/leakedbytes>/.exec(error)?.[1] ?? 0);
    const what = unescapeXml(/<text>([\s\S]*?)<\/text>/.exec(error)?.[1] ?? /<what>([\s\S]*?)<\/what>/.exec(error)?.[1] ?? '');
    const lines = [`${kind}: ${what.trim()}`];
    for (const part of error.split(/(?=<auxwhat>|<frame>)/)) {
      const aux = /^<auxwhat>(.*?)<\/auxwhat>/.exec(part);
      if (aux) lines.push(`  ${unescapeXml(aux[1])}`);
      if (!part.startsWith('<frame>')) continue;
      const get = (tag) => unescapeXml(new RegExp(`<${tag}>(.*?)</${tag}>`).exec(part)?.[1] ?? '');
      const where = get('file') ? `${get('dir')}/${get('file')}:${get('line')}` : get('obj');
      lines.push(`    ${get('fn') || get('ip')} ${where} <${get('obj')}>`);
    }
    records.push({ tool: 'memcheck', kind, bytes, text: lines.join('\n') });
  }
  return records;
}

const LEAK_KINDS = new Set(['Leak_DefinitelyLost', 'Leak_IndirectlyLost', 'Leak_PossiblyLost']);
// A thread still alive at exit (detached by design) leaves its stack and TLS
// block, allocated by pthread_create, "possibly lost": not an object the addon
// lost. Counted with the still-reachable blocks, and shown.
const isThreadBlock = (record) => /_dl_allocate_tls|allocate_stack/.test(record.text);
const isReachable = (record) => record.kind === 'Leak_StillReachable' || (LEAK_KINDS.has(record.kind) && isThreadBlock(record));
const isLeak = (record) => record.tool === 'lsan' || (LEAK_KINDS.has(record.kind) && !isThreadBlock(record));

/** Runs node with `args` under `tool`; returns the run and its records. */
async function underTool(tool, label, nodeArgs, timeoutMs, spawnOptions = {}) {
  const logs = join(scratch, 'logs');
  mkdirSync(logs, { recursive: true });
  for (const name of readdirSync(logs)) if (name.startsWith(`${label}.`)) rmSync(join(logs, name));
  chmodSync(logs, 0o777); // the EACCES run writes its memcheck XML here as nobody
  let result;
  if (tool === 'asan') {
    const env = {
      ...process.env,
      LD_PRELOAD: [gccRuntime('libasan.so'), gccRuntime('libubsan.so')].join(':'),
      ASAN_OPTIONS: [
        // Reports go to stderr (a pipe): a log file could not be opened by a
        // run as nobody, and the report would be lost.
        'detect_leaks=1',
        'halt_on_error=0',
        'detect_odr_violation=0',
        'allocator_may_return_null=1',
        'stack_trace_format="#%n %p %F %L <%m>"',
      ].join(':'),
      LSAN_OPTIONS: 'max_leaks=200',
      UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=0',
    };
    result = await run(process.execPath, nodeArgs, { env, timeoutMs, ...spawnOptions });
    writeFileSync(join(logs, `${label}.output`), result.output);
    return { result, records: parseSanitizer(result.output) };
  }
  const xml = join(logs, `${label}.memcheck.xml`);
  result = await run(
    'valgrind',
    [
      '--tool=memcheck',
      '--leak-check=full',
      '--show-leak-kinds=all',
      '--errors-for-leak-kinds=definite,indirect',
      '--track-origins=yes',
      '--num-callers=40',
      '--error-limit=no',
      '--xml=yes',
      `--xml-file=${xml}`,
      `--log-file=${join(logs, `${label}.memcheck.log`)}`,
      process.execPath,
      ...nodeArgs,
    ],
    { timeoutMs, ...spawnOptions },
  );
  writeFileSync(join(logs, `${label}.output`), result.output);
  return { result, records: existsSync(xml) ? parseMemcheck(readFileSync(xml, 'utf8')) : [] };
}

// ------------------------------------------------------------------ main
ensureTools();
rmSync(join(scratch, 'logs'), { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
const tools = [useAsan && 'asan', useMemcheck && 'memcheck'].filter(Boolean);
say(`building ${tools.join(' and ')} copies of ${nativeDir.slice(root.length + 1) || nativeDir} into ${scratch.slice(root.length + 1)}/`);
const buildStart = performance.now();
const builds = Object.fromEntries(await Promise.all(tools.map(async (tool) => [tool, { ...(await buildVariant(tool)), canary: await buildCanary(tool) }])));
say(`built in ${seconds(buildStart)}`);

// Another program's FUSE or network mount may never answer; listMounts()
// would probe it, and a thread stuck there keeps the process (and the leak
// check at its exit) from ending. Then the driver skips that one step.
const foreign = readFileSync('/proc/self/mountinfo', 'utf8')
  .split('\n')
  .map((line) => line.split(' - '))
  .filter(([, after]) => after && /^(fuse|nfs|cifs|smb|9p|ceph|glusterfs)/.test(after))
  .map(([before]) => before.split(' ')[4].replace(/\\040/g, ' '))
  .filter((dir) => !dir.startsWith(scratch));
if (foreign.length) say(`other programs' FUSE/network mounts present (${foreign.join(', ')}): listMounts() will not probe every mount`);
const fuse = fuseFixture();
if (fuse.reason) say(`no dead-mount steps: ${fuse.reason}`);
const tmpfs = mayMount ? ['lane-a', 'lane-b'].map(mountTmpfs).filter(Boolean) : [];

const checks = []; // {name, ok, detail}
const record = (name, ok, detail) => {
  checks.push({ name, ok, detail });
  say(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
};

// Self-test: every planted bug must be found and attributed.
const expected = {
  asan: [
    ['heap-buffer-overflow', (r) => r.kind === 'heap-buffer-overflow'],
    ['4242-byte leak', (r) => r.tool === 'lsan' && r.bytes === 4242],
    ['signed integer overflow', (r) => /signed integer overflow/.test(r.kind)],
  ],
  memcheck: [
    ['InvalidWrite', (r) => r.kind === 'InvalidWrite'],
    ['uninitialised branch', (r) => r.kind === 'UninitCondition'],
    ['4242-byte leak', (r) => r.kind === 'Leak_DefinitelyLost' && r.bytes === 4242],
  ],
};
for (const tool of tools) {
  const t0 = performance.now();
  const canary = builds[tool].canary;
  const { result, records } = await underTool(tool, `selftest-${tool}`, [join(here, 'driver.mjs'), '--canary', canary], 120000);
  const attributable = records.filter((r) => attributor(canary, [join(here, 'canary.c')])(r.text));
  const missed = expected[tool].filter(([, match]) => !attributable.some(match)).map(([what]) => what);
  const filtered = records.length - attributable.length;
  record(
    `self-test (${tool})`,
    missed.length === 0 && result.signal === null && /driver: ok/.test(result.output),
    missed.length
      ? `the checker missed: ${missed.join(', ')}`
      : `found ${expected[tool].map(([what]) => what).join(', ')} in the canary; ${filtered} reports of node itself filtered out (${seconds(t0)})`,
  );
}

// The real runs.
const summaries = [];
for (const tool of tools) {
  const t0 = performance.now();
  const { dir, addon } = builds[tool];
  const runScale = tool === 'memcheck' ? 0.25 * scale : scale;
  // Not under valgrind: it treats statfs as a call that never blocks and
  // keeps its one big lock through it, so a probe stuck on the dead mount
  // would freeze every thread of the process. ASan covers those steps.
  const dead = fuse.binary && tool === 'asan' ? await mountDead(`dead-${tool}`, fuse.binary) : undefined;
  const driverArgs = [join(here, 'driver.mjs'), '--root', dir, '--scale', String(runScale), '--scratch', join(scratch, `work-${tool}`)];
  rmSync(join(scratch, `work-${tool}`), { recursive: true, force: true });
  mkdirSync(join(scratch, `work-${tool}`), { recursive: true });
  for (const t of tmpfs) driverArgs.push('--tmpfs', t);
  if (dead) driverArgs.push('--dead', dead.dir, '--dead-pid', String(dead.pid));
  if (foreign.length) driverArgs.push('--no-probe-all');
  const { result, records } = await underTool(tool, `driver-${tool}`, driverArgs, tool === 'asan' ? 300000 : 600000);
  const mine = attributor(addon, [`${nativeDir}/`, `${addonApiDir}/`]);
  const attributable = records.filter((r) => mine(r.text));
  const errors = attributable.filter((r) => !isLeak(r) && !isReachable(r));
  const leaks = attributable.filter(isLeak);
  const reachable = attributable.filter(isReachable);
  // Finished: the driver's last word is ok, and the process then ended by
  // itself (killed at the time limit, it would have skipped the leak check).
  const finished =
    result.signal === null &&
    /driver: ok\s*$/.test(
      result.output
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('driver:'))
        .pop() ?? '',
    );
  const driverLines = result.output.split('\n').filter((l) => l.startsWith('driver:'));
  for (const line of driverLines.filter((l) => /FAILED|NOTE|async probes|boundary/.test(l))) console.log(`  ${line}`);
  if (!finished) {
    console.log(`  the driver did not finish (exit ${result.code}${result.signal ? `, ${result.signal}` : ''}); its last output:`);
    console.log(
      result.output
        .split('\n')
        .filter((l) => !/^driver: (NOTE|raw ENAMETOOLONG|async probes)/.test(l))
        .slice(-25)
        .map((l) => `    ${l}`)
        .join('\n'),
    );
  }
  for (const r of [...errors, ...leaks].slice(0, 10)) console.log(`\n  [${r.tool}] ${r.text.split('\n').slice(0, 30).join('\n    ')}\n`);
  const leakBytes = leaks.reduce((sum, r) => sum + r.bytes, 0);
  summaries.push({ tool, errors: errors.length, leaks: leaks.length, leakBytes, reachable, total: records.length, finished });
  record(
    `driver completed under ${tool}`,
    finished,
    finished ? `${driverLines.find((l) => /async probes/.test(l))?.slice(8) ?? ''}` : `exit ${result.code} ${result.signal ?? ''}`,
  );
  record(
    `${tool}: errors attributable to the addon`,
    errors.length === 0,
    `${errors.length} (of ${records.filter((r) => !isLeak(r) && !isReachable(r)).length} reported in the process)`,
  );
  record(
    `${tool}: leaks attributable to the addon`,
    leaks.length === 0,
    `${leakBytes} bytes in ${leaks.length} records (of ${records.filter(isLeak).length} leak records in the process)`,
  );
  if (reachable.length && finished) {
    say(`  note: ${reachable.length} blocks allocated by the addon were still reachable at exit (held by threads that are detached by design), not leaks:`);
    for (const r of reachable.slice(0, 5)) console.log(`    ${r.text.split('\n').slice(0, 8).join('\n    ')}`);
  }
  say(`  ${tool} run took ${seconds(t0)}`);
  dead?.cleanup();
}

// EACCES: root may enter any directory, so this step runs as nobody.
const lockedParent = mkdtempSync('/tmp/diskprobe-safety-locked-');
mkdirSync(join(lockedParent, 'inside'));
chmodSync(lockedParent, isRoot ? 0o700 : 0o000);
for (const tool of tools) {
  const { dir, addon } = builds[tool];
  const { result, records } = await underTool(
    tool,
    `eacces-${tool}`,
    [join(here, 'driver.mjs'), '--root', dir, '--eacces', join(lockedParent, 'inside')],
    300000,
    isRoot ? { uid: 65534, gid: 65534 } : {},
  );
  const mine = records.filter((r) => attributor(addon, [`${nativeDir}/`, `${addonApiDir}/`])(r.text) && !isReachable(r));
  const finished = result.signal === null && /driver: ok/.test(result.output);
  if (!finished)
    console.log(
      result.output
        .split('\n')
        .slice(-15)
        .map((l) => `    ${l}`)
        .join('\n'),
    );
  for (const r of mine.slice(0, 5)) console.log(`\n  [${r.tool}] ${r.text.split('\n').slice(0, 30).join('\n    ')}\n`);
  const summary = summaries.find((s) => s.tool === tool);
  summary.errors += mine.filter((r) => !isLeak(r)).length;
  summary.leaks += mine.filter(isLeak).length;
  summary.leakBytes += mine.filter(isLeak).reduce((sum, r) => sum + r.bytes, 0);
  record(`${tool}: EACCES paths${isRoot ? ' (as nobody)' : ''}`, finished && mine.length === 0, `${mine.length} reports attributable to the addon`);
}
chmodSync(lockedParent, 0o700);
rmSync(lockedParent, { recursive: true, force: true });

// The addon loaded by a worker only: Node unloads it when the worker ends.
{
  const t0 = performance.now();
  const copy = builds.memcheck?.dir ?? builds.asan.dir;
  const env = builds.memcheck
    ? process.env
    : { ...process.env, LD_PRELOAD: [gccRuntime('libasan.so'), gccRuntime('libubsan.so')].join(':'), ASAN_OPTIONS: 'detect_leaks=0' };
  const crashes = [];
  for (const mode of ['finish', 'terminate', 'finish', 'terminate', 'finish', 'terminate']) {
    const result = await run(process.execPath, [join(here, 'worker-only.mjs'), copy, mode], { env, timeoutMs: 60000 });
    if (result.code !== 0 || !result.output.includes('worker-only: ok')) crashes.push(`${mode}: exit ${result.code ?? result.signal}`);
  }
  record(
    'the addon loaded only by a worker, which ends or is terminated (6 runs)',
    crashes.length === 0,
    crashes.length ? `${crashes.length} crashed: ${crashes.join(', ')}` : `no crash (${seconds(t0)})`,
  );
}

cleanupMounts();
const failed = checks.filter((c) => !c.ok);
console.log('');
for (const s of summaries) {
  say(
    `${s.tool === 'asan' ? 'ASan+LSan+UBSan' : 'valgrind memcheck'}: errors attributable to the addon: ${s.errors}, leaks: ${s.leakBytes} bytes in ${s.leaks} records (${s.total} reports in the process in all)${s.finished ? '' : '; the driver did NOT finish'}`,
  );
}
say(`total time ${seconds(started)}`);
console.log(`native-safety: ${checks.length - failed.length} passed, ${failed.length} failed`);
process.exitCode = failed.length ? 1 : 0;
