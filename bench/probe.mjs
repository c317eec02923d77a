// `npm run bench:probe`: what one disk-usage probe costs, for diskprobe and
// the alternatives, measured side by side in one run. Prints a markdown table
// and rewrites the bench:probe section of docs/benchmarks.md with it.
//
//   node bench/probe.mjs [--path /] [--rounds 15]
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
import { writeDocSection } from './docSection.mjs';
import { calibrate, median, quantile, runRounds, timeConcurrent, timeSequential, timeSync } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

const WARMUP_MS = 300;
const BATCH_MS = 80;
// df is a process spawn, ~1000× a syscall: 2 calls a round gives 30 over 15 rounds.
const CHECK_DISK_SPACE_CALLS = 2;
// Enough to keep every libuv thread (4 by default) and the addon's lane busy.
const IN_FLIGHT = 16;

const { values: flags } = parseArgs({
  options: { path: { type: 'string', default: '/' }, rounds: { type: 'string', default: '15' } },
});
const path = flags.path;
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a positive integer, not ${flags.rounds}`);

// The native backend is what is under test; forcing it makes a missing addon
// an error here rather than a silent fall back to fs.statfs.
process.env.DISKPROBE_BACKEND ??= 'native';
const { backend, diskUsage, diskUsageSync } = await import('../dist/index.js');
const { default: checkDiskSpace } = await import('check-disk-space');

statfsSync(path);  // fail now, with fs's own error, on a path that cannot be probed
const probed = diskUsageSync(path);

const floor = buildFloor();
if (floor.skipped) console.error(`note: ${floor.skipped}; the C floor rows are skipped`);

const RETURNS = {
  floor: 'nothing: the two syscalls only',
  floorStatfs: 'nothing: the one syscall only',
  native: 'exact bytes (blocks × f_frsize), used, usedPercent, mount point, fs type, inodes',
  statfs: 'raw counts (blocks, bfree, bavail, files, ffree), bsize = f_bsize, fs magic number',
  checkDiskSpace: 'diskPath, free, size: bytes from `df -kP`, so whole KiB',
};

/** The table's rows, in order; `context` rows inform but carry no target. */
const rows = [
  floor.skipped ? null : { key: 'floor', label: 'C floor: `statvfs` + `stat` (bench/floor.c, -O2)', returns: RETURNS.floor,
    contender: floorContender('floor', floor.binary, path, 'statvfs+stat') },
  { key: 'sync', label: `diskprobe \`diskUsageSync\` (${backend})`, returns: RETURNS.native,
    contender: { name: 'sync', measure: (calls) => timeSync(() => diskUsageSync(path), calls) } },
  { key: 'statfsSync', label: '`fs.statfsSync`', returns: RETURNS.statfs,
    contender: { name: 'statfsSync', measure: (calls) => timeSync(() => statfsSync(path), calls) } },
  { key: 'async', label: `diskprobe \`diskUsage\` (${backend}), sequential`, returns: RETURNS.native,
    contender: { name: 'async', measure: (calls) => timeSequential(() => diskUsage(path), calls) } },
  { key: 'statfsAsync', label: '`fs.promises.statfs`, sequential', returns: RETURNS.statfs,
    contender: { name: 'statfsAsync', measure: (calls) => timeSequential(() => statfs(path), calls) } },
  { key: 'checkDiskSpace', label: '`check-disk-space` (spawns `df`), sequential', returns: RETURNS.checkDiskSpace,
    contender: { name: 'checkDiskSpace', fixedCalls: CHECK_DISK_SPACE_CALLS, measure: (calls) => timeSequential(() => checkDiskSpace(path), calls) } },
  floor.skipped ? null : { key: 'floorStatfs', context: true, label: 'C: `statfs` alone (the call behind `fs.statfsSync`)', returns: RETURNS.floorStatfs,
    contender: floorContender('floorStatfs', floor.binary, path, 'statfs') },
  { key: 'asyncLoaded', context: true, label: `diskprobe \`diskUsage\`, ${IN_FLIGHT} in flight`, returns: RETURNS.native,
    contender: { name: 'asyncLoaded', measure: (calls) => timeConcurrent(() => diskUsage(path), calls, IN_FLIGHT) } },
  { key: 'statfsAsyncLoaded', context: true, label: `\`fs.promises.statfs\`, ${IN_FLIGHT} in flight`, returns: RETURNS.statfs,
    contender: { name: 'statfsAsyncLoaded', measure: (calls) => timeConcurrent(() => statfs(path), calls, IN_FLIGHT) } },
].filter(Boolean);

