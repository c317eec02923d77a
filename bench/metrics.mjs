// `npm run bench:metrics`: the time of one scrape of `diskprobe metrics
// --listen`, next to Debian's node_exporter (1.5.0, only its filesystem
// collector) on the same mounts, side by side in one run: on this machine's
// own mounts, and at 2,000 tmpfs in a private mount namespace (mountmany,
// test/fixtures/mountmany.c; root only). Reports medians of ROUNDS scrapes
// each, taken in turn, node_exporter's own collector time beside its wall
// time, the series each reported, and each server's RSS. node_exporter comes
// from Debian's package, unpacked into test/.fixtures/ (apt-get download;
// no service installed). Prints a table and rewrites its section of
// docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildCFixture } from '../test/fixtures/cFixture.mjs';
import { sourceRevision, writeDocSection } from './docSection.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRATCH = join(ROOT, 'test/.fixtures');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const COUNT = 2000;

function skip(why) {
  console.log(`bench:metrics skipped: ${why}`);
  process.exit(0);
}
if (process.platform !== 'linux') skip('Linux only (mount namespaces, node_exporter from Debian)');

/** Debian's node_exporter, unpacked once into test/.fixtures/node-exporter/. */
function nodeExporter() {
  const dir = join(SCRATCH, 'node-exporter');
  const binary = join(dir, 'usr/bin/prometheus-node-exporter');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const download = spawnSync('apt-get', ['download', 'prometheus-node-exporter'], { cwd: dir, encoding: 'utf8' });
  const deb = readdirSync(dir).find((name) => name.endsWith('.deb'));
  if (deb === undefined)
    skip(`apt-get download prometheus-node-exporter failed: ${(download.stderr || download.error?.message || '').trim().split('\n').at(-1)}`);
  spawnSync('dpkg-deb', ['-x', deb, '.'], { cwd: dir });
  if (!existsSync(binary)) skip(`${deb} holds no usr/bin/prometheus-node-exporter`);
  return binary;
}

const exporter = nodeExporter();
const inside = [process.execPath, join(ROOT, 'bench/metricsInside.mjs'), exporter, String(ROUNDS)];

function measure(count) {
  const scratch = join(os.tmpdir(), `diskprobe-bench-metrics-${process.pid}-${count}`);
  mkdirSync(scratch, { recursive: true });
  const result =
    count === 0
      ? spawnSync(inside[0], [...inside.slice(1), scratch], { encoding: 'utf8' })
      : spawnSync(buildCFixture('mountmany', SCRATCH), ['-x', join(os.tmpdir(), 'diskprobe-'), join(scratch, 'mm'), String(count), ...inside, scratch], {
          encoding: 'utf8',
          maxBuffer: 64 << 20,
        });
  if (result.status !== 0) throw new Error(`the measurement at ${count} mounts failed (${result.status ?? result.signal}):\n${result.stderr.slice(-3000)}`);
  return { count, ...JSON.parse(result.stdout) };
}

const runs = [measure(0)];
if (process.getuid?.() === 0) runs.push(measure(COUNT));
else console.log(`bench:metrics: the ${COUNT}-mount run needs root (a private mount namespace); only this machine's mounts are measured`);

const ms = (value) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const rows = runs.map(
  ({ count, medians, series, rss }) =>
    `| ${count === 0 ? `this machine's (${series.diskprobe})` : `${series.diskprobe.toLocaleString('en-US')} (${count.toLocaleString('en-US')} tmpfs)`} | **${ms(medians.diskprobe)}** | **${ms(medians.nodeExporter)}** (${ms(medians.nodeExporterCollector)}) | ${(medians.diskprobe / medians.nodeExporter).toFixed(2)}× | ${series.nodeExporter.toLocaleString('en-US')} | ${rss.diskprobe.toFixed(1)} / ${rss.nodeExporter.toFixed(1)} |`,
);
const big = runs.find((run) => run.count === COUNT);
const verdict = big
  ? `At ${COUNT.toLocaleString('en-US')} mounts a scrape of diskprobe takes ${(big.medians.diskprobe / big.medians.nodeExporter).toFixed(2)}× node_exporter's, against a limit of ≤ 2×: **${big.medians.diskprobe / big.medians.nodeExporter <= 2 ? 'PASS' : 'MISS'}**.`
  : `The ${COUNT}-mount run was not made (not root).`;
const body = `Measured${sourceRevision(ROOT)} on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, node_exporter 1.5.0 (Debian), ${ROUNDS} scrapes each, in turn (medians).
Both with Debian's mount-point exclusions, so they scrape the same mounts.

| mounts scraped (diskprobe) | diskprobe scrape (ms) | node_exporter scrape (ms) (its collector's own time) | diskprobe ÷ node_exporter | node_exporter's series | RSS after, MB (diskprobe / node_exporter) |
|---|--:|--:|--:|--:|--:|
${rows.join('\n')}

${verdict}`;
console.log(`\n${body}`);
writeDocSection(
  join(ROOT, 'docs/benchmarks.md'),
  'metrics',
  '## Prometheus metrics: one scrape, next to node_exporter\n\nReproduce with `npm run bench:metrics` (Linux; root for the 2,000-mount run; about a minute). `BENCH_ROUNDS` sets the scrapes.',
  body,
);
console.log('\nbench:metrics: wrote its section of docs/benchmarks.md');
