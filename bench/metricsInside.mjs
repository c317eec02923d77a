// The measurements of npm run bench:metrics, taken where the mounts are: in
// the private namespace mountmany made (or on the host, for its own few).
// Starts `diskprobe metrics --listen` and node_exporter with only its
// filesystem collector, scrapes each in turn ROUNDS times, and prints one
// JSON line: each scrape's wall time in ms, node_exporter's own collector
// time, the series each reported, and each server's RSS after.
//
//   node bench/metricsInside.mjs NODE_EXPORTER ROUNDS SCRATCH
// node_exporter reads /proc/1/mounts, which is the host's namespace, not
// this one: it is given a procfs of its own (SCRATCH/proc/1/mounts, a copy
// of this namespace's /proc/self/mounts), as --path.procfs allows.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { median } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [nodeExporter, roundsArg, scratch] = process.argv.slice(2);
const rounds = Number(roundsArg);

function started(command, args, pattern, stream) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream].setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${command} exited (${code}): ${text.slice(-2000)}`)));
  });
}

function scrape(port) {
  const begun = performance.now();
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - begun, body }) : reject(new Error(`HTTP ${res.statusCode}`))));
    })
      .on('error', reject)
      .end();
  });
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const series = (body, name) => body.split('\n').filter((line) => line.startsWith(`${name}{`)).length;

const procfs = join(scratch, 'proc');
mkdirSync(join(procfs, '1'), { recursive: true });
// Read and written, not copied: /proc files report a size of 0, and a copy would be empty.
writeFileSync(join(procfs, '1', 'mounts'), readFileSync('/proc/self/mounts'));
const port = 20000 + (process.pid % 20000);
// Debian's node_exporter leaves out /run, /mnt and /media too: diskprobe is told the same, so both scrape the same mounts.
const DEBIAN_EXCLUDE = '^/(dev|proc|run|sys|mnt|media|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)';
const diskprobe = await started(
  process.execPath,
  [join(root, 'dist/bin/diskprobe.js'), 'metrics', '--listen', '127.0.0.1:0', '--mount-points-exclude', DEBIAN_EXCLUDE],
  /metrics on http:\/\/127\.0\.0\.1:(\d+)/,
  'stderr',
);
const exporter = await started(
  nodeExporter,
  ['--collector.disable-defaults', '--collector.filesystem', `--path.procfs=${procfs}`, `--web.listen-address=127.0.0.1:${port}`],
  /(?:Listening on|listening on).*?:(\d+)/i,
  'stderr',
).catch(async () => ({ child: undefined, port }));

const figures = { diskprobe: [], nodeExporter: [], nodeExporterCollector: [] };
const last = {};
// One unreported scrape each first: both then have their mount tables and code warm.
await scrape(diskprobe.port);
await scrape(exporter.port);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? ['nodeExporter', 'diskprobe'] : ['diskprobe', 'nodeExporter'];
  for (const who of order) {
    const { ms, body } = await scrape(who === 'diskprobe' ? diskprobe.port : exporter.port);
    figures[who].push(ms);
    last[who] = body;
    if (who === 'nodeExporter') {
      const own = /node_scrape_collector_duration_seconds\{collector="filesystem"\} (\S+)/.exec(body);
      if (own) figures.nodeExporterCollector.push(Number(own[1]) * 1000);
    }
  }
}
const result = {
  medians: { diskprobe: median(figures.diskprobe), nodeExporter: median(figures.nodeExporter), nodeExporterCollector: median(figures.nodeExporterCollector) },
  series: { diskprobe: series(last.diskprobe, 'node_filesystem_size_bytes'), nodeExporter: series(last.nodeExporter, 'node_filesystem_size_bytes') },
  rss: { diskprobe: rssMb(diskprobe.child.pid), nodeExporter: rssMb(exporter.child.pid) },
};
diskprobe.child.kill('SIGTERM');
exporter.child?.kill('SIGTERM');
process.stdout.write(`${JSON.stringify(result)}\n`);
