// Runs inside the private mount namespace mountmany made (test/fixtures/
// mountmany.c), with thousands of tmpfs mounts, and reports as one JSON line
// on stdout what the library, `diskprobe df`, GNU df and the MCP server's
// list_mounts saw there; manyMounts.test.ts judges it. With --dead, a FUSE
// mount that never answers (test/fixtures/fusefix.c, hang) is mounted among
// them first, and GNU df, which would hang on it, is not asked.
//
//   mountmany -x TMPDIR/diskprobe- DIR COUNT node test/scale/scenario.mjs DIR FUSEFIX [--dead]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { startFuseFixture } from '../fixtures/fusefix.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/bin/diskprobe.js');
const [dir, fusefix, flag] = process.argv.slice(2);
const withDead = flag === '--dead';
const TIMEOUT = 800;
const report = {};

let daemon;
if (withDead) {
  const dead = join(dir, 'dead');
  mkdirSync(dead, { recursive: true });
  daemon = await startFuseFixture(fusefix, 'hang', dead);
  report.dead = dead;
  // Whatever happens here, the daemon dies with this process: nothing stuck on it outlives the scenario.
  process.on('exit', () => process.kill(daemon, 'SIGKILL'));
}

const { listMounts, mountsUsage } = await import(join(root, 'dist/index.js'));

// The library: the set, and every mount's usage in one call, timed.
const started = performance.now();
const usages = await mountsUsage({ bigint: true, timeout: TIMEOUT });
report.mountsUsageMs = performance.now() - started;
report.usages = usages.map(({ mount, usage, error }) => ({
  mountPoint: mount.mountPoint,
  fsType: mount.fsType,
  total: usage?.total.toString() ?? null,
  used: usage?.used.toString() ?? null,
  available: usage?.available.toString() ?? null,
  error: error?.code ?? null,
}));
report.listed = (await listMounts({ timeout: TIMEOUT })).map((mount) => mount.mountPoint);

// diskprobe df, the table and the JSON.
const run = (args, timeout = 30_000) => {
  const begun = performance.now();
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: performance.now() - begun };
};
report.df = run(['df', '--timeout', String(TIMEOUT)]);
report.dfJson = run(['df', '--json', '--timeout', String(TIMEOUT)]);

// GNU df, which would hang on the dead mount: asked only without one.
if (!withDead) {
  report.gnuDf = spawnSync('df', ['-hT'], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
  report.gnuDfExact = spawnSync('df', ['-B1', '--output=target,size,used,avail'], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
}

// The MCP server's list_mounts: the default answer, then every page through the cursor.
report.pages = await listMountsPages();

// Exit once the pipe has taken it all: a stuck probe would keep the process alive otherwise.
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));

async function listMountsPages() {
  const server = spawn(process.execPath, [cli, 'serve', '--probe-timeout', String(TIMEOUT)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const waiting = new Map();
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      waiting.get(message.id)?.(message);
    }
  });
  let next = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'scale', version: '1' } });
  server.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const pages = [];
  let cursor;
  do {
    const response = await request('tools/call', { name: 'list_mounts', arguments: cursor === undefined ? {} : { cursor } });
    const { content, structuredContent } = response.result;
    pages.push({ text: content[0].text, structured: structuredContent });
    cursor = structuredContent.nextCursor;
  } while (cursor !== undefined && pages.length < 1000);
  server.stdin.end();
  return pages;
}
