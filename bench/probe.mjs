// `npm run bench:probe`: what one disk-usage probe costs, for diskprobe and
// the alternatives, measured side by side in one run. Prints a markdown table
// and rewrites the bench:probe section of docs/benchmarks.md with it.
//
//   node bench/probe.mjs [--path /] [--below bench/] [--rounds 15]
//
// A script, not a test: it states targets and reports PASS or MISS, and
// never fails the process for a miss.
import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildFloor, floorContender } from './cFloor.mjs';
import { sourceRevision, writeDocSection } from './docSection.mjs';
import { calibrate, median, quantile, runRounds, timeConcurrent, timeSequential, timeSync } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

const WARMUP_MS = 300;
const BATCH_MS = 80;
// df is a process spawn, ~1000× a syscall: 2 calls a round gives 30 over 15 rounds.
const CHECK_DISK_SPACE_CALLS = 2;
// Enough to keep every libuv thread (4 by default) and the addon's lane busy.
const IN_FLIGHT = 16;
// A contender whose middle half of batch means spans more than this ratio
// (p75 ÷ p25) ran in more than one speed mode; a verdict resting on it may
// flip from run to run, and the table says so.
const UNSTEADY_SPREAD = 1.25;

const { values: flags } = parseArgs({
  options: {
    path: { type: 'string', default: '/' },
    below: { type: 'string', default: fileURLToPath(new URL('.', import.meta.url)).replace(/\/$/, '') },
    rounds: { type: 'string', default: '15' },
  },
});
const path = flags.path;
// A path below a mount point as well: `/` is a mount's root, which the
// native backend answers from its open root; most paths are not.
const below = flags.below;
/** `below` as a reader can repeat it: relative to the repository when it lies inside it (no absolute path of this machine). */
const displayBelow = below.startsWith(ROOT) ? `${below.slice(ROOT.length) || '.'}/` : below;
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a positive integer, not ${flags.rounds}`);

// The native backend is what is under test; forcing it makes a missing addon
// an error here rather than a silent fall back to fs.statfs.
process.env.DISKPROBE_BACKEND ??= 'native';
const { backend, diskUsage, diskUsageSync } = await import('../dist/index.js');
const { default: checkDiskSpace } = await import('check-disk-space');

statfsSync(path); // fail now, with fs's own error, on a path that cannot be probed
statfsSync(below);
const probed = diskUsageSync(path);
const probedBelow = diskUsageSync(below);

const floor = buildFloor();
if (floor.skipped) console.error(`note: ${floor.skipped}; the C floor rows are skipped`);

const RETURNS = [
  {
    who: '`diskUsageSync` / `diskUsage`',
    what: "exact bytes (block counts × `f_frsize`), used, usedPercent (df's Use% when rounded up), mount point, fs type, inode counts; numbers or bigint",
  },
  {
    who: '`fs.statfsSync` / `fs.promises.statfs`',
    what: 'the raw `statfs` counts (blocks, bfree, bavail, files, ffree), `bsize` = `f_bsize` (on virtiofs, ZFS, CephFS and FUSE it differs from `f_frsize`, the unit the counts are in), the fs magic number; no bytes, no mount point, no fs name',
  },
  { who: '`check-disk-space`', what: '`diskPath`, `free`, `size`: bytes parsed from `df -kP`, so in whole KiB; no inodes' },
  { who: 'the C floors', what: 'nothing: the system calls alone' },
];

/** The table's rows, in order; `context` rows inform but carry no target. */
const rows = [
  floor.skipped
    ? null
    : { key: 'floor', label: 'C floor: `statvfs` + `stat` (bench/floor.c, -O2)', contender: floorContender('floor', floor.binary, path, 'statvfs+stat') },
  {
    key: 'sync',
    label: `diskprobe \`diskUsageSync\` (${backend})`,
    contender: { name: 'sync', measure: (calls) => timeSync(() => diskUsageSync(path), calls) },
  },
  { key: 'statfsSync', label: '`fs.statfsSync`', contender: { name: 'statfsSync', measure: (calls) => timeSync(() => statfsSync(path), calls) } },
  {
    key: 'async',
    label: `diskprobe \`diskUsage\` (${backend}), sequential`,
    contender: { name: 'async', measure: (calls) => timeSequential(() => diskUsage(path), calls) },
  },
  {
    key: 'statfsAsync',
    label: '`fs.promises.statfs`, sequential',
    contender: { name: 'statfsAsync', measure: (calls) => timeSequential(() => statfs(path), calls) },
  },
  {
    key: 'checkDiskSpace',
    label: '`check-disk-space` (spawns `df`), sequential',
    contender: {
      name: 'checkDiskSpace',
      fixedCalls: CHECK_DISK_SPACE_CALLS,
      measure: async (calls) => ({
        ...(await timeSequential(() => checkDiskSpace(path), calls)),
        cpuNs: undefined, // most of its work is df's, in another process
      }),
    },
  },
  {
    key: 'syncBelow',
    label: `diskprobe \`diskUsageSync\`, below a mount point`,
    contender: { name: 'syncBelow', measure: (calls) => timeSync(() => diskUsageSync(below), calls) },
  },
  {
    key: 'statfsSyncBelow',
    label: '`fs.statfsSync`, below a mount point',
    contender: { name: 'statfsSyncBelow', measure: (calls) => timeSync(() => statfsSync(below), calls) },
  },
  {
    key: 'asyncBelow',
    label: `diskprobe \`diskUsage\`, below a mount point, sequential`,
    contender: { name: 'asyncBelow', measure: (calls) => timeSequential(() => diskUsage(below), calls) },
  },
  {
    key: 'statfsAsyncBelow',
    label: '`fs.promises.statfs`, below a mount point, sequential',
    contender: { name: 'statfsAsyncBelow', measure: (calls) => timeSequential(() => statfs(below), calls) },
  },
  floor.skipped
    ? null
    : {
        key: 'floorStatvfs',
        context: true,
        label: "C: `statvfs` alone (the probe once the path's mount is known)",
        contender: floorContender('floorStatvfs', floor.binary, path, 'statvfs'),
      },
  floor.skipped
    ? null
    : {
        key: 'floorStatfs',
        context: true,
        label: 'C: `statfs` alone (the call behind `fs.statfsSync`)',
        contender: floorContender('floorStatfs', floor.binary, path, 'statfs'),
      },
  {
    key: 'asyncLoaded',
    context: true,
    label: `diskprobe \`diskUsage\`, ${IN_FLIGHT} in flight`,
    contender: { name: 'asyncLoaded', measure: (calls) => timeConcurrent(() => diskUsage(path), calls, IN_FLIGHT) },
  },
  {
    key: 'statfsAsyncLoaded',
    context: true,
    label: `\`fs.promises.statfs\`, ${IN_FLIGHT} in flight`,
    contender: { name: 'statfsAsyncLoaded', measure: (calls) => timeConcurrent(() => statfs(path), calls, IN_FLIGHT) },
  },
].filter(Boolean);

