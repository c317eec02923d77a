// `npm run bench:http`: diskprobe's Streamable HTTP endpoint against the v2
// SDK's dual-era HTTP server with the same tool and a floor server (node:http,
// JSON.parse, statfsSync, JSON.stringify), side by side in one run. Each is
// asked 2026-07-28 `tools/call disk_usage {path: "/"}` with the headers that
// revision requires, over keep-alive connections:
//   throughput  16 requests in flight for ROUNDS rounds of BATCH requests;
//   p50         one request at a time, SERIAL requests;
//   RSS         the server's resident memory after the load.
// The servers take turns within every round, so a noisy machine slows all
// of them alike; figures are medians of the rounds, ratios are of medians.
// Prints a table and rewrites its section of docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { sourceRevision, writeDocSection } from './docSection.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BATCH = 4000;
const IN_FLIGHT = 16;
const SERIAL = 1500;
const WARMUP = 3000;

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'disk_usage',
};

const SERVERS = [
  {
    name: 'diskprobe (`serve --http`)',
    key: 'diskprobe',
    args: [join(ROOT, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0'],
    port: /serving MCP on http:\/\/127\.0\.0\.1:(\d+)/,
    stream: 'stderr',
  },
  {
    name: 'SDK v2 dual-era HTTP (`bench/servers/sdkV2HttpServer.mjs`)',
    key: 'sdk',
    args: [join(ROOT, 'bench/servers/sdkV2HttpServer.mjs')],
    port: /listening (\d+)/,
    stream: 'stdout',
  },
  {
    name: 'floor (`bench/servers/floorHttpServer.mjs`)',
    key: 'floor',
    args: [join(ROOT, 'bench/servers/floorHttpServer.mjs')],
    port: /listening (\d+)/,
    stream: 'stdout',
  },
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function start(server) {
  const child = spawn(process.execPath, server.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child[server.stream].setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      const match = server.port.exec(text);
      if (match) resolve({ ...server, child, portNumber: Number(match[1]), agent: new Agent({ keepAlive: true, maxSockets: IN_FLIGHT }) });
    });
    child.on('exit', (code) => reject(new Error(`${server.key} exited (${code}) before listening: ${text}`)));
  });
}

let nextId = 1;
/** One tools/call; resolves when its answer is read whole (JSON or SSE), rejects unless it is the result. */
function call(running) {
  const id = nextId++;
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'disk_usage', arguments: { path: '/' }, _meta: META } });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: running.portNumber,
        path: '/mcp',
        method: 'POST',
        agent: running.agent,
        headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          if (res.statusCode !== 200 || !text.includes(`"id":${id}`) || !text.includes('"result"'))
            reject(new Error(`${running.key}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          else resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Requests/s with IN_FLIGHT outstanding until `count` are answered. */
async function throughput(running, count) {
  let sent = 0;
  const started = performance.now();
  const worker = async () => {
    while (sent < count) {
      sent++;
      await call(running);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return count / ((performance.now() - started) / 1000);
}

/** The p50 of one request at a time, in µs. */
async function latency(running, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call(running);
    times.push((performance.now() - started) * 1000);
  }
  return median(times);
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const running = [];
for (const server of SERVERS) running.push(await start(server));
const figures = Object.fromEntries(running.map((server) => [server.key, { throughput: [], p50: [], rss: 0 }]));
console.log(`bench:http: ${ROUNDS} rounds of ${BATCH} requests with ${IN_FLIGHT} in flight and ${SERIAL} one at a time, each server in turn`);
for (const server of running) {
  await throughput(server, WARMUP);
  await latency(server, 200);
}
for (let round = 0; round < ROUNDS; round++) {
  for (const server of round % 2 ? [...running].reverse() : running) {
    figures[server.key].throughput.push(await throughput(server, BATCH));
    figures[server.key].p50.push(await latency(server, SERIAL));
  }
  console.log(
    `  round ${round + 1}: ${running.map((server) => `${server.key} ${Math.round(figures[server.key].throughput.at(-1))}/s ${Math.round(figures[server.key].p50.at(-1))} µs`).join(', ')}`,
  );
}
for (const server of running) figures[server.key].rss = rssMb(server.child.pid);
for (const server of running) {
  server.agent.destroy();
  server.child.kill('SIGTERM');
}

const med = (key, field) => median(figures[key][field]);
const rows = running.map(
  (server) =>
    `| ${server.name} | **${Math.round(med(server.key, 'throughput')).toLocaleString('en-US')}** | **${Math.round(med(server.key, 'p50'))}** | **${figures[server.key].rss.toFixed(1)}** |`,
);
const ratio = (a, b) => a / b;
const targets = [
  ['throughput, 16 in flight', 'diskprobe ÷ floor', ratio(med('diskprobe', 'throughput'), med('floor', 'throughput')), '≥ 0.5×', (value) => value >= 0.5],
  ['throughput, 16 in flight', 'diskprobe ÷ SDK v2', ratio(med('diskprobe', 'throughput'), med('sdk', 'throughput')), '≥ 5×', (value) => value >= 5],
  ['latency p50, one at a time', 'diskprobe ÷ floor', ratio(med('diskprobe', 'p50'), med('floor', 'p50')), '≤ 1.5×', (value) => value <= 1.5],
  ['RSS after the load', 'diskprobe ÷ floor', ratio(figures.diskprobe.rss, figures.floor.rss), '≤ 1.5×', (value) => value <= 1.5],
];
const targetRows = targets.map(
  ([what, of, value, limit, pass]) => `| ${what} | ${of} | ${value.toFixed(2)}× | ${limit} | **${pass(value) ? 'PASS' : 'MISS'}** |`,
);
const body = `Measured${sourceRevision(ROOT)} on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${ROUNDS} rounds (medians).
2026-07-28 \`tools/call disk_usage {path: "/"}\` with its headers, keep-alive connections, ${IN_FLIGHT} in flight for throughput.

| server | requests/s, ${IN_FLIGHT} in flight | p50 one at a time (µs) | RSS after the load (MB) |
|---|--:|--:|--:|
${rows.join('\n')}

| target | ratio | measured | limit | result |
|---|---|--:|---|---|
${targetRows.join('\n')}`;
console.log(`\n${body}`);
writeDocSection(
  join(ROOT, 'docs/benchmarks.md'),
  'http',
  '## The MCP server over Streamable HTTP\n\nReproduce with `npm run bench:http` (Linux; about a minute). `BENCH_ROUNDS` sets the rounds.',
  body,
);
console.log('\nbench:http: wrote its section of docs/benchmarks.md');
