// The markdown `npm run bench:server` prints and writes to docs/benchmarks.md:
// machine, method, figures, verdicts (diskprobe against the floor, and its
// 2026-07-28 path against its legacy one), a reading generated from the
// numbers, and the CPU profiles (profileReport.mjs). Pure: numbers in, text out.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import { quantile } from '../measure.mjs';
import { fmt } from './figures.mjs';
import { profileReading, profileTables } from './profileReport.mjs';

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
 * @property {Array<{what: string, field: string, limit: number, atLeast?: boolean}>} targets  diskprobe ÷ floor
 * @property {Array<{what: string, field: string, limit?: number, atLeast?: boolean}>} eraTargets  diskprobe with a
 *   modern client ÷ with a legacy one; those without a limit are context
 */

// A figure whose middle half of samples spans more than this ratio (p75 ÷
// p25) came in more than one speed mode; a verdict resting on it may flip
// from run to run, and the table says so (as bench:probe does).
const UNSTEADY_SPREAD = 1.25;

/**
 * The section's body: `results` maps diskprobe, diskprobeModern, sdk, sdkV2
 * and floor to their figures, in the order of the table; `profile`, when
 * there is one, holds diskprobe's profile under each era's client ({ legacy, modern }).
 */
export function renderReport(results, profile, run) {
  return [
    machineSummary(run),
    methodText(run),
    resultsTable(results),
    targetsTable(results, run.targets),
    eraTable(results, run.eraTargets),
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
    `Run of ${new Date().toISOString().slice(0, 10)}, diskprobe ${version('.')}${sourceRevision(root)}; the SDK v1 reference on ` +
      `@modelcontextprotocol/sdk ${version('node_modules/@modelcontextprotocol/sdk')}, the SDK v2 reference on @modelcontextprotocol/server ` +
      `${version('node_modules/@modelcontextprotocol/server')} (core ${version('node_modules/@modelcontextprotocol/core')}), both with zod ${version('node_modules/zod')}.`,
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
    '**Method.** All five servers are measured in one run, interleaved, each round in a fresh random order.',
    '',
    '- Clients: a legacy client opens with `initialize` (2025-06-18) and `notifications/initialized`, then sends bare',
    '  requests. A 2026-07-28 ("modern") client sends no handshake: it opens with `server/discover`, and every request',
    '  carries `io.modelcontextprotocol/protocolVersion`, `clientCapabilities` (`{}`) and `clientInfo` in',
    '  `params._meta` (no `logLevel`, so no log notifications); it checks that results carry `resultType: "complete"`',
    '  and `serverInfo` in `_meta`. The SDK v2 server would also serve a legacy client; only its modern path is measured.',
    `- Cold start: spawn (\`node <script>\`, no shell) until the answer to the opening request arrives (\`initialize\`, or a`,
    `  modern client's \`server/discover\`); median of ${spawns} spawns each, after one unreported spawn each to fill the`,
    '  page cache. Each process is ended before the next starts.',
    `- Then one long-lived process per server: the opening request, a warm-up of ${warmupRequests} pipelined calls (every`,
    `  answer parsed and checked: each id answered once, a successful result of the client's era) and ${warmupLatencyCalls}`,
    `  one-at-a-time calls, then ${rounds} rounds.`,
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
    "  (the 2025-06-18 revision's typed result); the other servers send only the text. Modern results add",
    '  `resultType` and `_meta` with `serverInfo`.',
  ].join('\n');
}

/** How each era's client opens and what its requests carry, in a word for the table. */
const CLIENT = { legacy: 'legacy (`initialize`)', modern: '2026-07-28 (`_meta`)' };

