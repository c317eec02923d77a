// Debian's Prometheus (2.42) and promtool for the metrics tests: taken from
// the PATH, or from Debian's `prometheus` package unpacked into
// test/.fixtures/prometheus/ (apt-get download, dpkg-deb -x: no service is
// installed or started). Where neither can be had, the tests skip, saying so.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { killedWithParent } from './privateMounts.mjs';
import { projectRoot } from './system.js';

export interface PrometheusTools {
  readonly prometheus: string;
  readonly promtool: string;
}

const onPath = (command: string): string | undefined => {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
};

let cached: PrometheusTools | string | undefined;

/** The tools, or the reason they cannot be had on this machine (looked for once). */
export function prometheusTools(): PrometheusTools | string {
  cached ??= findTools();
  return cached;
}

function findTools(): PrometheusTools | string {
  const prometheus = onPath('prometheus');
  const promtool = onPath('promtool');
  if (prometheus !== undefined && promtool !== undefined) return { prometheus, promtool };
  const dir = join(projectRoot, 'test/.fixtures/prometheus');
  const bin = join(dir, 'usr/bin');
  if (!existsSync(join(bin, 'promtool'))) {
    if (onPath('apt-get') === undefined || onPath('dpkg-deb') === undefined) return "no prometheus on the PATH, and no apt-get to fetch Debian's";
    mkdirSync(dir, { recursive: true });
    const download = spawnSync('apt-get', ['download', 'prometheus'], { cwd: dir, encoding: 'utf8' });
    const deb = readdirSync(dir).find((name) => name.startsWith('prometheus_') && name.endsWith('.deb'));
    if (deb === undefined) return `apt-get download prometheus failed: ${(download.stderr || download.error?.message || '').trim().split('\n').at(-1)}`;
    const unpacked = spawnSync('dpkg-deb', ['-x', deb, '.'], { cwd: dir, encoding: 'utf8' });
    if (unpacked.status !== 0) return `dpkg-deb -x ${deb} failed: ${unpacked.stderr.trim()}`;
  }
  return { prometheus: join(bin, 'prometheus'), promtool: join(bin, 'promtool') };
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PromSample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

export interface RunningPrometheus {
  /** The API's base URL, http://127.0.0.1:port */
  readonly url: string;
  query(expression: string): Promise<PromSample[]>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

/** A scrape target: host:port, and labels for it (an `instance` label replaces the address in the series). */
export interface ScrapeTarget {
  readonly address: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Debian's prometheus scraping `targets` every second (scrape timeout 1 s)
 * under job `job`, with its data in a fresh dir under `dir`; resolves once its
 * API answers. `jobSettings` are more YAML lines for the job, indented four
 * spaces (an `oauth2:` block). `stop` ends it; the caller must call it, even
 * when a test fails.
 */
export async function startPrometheus(
  tools: PrometheusTools,
  dir: string,
  targets: readonly ScrapeTarget[],
  job = 'diskprobe',
  jobSettings = '',
): Promise<RunningPrometheus> {
  mkdirSync(join(dir, 'data'), { recursive: true });
  const configs = targets.map(({ address, labels }) => `      - targets: ['${address}']\n        labels: ${JSON.stringify(labels ?? {})}\n`).join('');
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: ${job}\n${jobSettings}    static_configs:\n${configs}`,
  );
  const port = await freePort();
  const [command, ...args] = killedWithParent([
    tools.prometheus,
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const child = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const query = async (expression: string): Promise<PromSample[]> => {
    const reply = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = await reply.text();
    if (reply.status !== 200) throw new Error(`Prometheus answered ${reply.status}: ${body}`);
    return (JSON.parse(body) as { data: { result: PromSample[] } }).data.result;
  };
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await query('1');
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`prometheus did not start: ${(error as Error).message}\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, query, stop };
}
