// `diskprobe metrics` with the real components: its output passes Debian's
// promtool; `--listen` is scraped by Debian's real Prometheus (2.42), whose
// stored values are the kernel's f_frsize counts, whose label values
// survive the round trip exactly (quotes, backslashes, newlines, spaces in
// mount points), and whose scrapes of a host with a dead FUSE mount complete
// within their timeout; and bad input is a clear error with exit status 2.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { killedWithParent } from '../helpers/privateMounts.mjs';
import { type PrometheusTools, prometheusTools, type RunningPrometheus, startPrometheus as startScraping } from '../helpers/prometheus.js';
import { announceSkip, fuseSkipReason, mountFuse, mountTmpfs, projectRoot, rootSkipReason, statFs, type TestMount, tempDir } from '../helpers/system.js';

const bin = join(projectRoot, 'dist/bin/diskprobe.js');
const tools = prometheusTools();
const toolsSkip = typeof tools === 'string' ? tools : undefined;
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function run(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, 'metrics', ...args], { encoding: 'utf8', env: { ...process.env, DISKPROBE_TOKEN: '', ...env } });
}

/** `diskprobe metrics --listen 127.0.0.1:0 ...args`, once it says where it listens. */
async function listen(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ port: number; child: ChildProcess }> {
  const [command, ...argv] = killedWithParent([process.execPath, bin, 'metrics', '--listen', '127.0.0.1:0', ...args]);
  const child = spawn(command!, argv, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DISKPROBE_TOKEN: '', ...env },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error(`exited before listening:\n${stderr}`)));
  });
  return { port, child };
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; type: string | undefined; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

