// The markdown `npm run bench:server` prints and writes to docs/benchmarks.md:
// machine, method, figures, verdicts, a reading generated from the numbers,
// and the CPU profile's summary. Pure: numbers in, text out.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import { quantile } from '../measure.mjs';

/**
 * @typedef {object} Run  how the figures were taken
 * @property {string} root  the package root
 * @property {number[]} loadAtStart  os.loadavg() when the run began
 * @property {number} spawns  cold starts per server
 * @property {number} rounds
 * @property {number} requests  pipelined requests per round
 * @property {number} latencyPerRound  one-at-a-time calls per round
 * @property {number} inFlight
 * @property {number} warmupRequests
 * @property {number} warmupLatencyCalls
 * @property {Array<{what: string, field: string, limit: number, atLeast?: boolean}>} targets
 */

// A figure whose middle half of samples spans more than this ratio (p75 ÷
// p25) came in more than one speed mode; a verdict resting on it may flip
// from run to run, and the table says so (as bench:probe does).
const UNSTEADY_SPREAD = 1.25;

const fmt = {
  ms: (value) => (value < 100 ? value.toFixed(1) : value.toFixed(0)),
  us: (value) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)),
  rps: (value) => Math.round(value).toLocaleString('en-US'),
  mib: (bytes) => (bytes === undefined ? '–' : (bytes / 2 ** 20).toFixed(1)),
  ratio: (ratio) => (ratio === undefined ? 'n/a' : `${ratio.toFixed(2)}×`),
};

