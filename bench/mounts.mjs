// `npm run bench:mounts`: what listing every mount costs as the mount count
// grows, side by side in one run. For N = 500, 1,000, 2,000 and 4,000 it
// mounts N small tmpfs in a private mount namespace (test/fixtures/
// mountmany.c; the namespace and its mounts go with the run, even when it
// fails) and measures there (bench/mountsInside.mjs), then does the same on
// this machine's own mounts. Prints markdown and rewrites the bench:mounts
// section of docs/benchmarks.md with it.
//
//   node bench/mounts.mjs [--rounds 9] [--counts 500,1000,2000,4000] [--no-doc]
//
// A script, not a test: it states targets and reports PASS or MISS, and
// never fails the process for a miss. Needs root (mount namespaces), a C
// compiler and GNU df; without them it says so and measures nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildCFixture, compilerSkipReason } from '../test/fixtures/cFixture.mjs';
import { sourceRevision, writeDocSection } from './docSection.mjs';
import { median } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(ROOT, 'docs/benchmarks.md');
const SCRATCH = join(ROOT, 'test/.fixtures');

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    counts: { type: 'string', default: '500,1000,2000,4000' },
    'no-doc': { type: 'boolean', default: false },
  },
});
const rounds = Number(flags.rounds);
const counts = flags.counts.split(',').map(Number);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a positive integer, not ${flags.rounds}`);
if (counts.some((count) => !Number.isInteger(count) || count < 1)) throw new RangeError(`--counts must be positive integers, not ${flags.counts}`);

const gnuDf = spawnSync('df', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU coreutils');
const why =
  process.platform !== 'linux'
    ? `Linux only (mount namespaces, /proc/self/mountinfo); this is ${process.platform}`
    : process.getuid?.() !== 0
      ? 'needs root, to make a private mount namespace and mount tmpfs in it'
      : !gnuDf
        ? 'needs GNU df (coreutils)'
        : compilerSkipReason();
if (why) {
  console.log(`bench:mounts skipped: ${why}`);
  process.exit(0);
}

const mountmany = buildCFixture('mountmany', SCRATCH);
const floor = join(SCRATCH, 'mountsFloor');
execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-Werror', join(ROOT, 'bench/mountsFloor.c'), '-o', floor]);
const inside = [process.execPath, join(ROOT, 'bench/mountsInside.mjs'), floor, String(rounds)];

/** One measurement run: in a fresh namespace with `count` tmpfs, or (count 0) on this machine's own mounts. */
function measure(count) {
  const args = count === 0 ? inside : [join(os.tmpdir(), `diskprobe-bench-mounts-${process.pid}`), String(count), ...inside];
  const result = spawnSync(count === 0 ? args[0] : mountmany, count === 0 ? args.slice(1) : args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`the measurement at ${count} mounts failed (${result.status ?? result.signal}):\n${result.stderr}`);
  const { mountCount, firstMountsUsage, figures } = JSON.parse(result.stdout);
  return { count, mountCount, firstMountsUsage, medians: Object.fromEntries(Object.entries(figures).map(([name, values]) => [name, median(values)])) };
}

const started = performance.now();
const runs = [measure(0), ...counts.map((count) => measure(count))];
console.error(`measured in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const ms = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const ratio = (value) => `${value.toFixed(2)}×`;
const verdict = (ok) => (ok ? '**PASS**' : '**MISS**');

const rows = runs.map(({ count, mountCount, firstMountsUsage, medians: m }) => {
  const label = count === 0 ? `this machine (${mountCount})` : `${count.toLocaleString('en-US')} tmpfs (${mountCount.toLocaleString('en-US')})`;
  return `| ${label} | ${ms(m.floor)} | ${ms(m.mountsUsage)} (${ratio(m.mountsUsage / m.floor)}) | ${ms(firstMountsUsage)} | ${ms(m.listMounts)} | ${ms(m.spawnDf)} (${ratio(m.spawnDf / m.mountsUsage)}) | ${ms(m.systeminformation)} | ${ms(m.diskprobeDf)} | ${ms(m.gnuDf)} | ${ms(m.nodeStart)} |`;
});

const targets = [];
const at = (count) => runs.find((run) => run.count === count);
const host = runs[0];
targets.push(
  `| \`diskprobe df\` on this machine's ${host.mountCount} mounts ÷ \`node -e 0\` | ≤ 1.5× | ${ratio(host.medians.diskprobeDf / host.medians.nodeStart)} | ${verdict(host.medians.diskprobeDf <= 1.5 * host.medians.nodeStart)} |`,
);
const two = at(2000);
if (two) {
  const m = two.medians;
  targets.push(
    `| every-mount call (\`mountsUsage\`) ÷ the C floor, 2,000 mounts | ≤ 1.5× | ${ratio(m.mountsUsage / m.floor)} | ${verdict(m.mountsUsage <= 1.5 * m.floor)} |`,
  );
  targets.push(
    `| spawning df ÷ the every-mount call, 2,000 mounts | ≥ 1.5× | ${ratio(m.spawnDf / m.mountsUsage)} | ${verdict(m.spawnDf >= 1.5 * m.mountsUsage)} |`,
  );
  const limit = m.nodeStart + 2 * m.gnuDf;
  targets.push(
    `| \`diskprobe df\`, 2,000 mounts, against \`node -e 0\` + 2 × GNU \`df -hT\` (${ms(m.nodeStart)} + 2 × ${ms(m.gnuDf)} = ${ms(limit)} ms) | ≤ 1.0× | ${ratio(m.diskprobeDf / limit)} | ${verdict(m.diskprobeDf <= limit)} |`,
  );
}
const four = at(4000);
if (two && four) {
  for (const name of ['mountsUsage', 'listMounts', 'diskprobeDf']) {
    const growth = four.medians[name] / two.medians[name];
    targets.push(`| \`${name}\` at 4,000 mounts ÷ at 2,000 (linear growth) | ≤ 2.2× | ${ratio(growth)} | ${verdict(growth <= 2.2)} |`);
  }
}

const cpus = os.cpus();
const report = [
  `Run of ${new Date().toISOString().slice(0, 10)}${sourceRevision(ROOT)}; Node ${process.version}, ${os.type()} ${os.release()}, ${cpus[0]?.model ?? '?'} × ${cpus.length}; load average at the start ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}.`,
  '',
  `Medians of ${rounds} rounds, every contender once a round in a fresh random order, after one warm-up round; milliseconds. In parentheses after each count: the mounts df lists there (the tmpfs, and this machine's own).`,
  '',
  '| mounts (listed) | C floor | `mountsUsage()` (÷ floor) | its first call | `listMounts()` | spawn `df -P -B1` (÷ `mountsUsage`) | `systeminformation.fsSize()` | `diskprobe df` | GNU `df -hT` | `node -e 0` |',
  '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
  ...rows,
  '',
  '| target | limit | measured | result |',
  '| --- | --- | --: | --- |',
  ...targets,
].join('\n');
console.log(report);

if (!flags['no-doc']) {
  writeDocSection(
    DOC,
    'mounts',
    '## Every mount at once: 500 to 4,000 mounts\n\nReproduce with `npm run bench:mounts` (as root: it makes private mount namespaces).',
    report,
  );
  console.error('wrote the bench:mounts section of docs/benchmarks.md');
}