const TARGETS = [
  { what: '`diskUsageSync` ÷ `fs.statfsSync`', of: 'sync', over: 'statfsSync', limit: 1.0 },
  { what: '`diskUsageSync` ÷ C floor', of: 'sync', over: 'floor', limit: 2.0 },
  { what: '`diskUsage` ÷ `fs.promises.statfs` (sequential)', of: 'async', over: 'statfsAsync', limit: 1.0 },
];
const CONTEXT_RATIOS = [
  { what: 'C `statvfs` + `stat` ÷ C `statfs` alone: the price of the second syscall', of: 'floor', over: 'floorStatfs' },
  { what: '`fs.statfsSync` ÷ C `statfs` alone: Node\'s own overhead', of: 'statfsSync', over: 'floorStatfs' },
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
  const samples = await runRounds(rows.map((row) => row.contender), rounds, (done) => process.stderr.write(`\rround ${done}/${rounds}`));
  process.stderr.write(`\rdone in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  const results = new Map(rows.map((row) => {
    const ns = samples.get(row.contender.name);
    return [row.key, { ...row, medianUs: median(ns) / 1000, p25Us: quantile(ns, 0.25) / 1000, p75Us: quantile(ns, 0.75) / 1000 }];
  }));
  const ratio = (of, over) => (results.has(of) && results.has(over) ? results.get(of).medianUs / results.get(over).medianUs : undefined);

  const body = [
    machineSummary(),
    methodText(),
    resultsTable([...results.values()]),
    targetsTable(TARGETS.map((target) => ({ ...target, ratio: ratio(target.of, target.over) }))),
    contextList(CONTEXT_RATIOS.map((entry) => ({ ...entry, ratio: ratio(entry.of, entry.over) }))),
  ].join('\n\n');
  console.log(`\n${body}\n`);
  writeDocSection(DOC, 'probe', '## Probe: the cost of one call', body);
  console.error(`wrote the bench:probe section of ${DOC.slice(ROOT.length)}`);
} finally {
  floor.dispose?.();
}

function machineSummary() {
  const cpus = os.cpus();
  const glibc = process.report?.getReport().header.glibcVersionRuntime;
  const addon = backend === 'native' ? createRequire(import.meta.url)('node-gyp-build').path(ROOT).slice(ROOT.length) : 'none';
  const { version } = createRequire(import.meta.url)('../package.json');
  return [
    `Run of ${new Date().toISOString().slice(0, 10)}, diskprobe ${version}, addon \`${addon}\`.`,
    '',
    `- Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}${glibc ? `, glibc ${glibc}` : ''}`,
    `- CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} logical cores`,
    `- Path probed: \`${path}\` (${probed.fsType ?? 'unknown fs'} mounted at \`${probed.mountPoint ?? '?'}\`)`,
    `- C compiler: ${floor.skipped ? `none (${floor.skipped})` : floor.compiler}`,
  ].join('\n');
}

function methodText() {
  return [
    `**Method.** Each contender is first warmed up for at least ${WARMUP_MS} ms, during which its batch grows until one batch`,
    `takes about ${BATCH_MS} ms (\`check-disk-space\`: a fixed ${CHECK_DISK_SPACE_CALLS} calls a batch). Then ${rounds} rounds: in each,`,
    'every contender runs one batch, round-robin, the starting contender rotating each round, so drift and bursts of',
    'machine noise fall on all of them alike. A batch gives its mean time per call; the table shows the median of the',
    `${rounds} batch means and their 25th–75th percentiles. Asynchronous calls are measured primarily **sequentially**:`,
    'each call is awaited before the next starts, so the figure is one call\'s latency, including the trip to a worker',
    `thread and back. As context, the same calls with ${IN_FLIGHT} in flight (elapsed time ÷ calls: cost per call under load).`,
    'The C floor is compiled with `-O2` on each run and times its own batches with `clock_gettime(CLOCK_MONOTONIC)`,',
    'after an unreported warm-up batch, so process start-up is not counted. Calls use default options',
    '(numbers, not bigint; `diskUsage`\'s default 5000 ms timeout).',
  ].join('\n');
}

function microseconds(value) {
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

function resultsTable(results) {
  const lines = [
    '| Approach | µs per call (median) | p25–p75 µs | Calls a batch | Returns |',
    '|---|--:|--:|--:|---|',
  ];
  for (const row of results) {
    const label = row.context ? `${row.label} *(context)*` : row.label;
    lines.push(`| ${label} | **${microseconds(row.medianUs)}** | ${microseconds(row.p25Us)}–${microseconds(row.p75Us)} | ${row.contender.calls} | ${row.returns} |`);
  }
  return lines.join('\n');
}

function targetsTable(targets) {
  const lines = ['| Target | Measured | Limit | Result |', '|---|--:|--:|---|'];
  for (const { what, ratio, limit } of targets) {
    if (ratio === undefined) {
      lines.push(`| ${what} | n/a | ≤ ${limit.toFixed(1)}× | skipped (no C floor) |`);
      continue;
    }
    const result = ratio <= limit ? 'PASS' : `MISS by ${((ratio / limit - 1) * 100).toFixed(0)}%`;
    lines.push(`| ${what} | ${ratio.toFixed(2)}× | ≤ ${limit.toFixed(1)}× | **${result}** |`);
  }
  return lines.join('\n');
}

function contextList(entries) {
  const known = entries.filter((entry) => entry.ratio !== undefined);
  return ['Context (no target):', '', ...known.map(({ what, ratio }) => `- ${what}: ${ratio.toFixed(2)}×`)].join('\n');
}
