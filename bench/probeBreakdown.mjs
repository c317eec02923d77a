// `node bench/probeBreakdown.mjs [--path /] [--rounds 10]` (after `npm run compile`):
// where the time of one diskprobe call goes. Times the public functions next
// to the raw addon calls they are built from, interleaved as bench/probe.mjs
// does, and prints the differences. Prints only; it writes no doc.
//
// It reaches into the addon below the public API, so it is a diagnostic for
// whoever tunes the JS layer, not a measure users should quote.
//
// On a machine with few cores, asynchronous latency is dominated by where the
// scheduler puts the threads (a wake-up on another, idle CPU costs tens of
// µs on a VM) and jumps between modes from run to run. Pinned to one CPU,
// `taskset -c 0 node bench/probeBreakdown.mjs`, the asynchronous differences
// show the work each layer does.
import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildFloor, floorContender } from './cFloor.mjs';
import { calibrate, median, runRounds, timeSequential, timeSync } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WARMUP_MS = 200;
const BATCH_MS = 50;
// The library gives each mount point a lane, numbered from 1 in first-use
// order; the raw calls share the path's lane so both use the same thread.
const LANE = 1;
// Ids for raw calls, far above any the library reaches in one run.
const FIRST_RAW_ID = 0xe0000000;

const { values: flags } = parseArgs({
  options: { path: { type: 'string', default: '/' }, rounds: { type: 'string', default: '10' } },
});
const path = flags.path;
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a positive integer, not ${flags.rounds}`);

// The addon has one callback for all asynchronous answers, and the library
// installs its own. To time raw asynchronous calls next to the library's, the
// library is handed a stand-in binding whose setCallback is captured; the
// real callback then routes raw ids here and every other id to the library.
const require = createRequire(import.meta.url);
const addonFile = require('node-gyp-build').path(ROOT);
const binding = require(addonFile);
const rawWaiters = new Map();
let libraryCallback = () => {};
require.cache[addonFile].exports = Object.create(binding, {
  setCallback: {
    value: (callback) => {
      libraryCallback = callback;
    },
  },
});
binding.setCallback((id, status, names) => {
  const settle = rawWaiters.get(id);
  if (settle === undefined) return libraryCallback(id, status, names);
  rawWaiters.delete(id);
  settle(status);
});

process.env.DISKPROBE_BACKEND = 'native';
const { diskUsage, diskUsageSync } = await import('../dist/index.js');
statfsSync(path);

let nextRawId = FIRST_RAW_ID;
/** One raw asynchronous probe: the addon's thread hop and callback, no JS layer. */
function rawStatAsync() {
  return new Promise((resolve) => {
    const id = nextRawId++;
    rawWaiters.set(id, resolve);
    binding.statAsync(path, LANE, id, true);
  });
}

const floor = buildFloor();
const stages = [
  floor.skipped ? null : floorContender('C statvfs + stat', floor.binary, path, 'statvfs+stat'),
  floor.skipped ? null : floorContender('C statvfs alone', floor.binary, path, 'statvfs'),
  floor.skipped ? null : floorContender('C statfs alone', floor.binary, path, 'statfs'),
  { name: 'raw names() (an N-API call doing nothing on Linux)', measure: (calls) => timeSync(() => binding.names(), calls) },
  // The second argument asks for the stat (device id) too; an addon from
  // before it existed ignores it and always stats.
  { name: 'raw statSync(path, true)', measure: (calls) => timeSync(() => binding.statSync(path, true), calls) },
  { name: 'raw statSync(path, false)', measure: (calls) => timeSync(() => binding.statSync(path, false), calls) },
  { name: 'raw mountTableChanged()', measure: (calls) => timeSync(() => binding.mountTableChanged(), calls) },
  { name: 'diskUsageSync(path)', measure: (calls) => timeSync(() => diskUsageSync(path), calls) },
  { name: 'fs.statfsSync(path)', measure: (calls) => timeSync(() => statfsSync(path), calls) },
  {
    name: "raw statAsync, loop ref'd once",
    async measure(calls) {
      binding.ref();
      try {
        return await timeSequential(rawStatAsync, calls);
      } finally {
        binding.unref();
      }
    },
  },
  {
    name: 'raw statAsync + ref()/unref() each call',
    measure: (calls) =>
      timeSequential(async () => {
        binding.ref();
        await rawStatAsync();
        binding.unref();
      }, calls),
  },
  { name: 'diskUsage(path, { timeout: Infinity })', measure: (calls) => timeSequential(() => diskUsage(path, { timeout: Infinity }), calls) },
  { name: 'diskUsage(path)', measure: (calls) => timeSequential(() => diskUsage(path), calls) },
  { name: 'fs.promises.statfs(path)', measure: (calls) => timeSequential(() => statfs(path), calls) },
].filter(Boolean);

try {
  for (const stage of stages) stage.calls = await calibrate(stage, { warmupMs: WARMUP_MS, batchMs: BATCH_MS });
  const showRound = process.stderr.isTTY ? (done) => process.stderr.write(`\rround ${done}/${rounds}`) : undefined;
  const samples = await runRounds(stages, rounds, showRound);
  if (process.stderr.isTTY) process.stderr.write('\n');
  // The C floors report no CPU time; single-threaded and never waiting,
  // their wall time is their CPU time.
  const us = new Map(
    [...samples].map(([name, batches]) => {
      const wall = median(batches.map((timing) => timing.wallNs)) / 1000;
      const cpu = batches[0].cpuNs === undefined ? wall : median(batches.map((timing) => timing.cpuNs)) / 1000;
      return [name, { wall, cpu }];
    }),
  );
  const lines = ['| Stage | wall µs per call (median) | CPU µs per call (median) |', '|---|--:|--:|'];
  for (const [name, { wall, cpu }] of us) lines.push(`| ${name} | ${wall.toFixed(2)} | ${cpu.toFixed(2)} |`);

  const differences = [
    ['statSync: N-API, path copy, slot writes (raw statSync(path, true) − C statvfs + stat)', 'raw statSync(path, true)', 'C statvfs + stat'],
    ['the same without the stat (raw statSync(path, false) − C statvfs alone)', 'raw statSync(path, false)', 'C statvfs alone'],
    ['diskUsageSync around a stat-less statSync (diskUsageSync − raw statSync(path, false))', 'diskUsageSync(path)', 'raw statSync(path, false)'],
    ['the stat syscall (C statvfs + stat − C statvfs alone)', 'C statvfs + stat', 'C statvfs alone'],
    ['ref()/unref() each call', 'raw statAsync + ref()/unref() each call', "raw statAsync, loop ref'd once"],
    [
      "diskUsage's JS layer, no timer (diskUsage Infinity − raw with ref/unref)",
      'diskUsage(path, { timeout: Infinity })',
      'raw statAsync + ref()/unref() each call',
    ],
    ["the 5000 ms timeout's timer", 'diskUsage(path)', 'diskUsage(path, { timeout: Infinity })'],
    ["addon thread hop vs libuv's (raw ref'd once − fs.promises.statfs)", "raw statAsync, loop ref'd once", 'fs.promises.statfs(path)'],
  ];
  lines.push('', '| Difference | wall µs | CPU µs |', '|---|--:|--:|');
  for (const [what, minuend, subtrahend] of differences) {
    if (!us.has(minuend) || !us.has(subtrahend)) continue;
    const of = us.get(minuend),
      over = us.get(subtrahend);
    lines.push(`| ${what} | ${(of.wall - over.wall).toFixed(2)} | ${(of.cpu - over.cpu).toFixed(2)} |`);
  }
  console.log(lines.join('\n'));
} finally {
  floor.dispose?.();
}
