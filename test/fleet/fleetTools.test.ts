// The fleet tools against a real fleet: Debian's Prometheus scrapes, every
// second, three `diskprobe metrics --listen` exporters, each in a mount
// namespace of its own (unshare -m) with tmpfs mounts of known sizes: one is
// filled at a known rate while the test runs, one nearly full, and one
// exporter also sees a FUSE mount that never answers. The tools are then
// called through diskprobe's own stdio server (serve --prometheus), by the
// official SDK client (and once over serve --http), and checked against what the test knows: the kernel's
// exact counts (read through /proc/<pid>/root, in the exporter's namespace),
// the rate it wrote at, and the stuck mount.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killedWithParent } from '../helpers/privateMounts.mjs';
import { type PrometheusTools, prometheusTools, type RunningPrometheus, startPrometheus } from '../helpers/prometheus.js';
import { announceSkip, type FuseMount, fuseSkipReason, has, mountFuse, projectRoot, tempDir } from '../helpers/system.js';

const bin = join(projectRoot, 'dist/bin/diskprobe.js');
const tools = prometheusTools();
const skipReason = (typeof tools === 'string' ? tools : undefined) ?? fuseSkipReason ?? (has('unshare') ? undefined : 'unshare(1) is missing');

const MiB = 1024 * 1024;
/** The fill: CHUNK bytes every TICK_MS, 1 MiB a second. */
const CHUNK = 256 * 1024;
const TICK_MS = 250;
/** The forecast's lookback: 30 one-second scrapes. */
const LOOKBACK_S = 30;

interface Exporter {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** The port it listens on, chosen by the kernel: a port picked before could be taken by another test meanwhile. */
  readonly port: number;
  /** A path in the exporter's mount namespace, from this one. */
  inside(path: string): string;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `diskprobe metrics --listen` in a mount namespace of its own, with `mounts`
 * (tmpfs size → directory) mounted there and nothing exported from outside
 * `root`, so that other tests' mounts (a dead FUSE one among them) stay out.
 */
async function startExporter(name: string, root: string, mounts: ReadonlyArray<readonly [string, string]>): Promise<Exporter> {
  const script = 'set -e; while [ "$1" != -- ]; do mount -t tmpfs -o "size=$1" tmpfs "$2"; shift 2; done; shift; exec "$@"';
  const [command, ...args] = killedWithParent([
    'unshare',
    '-m',
    '--propagation',
    'private',
    'sh',
    '-c',
    script,
    'sh',
    ...mounts.flat(),
    '--',
    process.execPath,
    bin,
    'metrics',
    '--listen',
    '127.0.0.1:0',
    '--timeout',
    '700',
    '--mount-points-exclude',
    `^(?!${escapeRegex(root)}/)`,
  ]);
  const child = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`exporter ${name} exited:\n${stderr}`)));
  });
  const pid = child.pid!;
  return { name, child, pid, port, inside: (path) => `/proc/${pid}/root${path}` };
}

async function stopExporter(exporter: Exporter): Promise<void> {
  if (exporter.child.exitCode !== null) return;
  const exited = new Promise((resolve) => exporter.child.once('exit', resolve));
  exporter.child.kill('SIGTERM');
  await exited;
}

/** Bytes available in a tmpfs, as the kernel says now (f_bavail × f_frsize; f_bsize is f_frsize on tmpfs). */
function availBytes(path: string): number {
  const fs = statfsSync(path);
  return fs.bavail * fs.bsize;
}

function fill(path: string, bytes: number): void {
  const chunk = Buffer.alloc(MiB, 1);
  for (let written = 0; written < bytes; written += MiB) appendFileSync(path, chunk.subarray(0, Math.min(MiB, bytes - written)));
}

interface CallResult {
  readonly text: string;
  readonly isError: boolean;
  readonly structured: Record<string, unknown> & { filesystems: Array<Record<string, unknown>> };
  readonly ms: number;
}

async function connect(args: readonly string[]): Promise<Client> {
  const client = new Client({ name: 'fleet-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', ...args], stderr: 'pipe' }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args });
  const ms = performance.now() - started;
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  return { text, isError: result.isError === true, structured: result.structuredContent as CallResult['structured'], ms };
}