/** Heads the section when it is first added to the doc; hand edits to it are kept after that. */
const SECTION_INTRO = `## Probe: the cost of one call

Reproduce with \`npm run bench:probe\` (compiles, then runs \`node bench/probe.mjs\`; flags
\`--path <p>\`, default \`/\`, \`--below <p>\`, default \`bench/\`, and \`--rounds <n>\`, default 15). It rewrites only the text between
the bench:probe markers.`;

const TARGETS = [
  { what: '`diskUsageSync` ÷ `fs.statfsSync`', of: 'sync', over: 'statfsSync', limit: 1.0 },
  { what: '`diskUsageSync` ÷ C floor', of: 'sync', over: 'floor', limit: 2.0 },
  { what: '`diskUsage` ÷ `fs.promises.statfs` (sequential)', of: 'async', over: 'statfsAsync', limit: 1.0 },
  { what: '`diskUsageSync` ÷ `fs.statfsSync`, below a mount point', of: 'syncBelow', over: 'statfsSyncBelow', limit: 1.0 },
  { what: '`diskUsage` ÷ `fs.promises.statfs` (sequential), below a mount point', of: 'asyncBelow', over: 'statfsAsyncBelow', limit: 1.0 },
];
const CONTEXT_RATIOS = [
  { what: '`diskUsageSync` ÷ C `statvfs` alone', of: 'sync', over: 'floorStatvfs' },
  { what: 'C `statvfs` + `stat` ÷ C `statfs` alone: the price of the second syscall', of: 'floor', over: 'floorStatfs' },
  { what: "`fs.statfsSync` ÷ C `statfs` alone: Node's own overhead", of: 'statfsSync', over: 'floorStatfs' },
  { what: '`diskUsage` ÷ `fs.promises.statfs` (sequential), in CPU time', of: 'async', over: 'statfsAsync', field: 'cpuUs' },
  { what: `\`diskUsage\` ÷ \`fs.promises.statfs\`, ${IN_FLIGHT} in flight`, of: 'asyncLoaded', over: 'statfsAsyncLoaded' },
  { what: '`check-disk-space` ÷ `diskUsage` (sequential)', of: 'checkDiskSpace', over: 'async' },
];