/** The section's body: `results` maps diskprobe, sdk and floor to their figures; `profile` may be undefined. */
export function renderReport(results, profile, run) {
  return [
    machineSummary(run),
    methodText(run),
    resultsTable(results),
    targetsTable(results, run.targets),
    reading(results, profile, run),
    profile ? profileTables(profile, run) : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

function machineSummary({ root, loadAtStart }) {
  const cpus = os.cpus();
  // Read from disk: the SDK's exports map sends "package.json" to dist/cjs/package.json.
  const version = (dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).version;
  return [
    `Run of ${new Date().toISOString().slice(0, 10)}, diskprobe ${version('.')}${sourceRevision(root)}; the SDK reference on ` +
      `@modelcontextprotocol/sdk ${version('node_modules/@modelcontextprotocol/sdk')}, zod ${version('node_modules/zod')}.`,
    '',
    `- Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}`,
    `- CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} logical cores; load average at the start ${loadAtStart.map((value) => value.toFixed(2)).join(' ')}`,
    '- Client and server are both Node processes on this machine, so they compete for its cores.',
  ].join('\n');
}

/** " at commit abc1234" (plus a note when src/ or native/ differ from it), or "" outside a git checkout. */
function sourceRevision(root) {
  const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return '';
  const changed = git('status', '--porcelain', '--', 'src', 'native', 'binding.gyp').stdout.trim() !== '';
  return ` at commit ${head.stdout.trim()}${changed ? ' with uncommitted changes in src/ or native/' : ''}`;
}

function methodText({ spawns, rounds, requests, latencyPerRound, inFlight, warmupRequests, warmupLatencyCalls, pinned }) {
  return [
    '**Method.** All three servers are measured in one run, interleaved, each round in a fresh random order.',
    '',
    `- Cold start: spawn (\`node <script>\`, no shell) until the \`initialize\` response arrives; median of ${spawns} spawns each,`,
    '  after one unreported spawn each to fill the page cache. Each process is ended before the next starts.',
    '- Then one long-lived process per server: `initialize`, `notifications/initialized`, a warm-up of',
    `  ${warmupRequests} pipelined and ${warmupLatencyCalls} one-at-a-time calls, then ${rounds} rounds.`,
    `- Throughput: ${requests} \`tools/call\` requests with ${inFlight} in flight (a new one sent for each response), responses per`,
    `  second; median of the ${rounds} rounds (min–max beside it). The client counts response lines without parsing them, so`,
    '  its own cost stays small; a checked call after each batch makes sure the server still answers properly.',
    "- Server CPU: the server process's user + system time over the batch (`/proc/<pid>/stat`, all its threads, 10 ms",
    "  ticks), per request. Client CPU: the bench process's own, per request.",
    '- Latency: one request at a time, each response awaited and checked before the next is sent; p50 and p99 of',
    `  ${latencyPerRound * rounds} calls per server (${latencyPerRound} a round), the round trip through both pipes included.`,
    ...(pinned
      ? [
          '  Measured twice a round: as the scheduler places client and server, and with both (every thread of each) pinned',
          '  to one CPU (`taskset`). One at a time, a round trip on this VM takes one of two speeds depending on that',
          '  placement, so unpinned p50s compare placements as much as servers; the pinned figure, the same placement for',
          '  every server, is the one judged, and the unpinned p50 is shown beside it.',
        ]
      : ['  (Unpinned: `taskset` was not available, so the placement of client and server varies between rounds.)']),
    '- RSS: `VmRSS` of the server process right after each throughput batch, median of the rounds; "idle" is the',
    '  same right after the handshake.',
    "- Response bytes: the length of one `tools/call` response line. diskprobe's also carries `structuredContent`",
    "  (the 2025-06-18 revision's typed result); the other two send only the text.",
  ].join('\n');
}

function resultsTable(results) {
  const lines = [
    "| Server | Cold start ms (p25–p75) | Requests/s, 64 in flight (min–max) | Server CPU µs/req | Client CPU µs/req | p50 µs (rounds' p50 min–max) | p99 µs | p50 µs unpinned (rounds' min–max) | RSS MiB after load (idle) | Response bytes |",
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of results.values()) {
    const cells = [
      row.label,
      `**${fmt.ms(row.coldMs)}** (${fmt.ms(row.coldP25)}–${fmt.ms(row.coldP75)})`,
      `**${fmt.rps(row.throughput)}** (${fmt.rps(row.throughputMin)}–${fmt.rps(row.throughputMax)})`,
      row.serverCpuUs === undefined ? '–' : fmt.us(row.serverCpuUs),
      fmt.us(row.clientCpuUs),
      `**${fmt.us(row.p50Us)}** (${fmt.us(Math.min(...row.samples.p50Us))}–${fmt.us(Math.max(...row.samples.p50Us))})`,
      fmt.us(row.p99Us),
      row.unpinnedP50Us === undefined
        ? '–'
        : `${fmt.us(row.unpinnedP50Us)} (${fmt.us(Math.min(...row.unpinnedRoundP50s))}–${fmt.us(Math.max(...row.unpinnedRoundP50s))})`,
      `**${fmt.mib(row.rssBytes)}** (${fmt.mib(row.idleRssBytes)})`,
      row.responseBytes,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** `of`'s `field` over the floor's; undefined where either is unknown. */
function ratioToFloor(results, of, field) {
  const value = results.get(of)[field],
    base = results.get('floor')[field];
  return value === undefined || base === undefined ? undefined : value / base;
}

function verdict(ratio, { limit, atLeast }) {
  if (ratio === undefined) return 'n/a';
  if (atLeast ? ratio >= limit : ratio <= limit) return 'PASS';
  // How far the measure falls short of the limit, as a share of the limit.
  const off = atLeast ? (1 - ratio / limit) * 100 : (ratio / limit - 1) * 100;
  return `MISS by ${off < 10 ? off.toFixed(1) : off.toFixed(0)}%`;
}

/** Whether `row`'s samples of `field` spread over more than one speed mode. */
function unsteady(row, field) {
  const samples = row.samples[field];
  return samples.length > 1 && !samples.includes(undefined) && quantile(samples, 0.75) / quantile(samples, 0.25) > UNSTEADY_SPREAD;
}

/** Whether diskprobe's middle half of samples meets the floor's scaled by the limit: then the verdict is a coin toss. */
function tooClose(results, { field, limit }) {
  const ours = results.get('diskprobe').samples[field],
    floor = results.get('floor').samples[field];
  if (ours.includes(undefined) || floor.includes(undefined)) return false;
  return quantile(ours, 0.25) <= quantile(floor, 0.75) * limit && quantile(floor, 0.25) * limit <= quantile(ours, 0.75);
}

function targetsTable(results, targets) {
  const lines = ['| Target: diskprobe ÷ floor | Limit | diskprobe | Result | SDK ÷ floor *(context)* |', '|---|--:|--:|---|--:|'];
  let anyUnsteady = false;
  for (const target of targets) {
    const ours = ratioToFloor(results, 'diskprobe', target.field);
    const sdk = ratioToFloor(results, 'sdk', target.field);
    const shaky = unsteady(results.get('diskprobe'), target.field) || unsteady(results.get('floor'), target.field);
    anyUnsteady ||= shaky;
    const notes = [tooClose(results, target) && 'too close to call: the p25–p75 ranges meet', shaky && 'unsteady †'].filter(Boolean);
    lines.push(
      `| ${target.what} | ${target.atLeast ? '≥' : '≤'} ${target.limit}× | ${fmt.ratio(ours)} | **${verdict(ours, target)}**` +
        `${notes.length ? ` (${notes.join('; ')})` : ''} | ${fmt.ratio(sdk)} |`,
    );
  }
  if (anyUnsteady) {
    lines.push(
      '',
      `† diskprobe's or the floor's samples of this figure (spawns, or rounds) had a p75 ÷ p25 spread above ${UNSTEADY_SPREAD}:`,
      'they came in more than one speed mode, so this verdict can flip between runs.',
    );
  }
  return lines.join('\n');
}

/** The verdicts in words, from the numbers of this run. */
function reading(results, profile, { targets, inFlight }) {
  const ours = results.get('diskprobe'),
    sdk = results.get('sdk'),
    floor = results.get('floor');
  const lines = ["**Reading**, generated from this run's numbers:", ''];
  for (const target of targets) {
    const ratio = ratioToFloor(results, 'diskprobe', target.field);
    if (ratio === undefined) continue;
    lines.push(
      `- ${target.what.charAt(0).toUpperCase()}${target.what.slice(1)}: diskprobe ${fmt.ratio(ratio)} the floor against a limit of ${target.atLeast ? '≥' : '≤'} ${target.limit}×, ` +
        `${verdict(ratio, target)}; the SDK reference ${fmt.ratio(ratioToFloor(results, 'sdk', target.field))}.`,
    );
  }
  if (ours.serverCpuUs !== undefined) {
    lines.push(
      `- Under load the diskprobe process spends ${fmt.us(ours.serverCpuUs)} µs of CPU a request, the SDK reference ` +
        `${fmt.us(sdk.serverCpuUs)} µs and the floor ${fmt.us(floor.serverCpuUs)} µs. Beyond the floor's work diskprobe checks each ` +
        "message and the lifecycle, validates the arguments against the tool's schema, gives each request a cancellation signal and a " +
        'deadline, probes inline only where nothing can block (a cached path on a mount that keeps its counts in memory), and sends `structuredContent` besides the text ' +
        `(${ours.responseBytes} bytes a response against ${floor.responseBytes}).`,
    );
  }
  // Client and server share the machine's cores: a client near a full core sets the pace, not the server.
  const clientBusy = (row) => (100 * row.clientCpuUs * row.throughput) / 1e6;
  lines.push(
    `- During the throughput batches the client kept ${clientBusy(floor).toFixed(0)}% of one core busy against the floor ` +
      `and ${clientBusy(ours).toFixed(0)}% against diskprobe. The nearer that is to 100%, the more the floor's figure is the ` +
      "client's limit rather than the floor's, which flatters diskprobe's ratio.",
  );
  lines.push(
    `- One request at a time, the round trip takes ${fmt.us(ours.p50Us)} µs at p50 for diskprobe, ${fmt.us(sdk.p50Us)} µs for the ` +
      `SDK reference and ${fmt.us(floor.p50Us)} µs for the floor${ours.unpinnedP50Us === undefined ? '' : ', with client and server on one CPU'}. ` +
      (ours.unpinnedP50Us === undefined
        ? ''
        : `Unpinned, the p50s were ${fmt.us(ours.unpinnedP50Us)}, ${fmt.us(sdk.unpinnedP50Us)} and ${fmt.us(floor.unpinnedP50Us)} µs, ` +
          "each a mix of this VM's two speeds (see the rounds' ranges), which is why the pinned figure is the one judged. ") +
      "diskprobe answers `/` inline, on its main thread, as the floor does; the SDK reference probes on libuv's pool, " +
      'which adds two thread wake-ups a request.',
  );
  if (profile) {
    const top = profile.layers.filter((layer) => !/^(idle|native code|other)/.test(layer.label)).slice(0, 3);
    lines.push(
      `- The profile below (diskprobe alone, ${profile.requests} requests, ${inFlight} in flight) puts the most main-thread ` +
        `time in ${top.map((layer) => `${layer.label.replace(/:.*$/, '')} (${fmt.us(layer.us / profile.requests)} µs a request)`).join(', ')}.`,
    );
  }
  return lines.join('\n');
}

function profileTables(profile, { inFlight }) {
  const perRequest = (us) => fmt.us(us / profile.requests);
  const share = (us) => `${((100 * us) / profile.totalUs).toFixed(1)}%`;
  return [
    `**Where diskprobe's main thread spends its time** under load: \`node --cpu-prof\`, ${profile.requests} requests with ${inFlight} in`,
    'flight, self time of the samples taken during those requests. The profiler slows the server; read the shares, not',
    'the absolute figures. Native calls count in their JS caller: `JSON.parse` in the dispatcher, `JSON.stringify` in the',
    "framing, the addon's calls in the probe. The addon's own thread is not sampled.",
    '',
    '| Layer | Share | µs per request |',
    '|---|--:|--:|',
    ...profile.layers.map((layer) => `| ${layer.label} | ${share(layer.us)} | ${perRequest(layer.us)} |`),
    '',
    '| Function (self time), top 12 | Share | µs per request |',
    '|---|--:|--:|',
    ...profile.functions.slice(0, 12).map((fn) => `| \`${fn.label}\` | ${share(fn.us)} | ${perRequest(fn.us)} |`),
  ].join('\n');
}
