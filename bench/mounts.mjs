// `npm run bench:mounts`: what listing every mount costs, at the scale of
// issue 27 and on this machine's own mounts, side by side in one run:
//
//   - the library: mountsUsage() in a warm Node process against a C floor
//     that reads /proc/self/mountinfo and calls statvfs on each mount point
//     (bench/mountsFloor.c), with the table cached and after a change;
//   - the command: `diskprobe df` (dist/bin/diskprobe.js) against Node's own
//     start-up (`node -e 0`) plus twice what GNU `df -hT` takes.
//
// Each scale runs in a private mount namespace of its own (test/fixtures/
// mountmany.c, as `unshare -m --propagation private` makes one), where
// mountmany mounts a tmpfs and, under it, the rest of the tmpfs asked for;
// the namespace and its mounts go with the run, even when it fails. The
// mounts other tests make under the temp dir meanwhile are left outside (-x).
// bench/mountsInside.mjs measures there. Prints markdown and rewrites the
// bench:mounts section of docs/benchmarks.md with it.
//
//   node bench/mounts.mjs [--rounds 15] [--tmpfs 2005[,4000...]] [--no-doc]
//
// A script, not a test: it states targets and reports PASS or MISS, and
// never fails the process for a miss. Needs root (mount namespaces), a C
// compiler and GNU df; without them it says so and measures nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
/** The scale of issue 27: 2,005 tmpfs in the namespace. */
const ISSUE_SCALE = 2005;

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    tmpfs: { type: 'string', default: String(ISSUE_SCALE) },
    'no-doc': { type: 'boolean', default: false },
  },
});
const rounds = Number(flags.rounds);
const scales = flags.tmpfs.split(',').map(Number);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a positive integer, not ${flags.rounds}`);
if (scales.some((count) => !Number.isInteger(count) || count < 2)) throw new RangeError(`--tmpfs must be whole numbers of at least 2, not ${flags.tmpfs}`);

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

/**
 * One measurement run in a fresh private namespace: `tmpfs` tmpfs mounted
 * there (mountmany's own, and tmpfs - 1 under it), or with 0 this machine's
 * own mounts alone.
 */
function measure(tmpfs) {
  const scratch = mkdtempSync(join(os.tmpdir(), 'diskprobe-bench-mounts-'));
  try {
    // Beside the tmpfs, not above them: a mount there hides none of them.
    const flip = join(scratch, 'flip');
    mkdirSync(flip);
    const args = [
      '-x',
      join(os.tmpdir(), 'diskprobe-'),
      join(scratch, 'mm'),
      String(Math.max(0, tmpfs - 1)),
      process.execPath,
      join(ROOT, 'bench/mountsInside.mjs'),
      floor,
      String(rounds),
      flip,
    ];
    const result = spawnSync(mountmany, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (result.status !== 0) throw new Error(`the measurement with ${tmpfs} tmpfs failed (${result.status ?? result.signal}):\n${result.stderr}`);
    const { mountinfoLines, listed, firstMountsUsage, figures } = JSON.parse(result.stdout);
    const medians = Object.fromEntries(Object.entries(figures).map(([name, values]) => [name, median(values)]));
    return { tmpfs, mountinfoLines, listed, firstMountsUsage, medians };
  } finally {
    // The mounts went with the namespace; the directories they were on stay.
    rmSync(scratch, { recursive: true, force: true });
  }
}

const started = performance.now();
const runs = [measure(0), ...scales.map((tmpfs) => measure(tmpfs))];
console.error(`measured in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const ms = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const ratio = (value) => `${value.toFixed(2)}×`;
const verdict = (ok) => (ok ? '**PASS**' : '**MISS**');
const count = (value) => value.toLocaleString('en-US');
const scaleOf = ({ tmpfs, mountinfoLines, listed }) =>
  `${tmpfs === 0 ? 'this machine' : `${count(tmpfs)} tmpfs`} (${count(mountinfoLines)} / ${count(listed)})`;
/** Node's own start-up plus twice GNU df: the reference of issue 27 for `diskprobe df`. */
const reference = (m) => m.nodeStart + 2 * m.gnuDf;

const libraryRows = runs.map((run) => {
  const m = run.medians;
  return `| ${scaleOf(run)} | ${ms(m.floor)} | ${ms(m.mountsUsage)} | ${ratio(m.mountsUsage / m.floor)} | ${ms(m.mountsUsageChanged)} | ${ratio(m.mountsUsageChanged / m.floor)} | ${ms(run.firstMountsUsage)} |`;
});
/** The medians as if Node started without NODE_EXTRA_CA_CERTS (measured so, where it is set). */
const plain = (m) => ({ ...m, diskprobeDf: m.diskprobeDfPlain, nodeStart: m.nodeStartPlain });
const extraCerts = runs[0].medians.nodeStartPlain !== undefined;
const commandRow = (run, m, note) =>
  `| ${scaleOf(run)}${note} | ${ms(m.diskprobeDf)} | ${ms(m.nodeStart)} | ${ms(m.gnuDf)} | ${ms(reference(m))} | ${ratio(m.diskprobeDf / reference(m))} | ${ratio(m.diskprobeDf / m.nodeStart)} |`;