try {
  const started = performance.now();
  for (const row of rows) {
    process.stderr.write(`calibrating ${row.key}… `);
    row.contender.calls = await calibrate(row.contender, { warmupMs: WARMUP_MS, batchMs: BATCH_MS });
    process.stderr.write(`${row.contender.calls} calls a batch\n`);
  }
  const showRound = process.stderr.isTTY ? (done) => process.stderr.write(`\rround ${done}/${rounds}`) : undefined;
  const samples = await runRounds(
    rows.map((row) => row.contender),
    rounds,
    showRound,
  );
  console.error(`${process.stderr.isTTY ? '\r' : ''}measured in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const results = new Map(
    rows.map((row) => {
      const batches = samples.get(row.contender.name);
      const wall = batches.map((timing) => timing.wallNs / 1000);
      const cpu = batches.some((timing) => timing.cpuNs === undefined) ? undefined : batches.map((timing) => timing.cpuNs / 1000);
      return [row.key, { ...row, medianUs: median(wall), p25Us: quantile(wall, 0.25), p75Us: quantile(wall, 0.75), cpuUs: cpu && median(cpu) }];
    }),
  );
  const unsteady = (key) => results.has(key) && results.get(key).p75Us / results.get(key).p25Us > UNSTEADY_SPREAD;
  // Whether `of`'s middle half of batch means overlaps `over`'s scaled by the
  // target's limit: then the verdict is a coin toss between runs.
  const rangesMeet = (of, over, limit) => {
    const a = results.get(of),
      b = results.get(over);
    return a !== undefined && b !== undefined && a.p25Us <= b.p75Us * limit && b.p25Us * limit <= a.p75Us;
  };
  const ratio = (of, over, field = 'medianUs') => {
    const value = results.get(of)?.[field],
      base = results.get(over)?.[field];
    return value === undefined || base === undefined ? undefined : value / base;
  };

  const body = [
    machineSummary(),
    methodText(),
    resultsTable([...results.values()]),
    returnsList(),
    targetsTable(
      TARGETS.map((target) => ({
        ...target,
        ratio: ratio(target.of, target.over),
        unsteady: unsteady(target.of) || unsteady(target.over),
        close: rangesMeet(target.of, target.over, target.limit),
      })),
    ),
    contextList(CONTEXT_RATIOS.map((entry) => ({ ...entry, ratio: ratio(entry.of, entry.over, entry.field) }))),
  ].join('\n\n');
  console.log(`\n${body}\n`);
  writeDocSection(DOC, 'probe', SECTION_INTRO, body);
  console.error(`wrote the bench:probe section of ${DOC.slice(ROOT.length)}`);
} finally {
  floor.dispose?.();
}

function machineSummary() {
  const cpus = os.cpus();
  const glibc = process.report?.getReport().header.glibcVersionRuntime;
  const addon =
    backend === 'native'
      ? createRequire(import.meta.url)('node-gyp-build')
          .path(ROOT)
          .slice(ROOT.length)
      : 'none';
  const { version } = createRequire(import.meta.url)('../package.json');
  return [
    `Run of ${new Date().toISOString().slice(0, 10)}, diskprobe ${version}${sourceRevision(ROOT)}, addon \`${addon}\`.`,
    '',
    `- Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}${glibc ? `, glibc ${glibc}` : ''}`,
    `- CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} logical cores`,
    `- Path probed: \`${path}\` (${probed.fsType ?? 'unknown fs'} mounted at \`${probed.mountPoint ?? '?'}\`); below a mount point: \`${displayBelow}\` (${probedBelow.fsType ?? 'unknown fs'} mounted at \`${probedBelow.mountPoint ?? '?'}\`)`,
    `- C compiler: ${floor.skipped ? `none (${floor.skipped})` : floor.compiler}`,
  ].join('\n');
}

