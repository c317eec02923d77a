// `npm run bench:server`: what diskprobe's MCP server costs over stdio, next
// to the official SDK's servers (v1, and v2's dual-era stdio entry) and the
// least a Node server can do, measured side by side in one run; diskprobe
// twice, once driven by a legacy client (initialize) and once by a
// 2026-07-28 one (per-request _meta). Prints markdown and rewrites the
// bench:server section of docs/benchmarks.md with it.
//
//   node bench/server.mjs [--rounds 9] [--spawns 15] [--requests 20000] [--latency-calls 3000] [--no-profile]
//
// A script, not a test: it states targets and reports PASS or MISS, and
// never fails the process for a miss.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { writeDocSection } from './docSection.mjs';
import { median, quantile, shuffled } from './measure.mjs';
import { readProfile, summarizeProfile } from './servers/cpuProfile.mjs';
import { renderReport } from './servers/report.mjs';
import { coldStart, StdioClient } from './servers/stdioClient.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

// Many requests outstanding, as from an agent running tools in parallel: enough
// that the server always has work queued when it reads its input.
const IN_FLIGHT = 64;
const WARMUP_REQUESTS = 5000;
const WARMUP_LATENCY_CALLS = 500;
const PROFILE_REQUESTS = 40000;

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    spawns: { type: 'string', default: '15' },
    requests: { type: 'string', default: '20000' },
    'latency-calls': { type: 'string', default: '3000' },
    'no-profile': { type: 'boolean', default: false },
  },
});
const positive = (name) => {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, not ${flags[name]}`);
  return value;
};
const rounds = positive('rounds');
const spawns = positive('spawns');
const requests = positive('requests');
const latencyCalls = positive('latency-calls');
const latencyPerRound = Math.ceil(latencyCalls / rounds);

if (!existsSync(join(ROOT, 'dist/bin/diskprobe.js'))) throw new Error('dist/bin/diskprobe.js is missing: run `npm run compile` first');

// The native backend is what is under test (as in bench:probe): a missing
// addon is an error here, not a silent fall back to fs.statfs. `era` is how
// the bench's client speaks to the server (bench/servers/stdioClient.mjs).
const NATIVE = { DISKPROBE_BACKEND: 'native' };
const SERVERS = [
  { key: 'diskprobe', label: 'diskprobe (`node dist/bin/diskprobe.js`)', argv: ['dist/bin/diskprobe.js'], env: NATIVE, era: 'legacy' },
  { key: 'diskprobeModern', label: 'diskprobe, modern client (2026-07-28 `_meta`)', argv: ['dist/bin/diskprobe.js'], env: NATIVE, era: 'modern' },
  { key: 'sdk', label: 'SDK v1 reference (`bench/servers/sdkServer.mjs`)', argv: ['bench/servers/sdkServer.mjs'], era: 'legacy' },
  { key: 'sdkV2', label: 'SDK v2 dual-era, modern client (`bench/servers/sdkV2Server.mjs`)', argv: ['bench/servers/sdkV2Server.mjs'], era: 'modern' },
  { key: 'floor', label: 'floor (`bench/servers/floorServer.mjs`)', argv: ['bench/servers/floorServer.mjs'], era: 'legacy' },
];

/** diskprobe (legacy client) against the floor. */
const TARGETS = [
  { what: 'throughput, 64 in flight', field: 'throughput', limit: 0.5, atLeast: true },
  { what: 'cold start', field: 'coldMs', limit: 1.5 },
  { what: 'latency p50, one at a time', field: 'p50Us', limit: 1.5 },
  { what: 'RSS after load', field: 'rssBytes', limit: 1.25 },
];

/** diskprobe driven by a modern client against the same server driven by a legacy one; no limit: context. */
const ERA_TARGETS = [
  { what: 'throughput, 64 in flight', field: 'throughput', limit: 0.9, atLeast: true },
  { what: 'server CPU per request', field: 'serverCpuUs' },
  { what: 'cold start (to `server/discover`, against to `initialize`)', field: 'coldMs' },
  { what: 'latency p50, one at a time', field: 'p50Us' },
  { what: 'RSS after load', field: 'rssBytes' },
];

/** Heads the section when it is first added to the doc; hand edits to it are kept after that. */
const SECTION_INTRO = `## Server: the MCP server over stdio

Reproduce with \`npm run bench:server\` (compiles, then runs \`node bench/server.mjs\`; flags
\`--rounds <n>\` (default 9), \`--spawns <n>\` (15), \`--requests <n>\` (20000), \`--latency-calls <n>\`
(3000), \`--no-profile\`). It rewrites only the text between the bench:server markers; a run takes
about two minutes on a 2-vCPU VM.

Five servers answer the same \`tools/call\` of \`disk_usage\` with \`{"path": "/"}\`: diskprobe's own, twice,
once driven by a legacy client (\`initialize\`, then bare requests) and once by a 2026-07-28 client (no
handshake; \`server/discover\` first, and the per-request fields in every request's \`params._meta\`); a
reference on the official v1 SDK (\`McpServer\` + \`StdioServerTransport\`, one tool on
\`fs.promises.statfs\`), driven by a legacy client; a reference on the official v2 SDK, the same tool
served by its dual-era \`serveStdio\`, driven by a 2026-07-28 client; and a floor, the least a Node stdio
server can do (split lines, \`JSON.parse\`, \`fs.statfsSync\`, \`JSON.stringify\`,
\`process.stdout.write\`, no validation). Targets, diskprobe against the floor: throughput ≥ 0.5×, cold
start ≤ 1.5×, latency p50 ≤ 1.5×, RSS ≤ 1.25×; and diskprobe's throughput with a 2026-07-28 client ≥ 0.9×
its throughput with a legacy one.`;

const started = performance.now();
const loadAtStart = os.loadavg();
/**
 * Pins every thread of process `pid` to `cpus` (taskset's list syntax, or
 * with `mask`, a hex mask). Returns false where that cannot be done.
 */
function pin(pid, cpus, mask = false) {
  try {
    execFileSync('taskset', ['-a', '-p', ...(mask ? [] : ['-c']), cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
/** The bench's own CPU mask as it started ("current affinity mask: 3"): what pinned processes return to. */
function currentMask() {
  try {
    return execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' })
      .trim()
      .split(': ')
      .pop();
  } catch {
    return undefined;
  }
}
const START_MASK = currentMask();
/** The highest CPU of the starting mask: the first tends to take the machine's interrupts. */
const PINNED_CPU = START_MASK === undefined ? '0' : String(31 - Math.clz32(parseInt(START_MASK.slice(-8), 16) || 1));
/**
 * One at a time, a round trip on this kind of VM takes one of two speeds,
 * set by where the scheduler happens to put client and server (the same CPU,
 * or two, one of them idle); unpinned, the p50s compare placements as much
 * as servers. So the latency that is judged is measured with the bench and
 * the server (all threads of both) on one CPU, for every server alike; the
 * unpinned figure is shown beside it.
 */
const CAN_PIN = os.availableParallelism() > 1 && START_MASK !== undefined && pin(process.pid, START_MASK, true);

const clients = new Map();
let profileDir;
try {
  const coldMs = await measureColdStarts();
  console.error(`cold starts: ${elapsed()}`);
  const load = await measureLoad();
  console.error(`load: ${elapsed()}`);
  // Both eras' profiles, in a random order: what the 2026-07-28 path costs, and where.
  let profile;
  if (!flags['no-profile']) {
    profile = {};
    for (const server of shuffled(SERVERS.filter(({ key }) => key.startsWith('diskprobe')))) profile[server.era] = await profileDiskprobe(server);
    console.error(`profiles: ${elapsed()}`);
  }

  const results = new Map(
    SERVERS.map(({ key, label, era }) => {
      const { rps, serverCpuNs, clientCpuNs, rss, latencies, roundP50s, pinnedLatencies, pinnedRoundP50s, idleRss, requestBytes, responseBytes } =
        load.get(key);
      const judged = CAN_PIN ? pinnedLatencies : latencies;
      return [
        key,
        {
          label,
          era,
          coldMs: median(coldMs.get(key)),
          coldP25: quantile(coldMs.get(key), 0.25),
          coldP75: quantile(coldMs.get(key), 0.75),
          throughput: median(rps),
          throughputMin: Math.min(...rps),
          throughputMax: Math.max(...rps),
          serverCpuUs: serverCpuNs.includes(undefined) ? undefined : median(serverCpuNs) / 1000,
          clientCpuUs: median(clientCpuNs) / 1000,
          p50Us: quantile(judged, 0.5) / 1000,
          p99Us: quantile(judged, 0.99) / 1000,
          unpinnedP50Us: CAN_PIN ? quantile(latencies, 0.5) / 1000 : undefined,
          unpinnedRoundP50s: roundP50s,
          rssBytes: rss.includes(undefined) ? undefined : median(rss),
          idleRssBytes: idleRss,
          requestBytes,
          responseBytes,
          // The samples behind each target's figure: their spread says how steady it is.
          // Throughput, CPU, p50 and RSS samples are by round, in the same order for every server.
          samples: {
            coldMs: coldMs.get(key),
            throughput: rps,
            serverCpuUs: serverCpuNs.map((ns) => (ns === undefined ? undefined : ns / 1000)),
            p50Us: CAN_PIN ? pinnedRoundP50s : roundP50s,
            rssBytes: rss,
          },
        },
      ];
    }),
  );

  const body = renderReport(results, profile, {
    root: ROOT,
    loadAtStart,
    spawns,
    rounds,
    requests,
    latencyPerRound,
    inFlight: IN_FLIGHT,
    pinned: CAN_PIN,
    warmupRequests: WARMUP_REQUESTS,
    warmupLatencyCalls: WARMUP_LATENCY_CALLS,
    targets: TARGETS,
    eraTargets: ERA_TARGETS,
  });
  console.log(`\n${body}\n`);
  writeDocSection(DOC, 'server', SECTION_INTRO, body);
  console.error(`wrote the bench:server section of ${DOC.slice(ROOT.length)} (${elapsed()})`);
} finally {
  await Promise.all([...clients.values()].map((client) => client.close()));
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
}

function elapsed() {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}

/** How the client for `server` is made: run from the package root, with the server's environment, in its era. */
function clientOptions(server) {
  return { cwd: ROOT, env: server.env, era: server.era };
}

/** Rounds of one spawn per server, in a fresh random order each round; ms per server. */
async function measureColdStarts() {
  const times = new Map(SERVERS.map((server) => [server.key, []]));
  for (const server of SERVERS) await coldStart(server.argv, clientOptions(server)); // fill the page cache
  for (let round = 0; round < spawns; round++) {
    for (const server of shuffled(SERVERS)) {
      times.get(server.key).push(await coldStart(server.argv, clientOptions(server)));
    }
  }
  return times;
}

/**
 * One long-lived process per server, warmed up; then rounds in which each,
 * in a fresh random order, runs a pipelined batch (throughput, CPU, RSS
 * after it), then each runs its share of the one-at-a-time calls. The
 * warm-up's pipelined batch parses and checks every answer, which the
 * timed batches only count.
 */
async function measureLoad() {
  const load = new Map();
  for (const server of SERVERS) {
    const client = new StdioClient(server.argv, clientOptions(server));
    clients.set(server.key, client);
    await client.open();
    const first = await client.callTool();
    load.set(server.key, {
      idleRss: client.rssBytes(),
      requestBytes: Buffer.byteLength(client.toolCall(first.message.id)),
      responseBytes: first.bytes,
      rps: [],
      serverCpuNs: [],
      clientCpuNs: [],
      rss: [],
      latencies: [],
      roundP50s: [],
      pinnedLatencies: [],
      pinnedRoundP50s: [],
    });
    await client.pipelinedChecked(WARMUP_REQUESTS, IN_FLIGHT);
    await client.latencies(WARMUP_LATENCY_CALLS);
  }
  for (let round = 0; round < rounds; round++) {
    for (const server of shuffled(SERVERS)) {
      const client = clients.get(server.key);
      const entry = load.get(server.key);
      const clientCpu = process.cpuUsage();
      const { elapsedNs, cpuNs } = await client.pipelined(requests, IN_FLIGHT);
      const { user, system } = process.cpuUsage(clientCpu);
      entry.rss.push(client.rssBytes());
      entry.rps.push((requests * 1e9) / elapsedNs);
      entry.serverCpuNs.push(cpuNs === undefined ? undefined : cpuNs / requests);
      entry.clientCpuNs.push(((user + system) * 1000) / requests);
      await client.callTool(); // still answering properly after the load
    }
    for (const server of shuffled(SERVERS)) {
      const client = clients.get(server.key);
      const entry = load.get(server.key);
      const batch = await client.latencies(latencyPerRound);
      entry.latencies.push(...batch);
      entry.roundP50s.push(median(batch) / 1000);
      if (!CAN_PIN) continue;
      if (!pin(process.pid, PINNED_CPU) || !pin(client.pid, PINNED_CPU))
        throw new Error(`could not pin the bench and ${server.key} to CPU ${PINNED_CPU} (taskset)`);
      try {
        const pinned = await client.latencies(latencyPerRound);
        entry.pinnedLatencies.push(...pinned);
        entry.pinnedRoundP50s.push(median(pinned) / 1000);
      } finally {
        pin(client.pid, START_MASK, true);
        pin(process.pid, START_MASK, true);
      }
    }
    if (process.stderr.isTTY) process.stderr.write(`\rround ${round + 1}/${rounds}`);
  }
  if (process.stderr.isTTY) process.stderr.write('\r');
  for (const [key, client] of clients) {
    await client.close();
    clients.delete(key);
  }
  return load;
}

/** diskprobe under pipelined load from `server`'s client with --cpu-prof; the summary of the loaded window. */
async function profileDiskprobe(server) {
  profileDir = mkdtempSync(join(os.tmpdir(), 'diskprobe-bench-'));
  // The unbundled entry: the same code, with source maps from each module to src/, so layers and functions can be named.
  const argv = server.argv.map((arg) => (arg === 'dist/bin/diskprobe.js' ? 'dist/cli/diskprobe.js' : arg));
  const client = new StdioClient(['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...argv], clientOptions(server));
  clients.set('profile', client);
  await client.open();
  await client.pipelined(WARMUP_REQUESTS, IN_FLIGHT);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  await client.pipelined(PROFILE_REQUESTS, IN_FLIGHT);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  // End of input, not a signal: the server exits on its own and writes the profile.
  client.child.stdin.end();
  await client.exited;
  clients.delete('profile');
  const summary = summarizeProfile(readProfile(profileDir), { fromUs, toUs, root: ROOT });
  rmSync(profileDir, { recursive: true, force: true });
  profileDir = undefined;
  return { requests: PROFILE_REQUESTS, ...summary };
}