/** The value of the sample of `family` whose mountpoint label is `mountPoint`, from an exposition. */
function sampleOf(text: string, family: string, mountPoint: string): string | undefined {
  const escaped = mountPoint.replace(/[\\"\n]/g, (char) => (char === '\n' ? '\\n' : `\\${char}`));
  return text
    .split('\n')
    .find((line) => line.startsWith(`${family}{`) && line.includes(`mountpoint="${escaped}"`))
    ?.split(' ')
    .at(-1);
}

describe('diskprobe metrics, printed once', () => {
  it("prints node_exporter's filesystem families in f_frsize units, with diskprobe's own", () => {
    const result = run([]);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    for (const name of ['size_bytes', 'free_bytes', 'avail_bytes', 'files', 'files_free', 'readonly', 'device_error', 'mount_info']) {
      expect(result.stdout).toContain(`# TYPE node_filesystem_${name} gauge\n`);
    }
    expect(result.stdout).toContain('# HELP node_filesystem_avail_bytes Filesystem space available to non-root users in bytes.\n');
    expect(result.stdout).toMatch(/^node_filesystem_size_bytes\{device="[^"]*",device_error="",fstype="[^"]+",mountpoint="\/"\} \d+$/m);
    expect(result.stdout).toMatch(/^diskprobe_backend_info\{backend="(native|statfs)"\} 1$/m);
    const fs = statFs('/');
    expect(BigInt(sampleOf(result.stdout, 'node_filesystem_size_bytes', '/')!)).toBe(fs.blocks * fs.frsize);
  });

  it('renames the filesystem families with --prefix, for use beside node_exporter', () => {
    const result = run(['--prefix', 'diskprobe_filesystem']);
    expect(result.stdout).toContain('# TYPE diskprobe_filesystem_avail_bytes gauge');
    expect(result.stdout).not.toContain('node_filesystem_');
  });

  it.skipIf(announceSkip('promtool check metrics', toolsSkip))('passes promtool check metrics', () => {
    const output = run([]).stdout;
    const checked = spawnSync((tools as PrometheusTools).promtool, ['check', 'metrics'], { input: output, encoding: 'utf8' });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  });

  it('refuses bad input with a clear error and exit status 2', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--frobnicate'], /unknown option '--frobnicate'/],
      [['--prefix', '9bad'], /option '--prefix' must be a metric name/],
      [['--mount-points-exclude', '('], /option '--mount-points-exclude' is not a valid regular expression/],
      [['--timeout', '0'], /option '--timeout' needs a whole number of milliseconds/],
      [['--allow-remote'], /option '--allow-remote' needs --listen/],
      [['--listen', 'nowhere:port'], /option '--listen' needs \[host:\]port/],
      [['--listen', '0.0.0.0:0'], /is not a loopback address: give --token-file/],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });
});

describe('diskprobe metrics --listen', () => {
  it('serves the text format, and OpenMetrics 1.0 with # EOF to an Accept that asks for it, as Prometheus does', async () => {
    const { port } = await listen();
    const text = await get(port, '/metrics');
    expect([text.status, text.type]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    expect(text.body).not.toContain('# EOF');
    const open = await get(port, '/metrics', { accept: PROMETHEUS_ACCEPT });
    expect([open.status, open.type]).toEqual([200, 'application/openmetrics-text; version=1.0.0; charset=utf-8']);
    expect(open.body.endsWith('\n# EOF\n')).toBe(true);
  });

  it('answers 404 elsewhere, 405 to other methods, 403 to a foreign Host, and 401 without the token', async () => {
    const { port } = await listen();
    expect((await get(port, '/')).status).toBe(404);
    expect((await get(port, '/metrics', {}, 'POST')).status).toBe(405);
    expect((await get(port, '/metrics', { host: 'evil.example.com' })).status).toBe(403);
    const token = 'metrics-token-0123456789';
    const guarded = await listen([], { DISKPROBE_TOKEN: token });
    const refused = await get(guarded.port, '/metrics');
    expect([refused.status, refused.headers['www-authenticate']]).toEqual([401, 'Bearer realm="diskprobe"']);
    expect((await get(guarded.port, '/metrics', { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('exits 2, saying so, when its port is taken', async () => {
    const { port } = await listen();
    const second = run(['--listen', `127.0.0.1:${port}`]);
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(/cannot listen on 127\.0\.0\.1:\d+: listen EADDRINUSE/);
  });
});

/** Debian's prometheus scraping `target` every second, with its data in a temp dir. */
async function startPrometheus(target: string): Promise<RunningPrometheus> {
  const prometheus = await startScraping(tools as PrometheusTools, tempDir('diskprobe-prometheus-'), [{ address: target }]);
  cleanups.push(() => prometheus.stop());
  return prometheus;
}

describe.skipIf(announceSkip('a real Prometheus scraping diskprobe', toolsSkip ?? rootSkipReason))(
  'a real Prometheus scraping diskprobe metrics --listen',
  () => {
    it('stores the kernel’s exact counts, and mount points with quotes, backslashes, newlines and spaces, unchanged', async () => {
      const odd = join(tempDir(), 'a "quoted" back\\slash\nnew line');
      const mount: TestMount = mountTmpfs('size=1m', odd);
      cleanups.push(() => mount.cleanup());
      const { port } = await listen();
      const prometheus = await startPrometheus(`127.0.0.1:${port}`);
      await vi.waitFor(async () => expect((await prometheus.query('up'))[0]?.value[1]).toBe('1'), { timeout: 30_000, interval: 250 });
      const series = await prometheus.query('node_filesystem_avail_bytes');
      const stored = series.find((sample) => sample.metric.mountpoint === odd);
      expect(stored, series.map((sample) => JSON.stringify(sample.metric.mountpoint)).join(' ')).toBeDefined();
      const fs = statFs(odd);
      expect(stored!.value[1]).toBe(String(fs.bavail * fs.frsize));
      // An empty label value is no label to Prometheus: device_error="" is stored as absent.
      expect(stored!.metric).toMatchObject({ fstype: 'tmpfs', job: 'diskprobe' });
      expect(stored!.metric.device_error).toBeUndefined();
    }, 60_000);

    it.skipIf(announceSkip('a dead FUSE mount under a scrape', fuseSkipReason))(
      'keeps up at 1 with a dead FUSE mount: it is "mountpoint timeout", the others exact, and answers again once its daemon is gone',
      async () => {
        const dead = await mountFuse('hang');
        cleanups.push(() => dead.cleanup());
        const { port } = await listen(['--timeout', '700']);
        const prometheus = await startPrometheus(`127.0.0.1:${port}`);
        await vi.waitFor(async () => expect((await prometheus.query('up'))[0]?.value[1]).toBe('1'), { timeout: 30_000, interval: 250 });
        await vi.waitFor(
          async () => {
            const errors = await prometheus.query(`node_filesystem_device_error{mountpoint="${dead.dir}"}`);
            expect(errors[0]?.metric.device_error).toBe('mountpoint timeout');
            expect(errors[0]?.value[1]).toBe('1');
          },
          { timeout: 15_000, interval: 250 },
        );
        // Several scrapes later, still up, every scrape within its 1 s timeout.
        await new Promise((resolve) => setTimeout(resolve, 3000));
        expect((await prometheus.query('up'))[0]?.value[1]).toBe('1');
        expect(Number((await prometheus.query('max_over_time(scrape_duration_seconds[3s])'))[0]?.value[1])).toBeLessThan(1);
        const root = (await prometheus.query('node_filesystem_size_bytes{mountpoint="/"}'))[0];
        const fs = statFs('/');
        expect(root?.value[1]).toBe(String(fs.blocks * fs.frsize));
        // The daemon dies: the mount answers again (with its error: the transport is gone), or is gone itself.
        dead.cleanup();
        await vi.waitFor(
          async () => {
            const after = await prometheus.query(`node_filesystem_device_error{mountpoint="${dead.dir}"}`);
            expect(after.every((sample) => sample.metric.device_error !== 'mountpoint timeout')).toBe(true);
          },
          { timeout: 15_000, interval: 250 },
        );
      },
      90_000,
    );
  },
);