const commandRows = runs.flatMap((run) =>
  extraCerts ? [commandRow(run, run.medians, ''), commandRow(run, plain(run.medians), ', no extra CA certificates')] : [commandRow(run, run.medians, '')],
);
const peerRows = runs.map((run) => {
  const m = run.medians;
  return `| ${scaleOf(run)} | ${ms(m.mountsUsage)} | ${ms(m.spawnDf)} (${ratio(m.spawnDf / m.mountsUsage)}) | ${ms(m.systeminformation)} (${ratio(m.systeminformation / m.mountsUsage)}) |`;
});

const host = runs[0];
const issue = runs.find((run) => run.tmpfs === ISSUE_SCALE);
/** The command's targets, for Node started as this environment starts it, and without extra certificates where they are set. */
const commandTargets = (medians, note) => {
  const rows = [
    `| \`diskprobe df\` on this machine's mounts ÷ \`node -e 0\`${note} | ≤ 1.5× | ${ratio(medians(host).diskprobeDf / medians(host).nodeStart)} | ${verdict(medians(host).diskprobeDf <= 1.5 * medians(host).nodeStart)} |`,
  ];
  if (issue) {
    const m = medians(issue);
    rows.push(
      `| \`diskprobe df\`, ${count(ISSUE_SCALE)} tmpfs, ÷ \`node -e 0\` + 2 × GNU \`df -hT\` (${ms(m.nodeStart)} + 2 × ${ms(m.gnuDf)} = ${ms(reference(m))} ms)${note} | ≤ 1.0× | ${ratio(m.diskprobeDf / reference(m))} | ${verdict(m.diskprobeDf <= reference(m))} |`,
    );
  }
  return rows;
};
const targets = [];
if (issue) {
  const m = issue.medians;
  const at = `${count(ISSUE_SCALE)} tmpfs`;
  targets.push(
    `| \`mountsUsage()\` ÷ the C floor, ${at}, table cached | ≤ 1.5× | ${ratio(m.mountsUsage / m.floor)} | ${verdict(m.mountsUsage <= 1.5 * m.floor)} |`,
    `| \`mountsUsage()\` ÷ the C floor, ${at}, table read again | ≤ 1.5× | ${ratio(m.mountsUsageChanged / m.floor)} | ${verdict(m.mountsUsageChanged <= 1.5 * m.floor)} |`,
  );
}
targets.push(...commandTargets((run) => run.medians, ''));
if (extraCerts) targets.push(...commandTargets((run) => plain(run.medians), ', no extra CA certificates'));

const cpus = os.cpus();
const report = [
  `Run of ${new Date().toISOString().slice(0, 10)}${sourceRevision(ROOT)}; Node ${process.version}, ${os.type()} ${os.release()}, ${cpus[0]?.model ?? '?'} × ${cpus.length}; load average at the start ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}.`,
  '',
  `Medians of ${rounds} rounds, every contender once a round in a fresh random order, after one warm-up round; milliseconds. Each scale in a private mount namespace of its own; after it, in parentheses: the lines of its /proc/self/mountinfo / the mounts df lists there.`,
  '',
  'The library, in a warm Node process. "Table read again": a tmpfs mounted or unmounted before each call, so that the call reads /proc/self/mountinfo, as the floor does every time.',
  '',
  '| mounts | C floor | `mountsUsage()`, table cached | ÷ floor | table read again | ÷ floor | first call in a process |',
  '| --- | --: | --: | --: | --: | --: | --: |',
  ...libraryRows,
  '',
  `The command, each a whole process, spawned and waited for.${
    extraCerts
      ? ' NODE_EXTRA_CA_CERTS is set here, and Node reads the certificates it names at every start, before any script runs: the rows "no extra CA certificates" start both Node processes without it, as most machines start Node.'
      : ''
  }`,
  '',
  '| mounts | `diskprobe df` | `node -e 0` | GNU `df -hT` | `node -e 0` + 2 × `df -hT` | `diskprobe df` ÷ that | ÷ `node -e 0` |',
  '| --- | --: | --: | --: | --: | --: | --: |',
  ...commandRows,
  '',
  "Node's other ways to the same numbers, for reference (÷ `mountsUsage()`, table cached).",
  '',
  '| mounts | `mountsUsage()` | spawn `df -P -B1` and parse | `systeminformation.fsSize()` |',
  '| --- | --: | --: | --: |',
  ...peerRows,
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
    '## Every mount at once: 2,005 mounts\n\nReproduce with `npm run bench:mounts` (as root: it makes private mount namespaces).',
    report,
  );
  console.error('wrote the bench:mounts section of docs/benchmarks.md');
}