function resultsTable(results) {
  const lines = [
    "| Server | Client | Cold start ms (p25–p75) | Requests/s, 64 in flight (min–max) | Server CPU µs/req | Client CPU µs/req | p50 µs (rounds' p50 min–max) | p99 µs | p50 µs unpinned (rounds' min–max) | RSS MiB after load (idle) | Request / response bytes |",
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of results.values()) {
    const cells = [
      row.label,
      CLIENT[row.era],
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
      `${row.requestBytes} / ${row.responseBytes}`,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** `of`'s `field` over `base`'s; undefined where either is unknown. */
function ratio(results, of, base, field) {
  const value = results.get(of)[field],
    baseValue = results.get(base)[field];
  return value === undefined || baseValue === undefined ? undefined : value / baseValue;
}

/**
 * The ratios of `of`'s samples of `field` to `base`'s taken in the same round
 * (or the same round of spawns): { min, max, meeting } where `meeting` counts
 * the rounds within `target`'s limit; undefined where a sample is unknown.
 */
function roundRatios(results, of, base, { field, limit, atLeast }) {
  const ours = results.get(of).samples[field],
    theirs = results.get(base).samples[field];
  if (ours.includes(undefined) || theirs.includes(undefined)) return undefined;
  const ratios = ours.map((value, round) => value / theirs[round]);
  const meeting = limit === undefined ? undefined : ratios.filter((value) => (atLeast ? value >= limit : value <= limit)).length;
  return { min: Math.min(...ratios), max: Math.max(...ratios), meeting, rounds: ratios.length };
}

function verdict(ratio, { limit, atLeast }) {
  if (ratio === undefined) return 'n/a';
  if (limit === undefined) return 'context';
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

/** Whether `of`'s middle half of samples meets `base`'s scaled by the limit: then the verdict is a coin toss. */
function tooClose(results, of, base, { field, limit }) {
  const ours = results.get(of).samples[field],
    theirs = results.get(base).samples[field];
  if (limit === undefined || ours.includes(undefined) || theirs.includes(undefined)) return false;
  return quantile(ours, 0.25) <= quantile(theirs, 0.75) * limit && quantile(theirs, 0.25) * limit <= quantile(ours, 0.75);
}

/** The verdict cell of `of` ÷ `base` for `target`, with its notes; `shaky` is set when a sample spread is wide. */
function verdictCell(results, of, base, target) {
  const shaky = unsteady(results.get(of), target.field) || unsteady(results.get(base), target.field);
  const notes = [tooClose(results, of, base, target) && 'too close to call: the p25–p75 ranges meet', shaky && 'unsteady †'].filter(Boolean);
  const result = verdict(ratio(results, of, base, target.field), target);
  return { text: `${result === 'context' ? '*context*' : `**${result}**`}${notes.length ? ` (${notes.join('; ')})` : ''}`, shaky };
}

const limitText = ({ limit, atLeast }) => (limit === undefined ? '–' : `${atLeast ? '≥' : '≤'} ${limit}×`);

const unsteadyNote = (who) => [
  '',
  `† ${who} samples of this figure (spawns, or rounds) had a p75 ÷ p25 spread above ${UNSTEADY_SPREAD}:`,
  'they came in more than one speed mode, so this verdict can flip between runs.',
];

function targetsTable(results, targets) {
  const lines = [
    '| Target: diskprobe ÷ floor | Limit | diskprobe | Result | diskprobe, modern client ÷ floor *(context)* | SDK v1 ÷ floor *(context)* | SDK v2 ÷ floor *(context)* |',
    '|---|--:|--:|---|--:|--:|--:|',
  ];
  let anyUnsteady = false;
  for (const target of targets) {
    const cell = verdictCell(results, 'diskprobe', 'floor', target);
    anyUnsteady ||= cell.shaky;
    const context = ['diskprobeModern', 'sdk', 'sdkV2'].map((key) => fmt.ratio(ratio(results, key, 'floor', target.field)));
    lines.push(
      `| ${target.what} | ${limitText(target)} | ${fmt.ratio(ratio(results, 'diskprobe', 'floor', target.field))} | ${cell.text} | ${context.join(' | ')} |`,
    );
  }
  if (anyUnsteady) lines.push(...unsteadyNote("diskprobe's or the floor's"));
  return lines.join('\n');
}

/** diskprobe under a 2026-07-28 client against under a legacy one: one target, the rest context. */
function eraTable(results, targets) {
  const lines = [
    "| diskprobe, modern client ÷ legacy client | Limit | Measured | Rounds' own ratios (min–max) | Result | SDK v2, modern ÷ SDK v1, legacy *(context)* |",
    '|---|--:|--:|--:|---|--:|',
  ];
  let anyUnsteady = false;
  for (const target of targets) {
    const cell = verdictCell(results, 'diskprobeModern', 'diskprobe', target);
    anyUnsteady ||= cell.shaky;
    const rounds = roundRatios(results, 'diskprobeModern', 'diskprobe', target);
    const roundsText =
      rounds === undefined
        ? 'n/a'
        : `${fmt.ratio(rounds.min)}–${fmt.ratio(rounds.max)}${rounds.meeting === undefined ? '' : `; ${rounds.meeting} of ${rounds.rounds} within the limit`}`;
    lines.push(
      `| ${target.what} | ${limitText(target)} | ${fmt.ratio(ratio(results, 'diskprobeModern', 'diskprobe', target.field))} | ${roundsText} | ${cell.text} | ` +
        `${fmt.ratio(ratio(results, 'sdkV2', 'sdk', target.field))} |`,
    );
  }
  lines.push(
    '',
    'Both diskprobe rows are the same build, one process each. "Rounds\' own ratios" divide the two samples taken in the same',
    'round (the same round of spawns, for cold start), seconds apart, not minutes, so slower drift of the',
    'machine largely cancels out.',
  );
  if (anyUnsteady) lines.push(...unsteadyNote("diskprobe's (either client's)"));
  return lines.join('\n');
}

/** The verdicts in words, from the numbers of this run. */
function reading(results, profile, { targets, eraTargets, inFlight }) {
  const ours = results.get('diskprobe'),
    modern = results.get('diskprobeModern'),
    sdk = results.get('sdk'),
    sdkV2 = results.get('sdkV2'),
    floor = results.get('floor');
  const lines = ["**Reading**, generated from this run's numbers:", ''];
  for (const target of targets) {
    const measured = ratio(results, 'diskprobe', 'floor', target.field);
    if (measured === undefined) continue;
    lines.push(
      `- ${target.what.charAt(0).toUpperCase()}${target.what.slice(1)}: diskprobe ${fmt.ratio(measured)} the floor against a limit of ${limitText(target)}, ` +
        `${verdict(measured, target)}; with a modern client ${fmt.ratio(ratio(results, 'diskprobeModern', 'floor', target.field))}; ` +
        `the SDK v1 reference ${fmt.ratio(ratio(results, 'sdk', 'floor', target.field))}, the SDK v2 reference ${fmt.ratio(ratio(results, 'sdkV2', 'floor', target.field))}.`,
    );
  }
  const eraTarget = eraTargets.find((target) => target.limit !== undefined);
  const eraRatio = ratio(results, 'diskprobeModern', 'diskprobe', eraTarget.field);
  const eraRounds = roundRatios(results, 'diskprobeModern', 'diskprobe', eraTarget);
  lines.push(
    `- With a 2026-07-28 client diskprobe answers ${fmt.rps(modern.throughput)} requests/s with ${inFlight} in flight, ${fmt.ratio(eraRatio)} ` +
      `its ${fmt.rps(ours.throughput)} with a legacy client, against a limit of ${limitText(eraTarget)}: ${verdict(eraRatio, eraTarget)}` +
      (eraRounds === undefined
        ? '.'
        : ` (the rounds' own ratios ${fmt.ratio(eraRounds.min)}–${fmt.ratio(eraRounds.max)}, ${eraRounds.meeting} of ${eraRounds.rounds} within it).`),
  );
  if (ours.serverCpuUs !== undefined) {
    lines.push(
      `- Under load the diskprobe process spends ${fmt.us(ours.serverCpuUs)} µs of CPU a request with a legacy client and ` +
        `${fmt.us(modern.serverCpuUs)} µs with a modern one; the SDK v1 reference ${fmt.us(sdk.serverCpuUs)} µs, the SDK v2 reference ` +
        `${fmt.us(sdkV2.serverCpuUs)} µs (modern) and the floor ${fmt.us(floor.serverCpuUs)} µs. Beyond the floor's work diskprobe checks each ` +
        "message and the lifecycle, validates the arguments against the tool's schema, gives each request a cancellation signal and a " +
        'deadline, probes inline only where nothing can block (a cached path on a mount that keeps its counts in memory), and sends `structuredContent` besides the text ' +
        `(${ours.responseBytes} bytes a response against ${floor.responseBytes}). A modern request is ${modern.requestBytes - ours.requestBytes} bytes longer ` +
        `(its \`_meta\`), whose fields are read and checked for each request, and its result ${modern.responseBytes - ours.responseBytes} bytes longer ` +
        '(`resultType`, `serverInfo`), added to the result in place.',
    );
  }
  // Client and server share the machine's cores: a client near a full core sets the pace, not the server.
  const clientBusy = (row) => (100 * row.clientCpuUs * row.throughput) / 1e6;
  lines.push(
    `- During the throughput batches the client kept ${clientBusy(floor).toFixed(0)}% of one core busy against the floor, ` +
      `${clientBusy(ours).toFixed(0)}% against diskprobe with a legacy client and ${clientBusy(modern).toFixed(0)}% with a modern one. The nearer ` +
      "that is to 100%, the more a server's figure is the client's limit rather than the server's; for the floor, that flatters diskprobe's ratio.",
  );
  lines.push(
    `- One request at a time, the round trip takes ${fmt.us(ours.p50Us)} µs at p50 for diskprobe (${fmt.us(modern.p50Us)} µs with a modern client), ` +
      `${fmt.us(sdk.p50Us)} µs for the SDK v1 reference, ${fmt.us(sdkV2.p50Us)} µs for the SDK v2 reference and ${fmt.us(floor.p50Us)} µs for the floor` +
      `${ours.unpinnedP50Us === undefined ? '' : ', with client and server on one CPU'}. ` +
      (ours.unpinnedP50Us === undefined
        ? ''
        : `Unpinned, the p50s were ${[ours, modern, sdk, sdkV2, floor].map((row) => fmt.us(row.unpinnedP50Us)).join(', ')} µs in that order, ` +
          "each a mix of this VM's two speeds (see the rounds' ranges), which is why the pinned figure is the one judged. ") +
      "diskprobe answers `/` inline, on its main thread, as the floor does; both SDK references probe on libuv's pool, " +
      'which adds two thread wake-ups a request.',
  );
  lines.push(
    `- The SDK v2 reference on its 2026-07-28 path answers ${fmt.rps(sdkV2.throughput)} requests/s, ${fmt.ratio(ratio(results, 'sdkV2', 'sdk', 'throughput'))} ` +
      `the SDK v1 reference's legacy path, starts in ${fmt.ms(sdkV2.coldMs)} ms to \`server/discover\` answered (v1: ${fmt.ms(sdk.coldMs)} ms to \`initialize\`) ` +
      `and holds ${fmt.mib(sdkV2.rssBytes)} MiB after load (v1: ${fmt.mib(sdk.rssBytes)} MiB).`,
  );
  if (profile?.legacy && profile.modern) lines.push(profileReading(profile, inFlight));
  return lines.join('\n');
}