describe.skipIf(announceSkip('the fleet tools against a real Prometheus', skipReason))('the fleet tools against Prometheus scraping three exporters', () => {
  const root = tempDir('diskprobe-fleet-');
  const dirs = {
    fill: join(root, 'alpha/fill'),
    half: join(root, 'alpha/half'),
    full: join(root, 'beta/full'),
    empty: join(root, 'beta/empty'),
    some: join(root, 'gamma/some'),
    stuck: join(root, 'gamma/stuck'),
  };
  const exporters: Exporter[] = [];
  let stuck: FuseMount | undefined;
  let prometheus: RunningPrometheus | undefined;
  let client: Client;
  let filler: NodeJS.Timeout | undefined;
  /** When the fill started, and the bytes written since, for the true rate. */
  const fillLog: Array<{ at: number; bytes: number }> = [];

  beforeAll(async () => {
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    const alpha = await startExporter('alpha', root, [
      ['512m', dirs.fill],
      ['64m', dirs.half],
    ]);
    exporters.push(alpha);
    const beta = await startExporter('beta', root, [
      ['32m', dirs.full],
      ['16m', dirs.empty],
    ]);
    exporters.push(beta);
    // In this namespace, before gamma's is copied from it: only gamma sees it.
    stuck = await mountFuse('hang', dirs.stuck);
    const gamma = await startExporter('gamma', root, [['8m', dirs.some]]);
    exporters.push(gamma);
    // 70% of fill (below node-mixin's 40% available: NodeFilesystemSpaceFillingUp once it fills),
    // 40 of 64 MiB of half, 31 of 32 MiB of full (3.1% available: NodeFilesystemAlmostOutOfSpace, warning only), 2 of 8 MiB of some.
    fill(alpha.inside(`${dirs.fill}/base`), (512 * MiB * 7) / 10);
    fill(alpha.inside(`${dirs.half}/data`), 40 * MiB);
    fill(beta.inside(`${dirs.full}/data`), 31 * MiB);
    fill(gamma.inside(`${dirs.some}/data`), 2 * MiB);

    prometheus = await startPrometheus(tools as PrometheusTools, tempDir('diskprobe-fleet-prometheus-'), [
      { address: `127.0.0.1:${alpha.port}`, labels: { instance: 'alpha' } },
      { address: `127.0.0.1:${beta.port}`, labels: { instance: 'beta' } },
      { address: `127.0.0.1:${gamma.port}`, labels: { instance: 'gamma' } },
    ]);
    const target = alpha.inside(`${dirs.fill}/growing`);
    let bytes = 0;
    fillLog.push({ at: performance.now(), bytes });
    filler = setInterval(() => {
      appendFileSync(target, Buffer.alloc(CHUNK, 2));
      bytes += CHUNK;
      fillLog.push({ at: performance.now(), bytes });
    }, TICK_MS);
    // Every target up, then a lookback's worth of samples and a little more.
    const deadline = Date.now() + 30_000;
    while ((await prometheus.query('count(up == 1)'))[0]?.value[1] !== '3') {
      if (Date.now() > deadline) throw new Error(`the exporters are not all up: ${JSON.stringify(await prometheus.query('up'))}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await new Promise((resolve) => setTimeout(resolve, (LOOKBACK_S + 4) * 1000));
    client = await connect(['--prometheus', prometheus.url, '--prometheus-timeout', '5000']);
  }, 120_000);

  afterAll(async () => {
    clearInterval(filler);
    await client?.close();
    await prometheus?.stop();
    stuck?.cleanup();
    for (const exporter of exporters) await stopExporter(exporter);
  });

  it('lists the tools only with --prometheus', async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['fleet_disk_usage', 'disk_fill_forecast']));
    const local = await connect([]);
    try {
      const localNames = (await local.listTools()).tools.map((tool) => tool.name);
      expect(localNames).not.toContain('fleet_disk_usage');
      expect(localNames).not.toContain('disk_fill_forecast');
    } finally {
      await local.close();
    }
  });

  it('ranks every file system, the stuck one first, with the kernel’s exact sizes', async () => {
    const result = await call(client, 'fleet_disk_usage', {});
    expect(result.isError, result.text).toBe(false);
    const rows = result.structured.filesystems;
    expect(rows.map((row) => `${row.instance} ${row.mountpoint}`)).toEqual([
      `gamma ${dirs.stuck}`,
      `beta ${dirs.full}`,
      `alpha ${dirs.fill}`,
      `alpha ${dirs.half}`,
      `gamma ${dirs.some}`,
      `beta ${dirs.empty}`,
    ]);
    expect(result.structured.total).toBe(6);
    expect(rows[0]).toMatchObject({ deviceError: 'mountpoint timeout', sizeBytes: null, availBytes: null, usedPercent: null, fstype: 'fuse.fusefix' });
    const [alpha, beta, gamma] = exporters as [Exporter, Exporter, Exporter];
    // The ones not filling: exactly what the kernel says, in bytes.
    for (const [row, exporter, dir, size] of [
      [rows[1], beta, dirs.full, 32 * MiB],
      [rows[3], alpha, dirs.half, 64 * MiB],
      [rows[4], gamma, dirs.some, 8 * MiB],
      [rows[5], beta, dirs.empty, 16 * MiB],
    ] as const) {
      expect(row).toMatchObject({
        sizeBytes: size,
        availBytes: availBytes(exporter.inside(dir)),
        fstype: 'tmpfs',
        job: 'diskprobe',
        deviceError: null,
        readonly: false,
      });
    }
    expect(rows[1]!.usedPercent).toBeCloseTo((31 / 32) * 100, 5);
    expect(result.text.split('\n')[0]).toBe('6 file systems on 3 instances, 1 not answering. All shown, fullest first.');
    expect(result.text).toContain(`gamma ${dirs.stuck} (fuse.fusefix`);
    expect(result.text).toContain('not answering: mountpoint timeout');
    expect(result.text).toContain(`beta ${dirs.full} (tmpfs): 97% used, 1.0M available of 32M`);
  });

  it('filters by exact label values, and by fullness', async () => {
    const beta = await call(client, 'fleet_disk_usage', { instance: 'beta', sort: 'size' });
    expect(beta.structured.filesystems.map((row) => row.mountpoint)).toEqual([dirs.full, dirs.empty]);
    const tmpfs = await call(client, 'fleet_disk_usage', { fstype: 'tmpfs', sort: 'avail' });
    expect(tmpfs.structured.total).toBe(5);
    expect(tmpfs.structured.filesystems[0]!.mountpoint).toBe(dirs.full);
    const one = await call(client, 'fleet_disk_usage', { mountpoint: dirs.half, job: 'diskprobe' });
    expect(one.structured.filesystems).toHaveLength(1);
    const full = await call(client, 'fleet_disk_usage', { min_used_percent: 50 });
    // The stuck one stays: it may be full.
    expect(full.structured.filesystems.map((row) => row.mountpoint)).toEqual([dirs.stuck, dirs.full, dirs.fill, dirs.half]);
    // A prefix is not a match: values are exact.
    const prefix = await call(client, 'fleet_disk_usage', { instance: 'alph' });
    expect(prefix.isError).toBe(true);
    expect(prefix.text).toContain('Prometheus has file systems from 3 instances: alpha, beta, gamma.');
  });

  it('pages with a cursor, every file system once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call(client, 'fleet_disk_usage', { limit: 2, ...(cursor !== undefined && { cursor }) });
      expect(page.isError, page.text).toBe(false);
      expect(page.structured.total).toBe(6);
      seen.push(...page.structured.filesystems.map((row) => `${row.instance} ${row.mountpoint}`));
      cursor = page.structured.nextCursor as string | undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(6);
    const other = await call(client, 'fleet_disk_usage', {
      limit: 2,
      sort: 'size',
      cursor: (await call(client, 'fleet_disk_usage', { limit: 2 })).structured.nextCursor,
    });
    expect(other.isError).toBe(true);
    expect(other.text).toContain('this cursor belongs to a listing with other arguments');
  });

  it('never lets an argument reach PromQL as anything but a label value', async () => {
    for (const instance of ['alpha"} or vector(1) or {x="', 'alpha\\', "alpha'", 'alpha\n', 'a"}[5m]']) {
      const result = await call(client, 'fleet_disk_usage', { instance });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^No file system matches instance=/);
    }
    // A lone surrogate has no UTF-8 form: no label can hold it, and the answer says so (not an internal error).
    const lone = await call(client, 'fleet_disk_usage', { instance: 'alpha\ud800' });
    expect(lone.isError).toBe(true);
    expect(lone.text).toContain('the value of instance is not well-formed Unicode');
    const bad = await client.callTool({ name: 'disk_fill_forecast', arguments: { lookback: '6h]) or vector(1' } }).catch((error: Error) => error);
    expect(String((bad as Error).message ?? JSON.stringify(bad))).toMatch(/lookback/);
  });

  it('forecasts the filling one within 10% of the true rate, and 15% of the true hours to full, with node-mixin’s alerts', async () => {
    const result = await call(client, 'disk_fill_forecast', { lookback: `${LOOKBACK_S}s`, horizon: '1h' });
    expect(result.isError, result.text).toBe(false);
    const [alpha] = exporters as [Exporter];
    const availNow = availBytes(alpha.inside(dirs.fill));
    // The rate the test wrote at over the lookback, from its own log.
    const end = fillLog.at(-1)!;
    const start = fillLog.find((entry) => entry.at >= end.at - LOOKBACK_S * 1000)!;
    const bytesPerHour = ((end.bytes - start.bytes) / (end.at - start.at)) * 3_600_000;
    const rows = result.structured.filesystems;
    const fillRow = rows[0]!;
    expect(fillRow).toMatchObject({ instance: 'alpha', mountpoint: dirs.fill, sizeBytes: 512 * MiB });
    expect(fillRow.samples as number).toBeGreaterThanOrEqual(LOOKBACK_S - 3);
    expect(Math.abs((fillRow.bytesPerHour as number) / bytesPerHour - 1), `${fillRow.bytesPerHour} vs ${bytesPerHour}`).toBeLessThan(0.1);
    const trueHours = availNow / bytesPerHour;
    expect(Math.abs((fillRow.hoursToFull as number) / trueHours - 1), `${fillRow.hoursToFull} vs ${trueHours}`).toBeLessThan(0.15);
    // Full within the hour: predicted below zero.
    expect(fillRow.predictedAvailBytes as number).toBeLessThan(0);
    expect(fillRow.alerts).toEqual([{ alertname: 'NodeFilesystemSpaceFillingUp', severity: 'warning', for: '1h', resource: 'space' }]);
    // One file grows: inodes are steady.
    expect(fillRow.inodes).toMatchObject({ hoursToFull: null });
    // None of the others is filling; full has node-mixin's almost-out-of-space warning (3.1% < 5%) and not the critical one (3%).
    for (const row of rows.slice(1)) expect(row.hoursToFull, String(row.mountpoint)).toBeNull();
    const fullRow = rows.find((row) => row.mountpoint === dirs.full)!;
    expect(fullRow.alerts).toEqual([{ alertname: 'NodeFilesystemAlmostOutOfSpace', severity: 'warning', for: '30m', resource: 'space' }]);
    expect(rows.find((row) => row.mountpoint === dirs.stuck)).toMatchObject({ deviceError: 'mountpoint timeout', bytesPerHour: null, hoursToFull: null });
    expect(result.text.split('\n')[1]).toMatch(
      new RegExp(
        `^alpha ${escapeRegex(dirs.fill)} \\(tmpfs\\): .* available; filling at .* an hour, full in [\\d.]+ minutes; full before \\+1h. Holding now: NodeFilesystemSpaceFillingUp warning`,
      ),
    );
  });

  it('says "too few samples" for a lookback the history does not fill', async () => {
    const result = await call(client, 'disk_fill_forecast', { instance: 'beta', lookback: '3s' });
    expect(result.isError, result.text).toBe(false);
    for (const row of result.structured.filesystems) expect(row).toMatchObject({ bytesPerHour: null, hoursToFull: null });
    expect(result.text).toContain('too few samples');
  });

  it('says so when the selector matches nothing', async () => {
    const other = await connect(['--prometheus', prometheus!.url, '--prometheus-selector', 'job="node"']);
    try {
      for (const name of ['fleet_disk_usage', 'disk_fill_forecast']) {
        const result = await call(other, name, {});
        expect(result.isError).toBe(true);
        expect(result.text).toContain(`has no node_filesystem series matching --prometheus-selector 'job="node"'`);
        expect(result.text).toContain('Does it scrape node_exporter');
      }
    } finally {
      await other.close();
    }
  });

  it('offers the same tools over Streamable HTTP (serve --http)', async () => {
    const [command, ...args] = killedWithParent([process.execPath, bin, 'serve', '--http', '127.0.0.1:0', '--prometheus', prometheus!.url]);
    const server = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let stderr = '';
        server.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          const match = /serving MCP on (http:\/\/\S+\/mcp)/.exec(stderr);
          if (match) resolve(new URL(match[1]!));
        });
        void exited.then(() => reject(new Error(`serve --http exited:\n${stderr}`)));
      });
      const remote = new Client({ name: 'fleet-test', version: '1.0.0' });
      await remote.connect(new StreamableHTTPClientTransport(url));
      try {
        const result = await call(remote, 'fleet_disk_usage', { instance: 'beta' });
        expect(result.isError, result.text).toBe(false);
        expect(result.structured.total).toBe(2);
      } finally {
        await remote.close();
      }
    } finally {
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('answers isError within its timeout when Prometheus is gone', async () => {
    await prometheus!.stop();
    for (const name of ['fleet_disk_usage', 'disk_fill_forecast']) {
      const result = await call(client, name, {});
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^cannot reach Prometheus at http:\/\/127\.0\.0\.1:\d+: .*Check that it runs/);
      expect(result.ms).toBeLessThan(5000);
    }
  });
});