function methodText() {
  return [
    '**Method.**',
    '',
    `- Warm-up: each contender runs for at least ${WARMUP_MS} ms while its batch grows until one batch takes about`,
    `  ${BATCH_MS} ms (\`check-disk-space\`: a fixed ${CHECK_DISK_SPACE_CALLS} calls a batch).`,
    `- ${rounds} rounds: in each, every contender runs one batch, in a fresh random order, so drift and bursts of`,
    '  machine noise fall on all of them alike and none always runs right after the same other one.',
    '- A batch gives its mean time per call; the table shows the median of those batch means, and their',
    '  25th–75th percentiles.',
    '- Asynchronous calls are measured **sequentially**, the primary measure: each call is awaited before the next',
    "  starts, so the figure is one call's latency, trip to a worker thread and back included. As context, the same",
    `  calls with ${IN_FLIGHT} in flight (elapsed time ÷ calls: the cost per call under load).`,
    '- "CPU µs": this process\'s CPU time per call (all threads, user + system, `process.cpuUsage()`), median of the',
    "  batches. Time spent idle waiting for a thread is left out; the kernel's (and a hypervisor's) work to wake",
    '  that thread is not. "–" where the work runs in another process.',
    '- The C floors, when a C compiler is found (`$CC`, default `cc`), are built with `-O2` on each run and time their own batches with',
    '  `clock_gettime(CLOCK_MONOTONIC)` after an unreported warm-up batch, so process start-up is not counted.',
    "- Calls use default options: numbers, not bigint; `diskUsage`'s default 5000 ms timeout.",
  ].join('\n');
}

function microseconds(value) {
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

function resultsTable(results) {
  const lines = ['| Approach | µs per call (median) | p25–p75 µs | CPU µs per call | Calls a batch |', '|---|--:|--:|--:|--:|'];
  for (const row of results) {
    const label = row.context ? `${row.label} *(context)*` : row.label;
    const cpu = row.cpuUs === undefined ? '–' : microseconds(row.cpuUs);
    lines.push(`| ${label} | **${microseconds(row.medianUs)}** | ${microseconds(row.p25Us)}–${microseconds(row.p75Us)} | ${cpu} | ${row.contender.calls} |`);
  }
  return lines.join('\n');
}

function returnsList() {
  return ['What each returns:', '', ...RETURNS.map(({ who, what }) => `- ${who}: ${what}`)].join('\n');
}

function targetsTable(targets) {
  const lines = ['| Target | Measured | Limit | Result |', '|---|--:|--:|---|'];
  let anyUnsteady = false;
  for (const { what, ratio, limit, unsteady, close } of targets) {
    if (ratio === undefined) {
      lines.push(`| ${what} | n/a | ≤ ${limit.toFixed(1)}× | skipped (no C floor) |`);
      continue;
    }
    const over = (ratio / limit - 1) * 100;
    const result = ratio <= limit ? 'PASS' : `MISS by ${over < 10 ? over.toFixed(1) : over.toFixed(0)}%`;
    const notes = [close && 'too close to call: the p25–p75 ranges overlap', unsteady && 'unsteady †'].filter(Boolean);
    anyUnsteady ||= unsteady;
    lines.push(`| ${what} | ${ratio.toFixed(2)}× | ≤ ${limit.toFixed(1)}× | **${result}**${notes.length ? ` (${notes.join('; ')})` : ''} |`);
  }
  if (anyUnsteady) {
    lines.push(
      '',
      `† A contender in this ratio had a p75 ÷ p25 spread above ${UNSTEADY_SPREAD}: its batches ran at more than one speed,`,
      'so this verdict can flip between runs. See the reading below the table.',
    );
  }
  return lines.join('\n');
}

function contextList(entries) {
  const known = entries.filter((entry) => entry.ratio !== undefined);
  return ['Context (no target):', '', ...known.map(({ what, ratio }) => `- ${what}: ${ratio.toFixed(2)}×`)].join('\n');
}
