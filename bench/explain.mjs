// `npm run bench:explain`: what explainUsage() costs, against lsof and the
// walk alone, side by side in one run, for the two targets of its issue:
//
//   1. the deleted-open scan with 2,000 processes × 50 fds each, against
//      `lsof +L1`: at least 5× faster;
//   2. explain on a 1,000,000-entry file system: at most 1.3× the walk alone.
//
// In a private mount namespace it mounts three tmpfs: one that holds almost
// nothing (its walk is trivial: the call is the scan of /proc), one beside
// it, and one with a 1,000,000-entry tree (bench/duTree.mjs). Every
// contender runs once a round, in a fresh random order, after one warm-up
// run: first with this machine's own processes, then with 2,000 more
// (bench/explainHolders.c), each holding 50 fds: one on a deleted file on
// the nearly empty tmpfs, one on a deleted file on the tmpfs beside it, the
// rest on ordinary files. diskprobe runs in a fresh Node process each time
// (bench/explainInside.mjs): explainUsage keeps its walks for the next call
// in a process, and a second call could answer from the first one's walk.
// The C floor (bench/explainFloor.c) makes the scan's system calls alone,
// and step by step, to say where the scan's time goes.
//
//   node bench/explain.mjs [--rounds 5] [--processes 2000] [--fds 50]
//                          [--entries 1000000] [--doc]
//
// --doc rewrites the bench:explain section of docs/benchmarks.md.
//
// A script, not a test: it states targets and reports PASS or MISS, and
// never fails the process for a miss. Needs root (mounts, a private mount
// namespace, every process's /proc), a C compiler, lsof and /usr/bin/time.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { sourceRevision, writeDocSection } from './docSection.mjs';
import { enterPrivateMountNamespace, mountTmpfs, run, scratchDir } from './duScratch.mjs';
import { median, shuffled } from './measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/bin/diskprobe.js');
const INSIDE = join(ROOT, 'bench/explainInside.mjs');
const TREE = join(ROOT, 'bench/duTree.mjs');
const NATIVE = { DISKPROBE_BACKEND: 'native' }; // a missing addon is an error here, not the fallback's figures

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    processes: { type: 'string', default: '2000' },
    fds: { type: 'string', default: '50' },
    entries: { type: 'string', default: '1000000' },
    doc: { type: 'boolean', default: false },
  },
});
const rounds = Number(flags.rounds);
const holderCount = Number(flags.processes);
const fdsEach = Number(flags.fds);
const entries = Number(flags.entries);
for (const [name, value] of [
  ['--rounds', rounds],
  ['--processes', holderCount],
  ['--fds', fdsEach - 5],
  ['--entries', entries],
]) {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (--fds at least 6)`);
}

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const why = [
  [process.platform !== 'linux', `Linux only (/proc, tmpfs); this is ${process.platform}`],
  [process.getuid?.() !== 0, 'needs root: mounts in a private mount namespace, and every process of the machine in /proc'],
  [!has('cc'), 'needs a C compiler (cc)'],
  [!has('lsof'), 'needs lsof (apt-get install lsof)'],
  [!has('/usr/bin/time'), 'needs /usr/bin/time (apt-get install time)'],
].find(([missing]) => missing)?.[1];
if (why) {
  console.log(`bench:explain skipped: ${why}`);
  process.exit(0);
}

await enterPrivateMountNamespace();

const scratch = scratchDir('explain');
const binary = (name) => {
  const out = join(scratch, name);
  const built = spawnSync('cc', ['-O2', '-pthread', '-Wall', '-Wextra', '-Werror', join(ROOT, `bench/${name}.c`), '-o', out], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bench/${name}.c did not build:\n${built.stderr}`);
  return out;
};
const holdersBinary = binary('explainHolders');
const floor = binary('explainFloor');

/** A fresh tmpfs on a directory in the scratch directory; unmounted at exit. */
function tmpfs(name, size = 0) {
  const dir = join(scratch, name);
  mkdirSync(dir);
  mountTmpfs(dir, size);
  return dir;
}
const held = tmpfs('held'); // nearly empty: the deleted files held open
const beside = tmpfs('beside'); // the ordinary files, and deleted files to leave out
const tree = tmpfs('tree', entries);

console.error(`bench:explain: building a ${entries.toLocaleString('en-US')}-entry tree`);
const built = await run(process.execPath, [TREE, join(tree, 'tree'), '--entries', String(entries)]);
if (built.status !== 0) throw new Error(`bench/duTree.mjs failed: ${built.stderr}`);
const made = JSON.parse(built.stdout);
console.error(`  built in ${(made.ms / 1000).toFixed(1)} s`);

/** Processes and fds on this machine now (as root, every one). */
function census() {
  let processes = 0;
  let fds = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    processes++;
    try {
      fds += readdirSync(`/proc/${name}/fd`).length;
    } catch {
      // gone, or a kernel thread's
    }
  }
  return { processes, fds };
}

/** Elapsed ms and CPU ms of one run of `argv`, under /usr/bin/time; its status and output. */
async function timed(argv, env) {
  const timeFile = join(scratch, 'time');
  const started = performance.now();
  const result = await run('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, ...argv], { env });
  const wallMs = performance.now() - started;
  const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
  return { ...result, wallMs, cpuMs: (user + system) * 1000 };
}

const failed = (what, result) => new Error(`${what} failed (${result.status}): ${result.stderr.trim().slice(-2000)}`);

/** What a run found on the held tmpfs, as one comparable line. */
const count = (value) => Number(value).toLocaleString('en-US');
const found = ({ files, holders, bytes, outside }) =>
  `${count(files)} files, ${count(holders)} fds, ${count(bytes)} bytes${outside ? `, ${count(outside)} elsewhere` : ''}`;

/** explainUsage or the walk alone, in a fresh Node process: the call's time, and the process's. */
const inside = (kind, path) => async () => {
  const result = await timed([process.execPath, INSIDE, kind, path], NATIVE);
  if (result.status !== 0) throw failed(`explainInside ${kind} ${path}`, result);
  const outcome = JSON.parse(result.stdout);
  if (outcome.unseen?.length > 0) console.error(`  unseen: ${JSON.stringify(outcome.unseen)}`);
  return {
    ms: outcome.ms,
    elapsedMs: outcome.elapsedMs,
    processMs: result.wallMs,
    cpuMs: result.cpuMs,
    allocated: outcome.allocated,
    found: outcome.deleted ? found(outcome.deleted) : outcome.deleted === null ? 'not measured' : undefined,
  };
};

/** lsof's deleted files under the held tmpfs, counted in its listing: the fds on them, each line one. */
function lsofFound(stdout) {
  const pattern = new RegExp(`\\s${held.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/held-\\d+ \\(deleted\\)$`);
  const lines = stdout.split('\n').filter((line) => pattern.test(line));
  // Columns: COMMAND PID USER FD TYPE DEVICE SIZE/OFF NLINK NODE NAME.
  const inodes = new Set(lines.map((line) => line.trim().split(/\s+/)[8]));
  return `${count(inodes.size)} files, ${count(lines.length)} fds`;
}

const lsof = (args) => async () => {
  const result = await timed(['lsof', ...args]);
  // 1: nothing matched (or a warning); the listing is still whole.
  if (result.status > 1) throw failed(`lsof ${args.join(' ')}`, result);
  return { ms: result.wallMs, cpuMs: result.cpuMs, found: lsofFound(result.stdout) };
};

const floorRun = (threads, steps) => async () => {
  const result = await timed([floor, '-t', String(threads), '-s', steps, held]);
  if (result.status !== 0) throw failed('explainFloor', result);
  const outcome = JSON.parse(result.stdout);
  return {
    ms: outcome.ms,
    cpuMs: result.cpuMs,
    found: steps.includes('d') ? `${count(outcome.held)} fds, ${count(outcome.bytes)} bytes` : undefined,
  };
};

const STEPS = [
  ['p', 'list /proc, open and fstat each /proc/PID'],
  ['pc', '+ read comm and stat'],
  ['pcf', '+ list fd/'],
  ['pcfr', '+ readlink every fd'],
  ['pcfrd', '+ the deleted: fdinfo, and fstatat those on the tmpfs'],
  ['pcfrdm', '+ read maps: the whole scan'],
];

const contenders = [
  { key: 'explain', part: 'scan', label: '`explainUsage(tmpfs)`, the call', run: inside('explain', held) },
  { key: 'cli', part: 'scan', label: '`diskprobe explain --json tmpfs`, the whole command', run: cliRun },
  { key: 'lsof', part: 'scan', label: '`lsof -nP +L1` (every file system)', run: lsof(['-nP', '+L1']) },
  { key: 'lsofMount', part: 'scan', label: '`lsof -nP +aL1 tmpfs` (that file system)', run: lsof(['-nP', '+aL1', held]) },
  { key: 'floor1', part: 'scan', label: 'C floor of the scan, 1 thread', run: floorRun(1, 'pcfrdm') },
  { key: 'floor2', part: 'scan', label: 'C floor of the scan, 2 threads', run: floorRun(2, 'pcfrdm') },
  { key: 'walk', part: 'tree', label: 'the walk alone: `directoryUsage(root, { oneFileSystem, depth: 0, fresh })`', run: inside('walk', tree) },
  { key: 'explainTree', part: 'tree', label: '`explainUsage(root)`', run: inside('explain', tree) },
];
const steps = STEPS.map(([steps, label]) => ({ key: `steps-${steps}`, label, run: floorRun(1, steps) }));

async function cliRun() {
  const result = await timed([process.execPath, CLI, 'explain', '--json', held], NATIVE);
  // 1: something could not be seen; the answer is printed all the same.
  if (result.status > 1) throw failed('diskprobe explain', result);
  const answer = JSON.parse(result.stdout);
  const files = answer.deletedOpen?.files;
  if (!files) return { ms: result.wallMs, cpuMs: result.cpuMs, found: 'not measured' };
  const holders = files.reduce((sum, file) => sum + file.holders.filter((holder) => holder.fd !== null).length, 0);
  const outside = files.filter((file) => !file.path.startsWith(`${held}/`)).length;
  return { ms: result.wallMs, cpuMs: result.cpuMs, found: found({ files: files.length, holders, bytes: answer.deletedOpen.bytes, outside }) };
}

/** One warm-up run of each, then `rounds` rounds in a fresh random order: per key, the samples. */
async function measure(list, phase) {
  const samples = new Map(list.map((contender) => [contender.key, []]));
  for (const contender of list) await contender.run();
  for (let round = 0; round < rounds; round++) {
    for (const contender of shuffled(list)) samples.get(contender.key).push(await contender.run());
    console.error(`  ${phase}: round ${round + 1}/${rounds}`);
  }
  return samples;
}

// ---- the holders: started once, ended with the run however it ends ----

let holders;
process.prependListener('exit', () => {
  // Their own process group (run detached): the parent and every child at once.
  if (holders?.exitCode === null) process.kill(-holders.pid, 'SIGKILL');
});

/** Starts the holders; resolves to the bytes their deleted files on the held tmpfs take, once every one holds them. */
function startHolders() {
  holders = spawn(holdersBinary, [String(holderCount), String(fdsEach), held, beside], { cwd: '/', stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  return new Promise((resolve, reject) => {
    holders.on('error', reject);
    holders.on('exit', (status) => reject(new Error(`explainHolders exited (${status}) before it was ready`)));
    createInterface({ input: holders.stdout }).once('line', (line) => {
      const [word, count, bytes] = line.split(' ');
      if (word !== 'ready' || Number(count) !== holderCount) reject(new Error(`explainHolders said: ${line}`));
      else resolve(Number(bytes));
    });
  });
}

/** Ends the holders (EOF on their stdin: they kill and reap every child) and waits for them. */
function stopHolders() {
  holders.removeAllListeners('exit');
  const ended = new Promise((resolve) => holders.once('exit', resolve));
  holders.stdin.end();
  return ended;
}

// ---- the run ----

const started = performance.now();
const load = os.loadavg();
const own = census();
console.error(`bench:explain: this machine's own ${own.processes} processes (${own.fds} fds)`);
const ownSamples = await measure([...contenders, ...steps], 'own processes');
console.error(`bench:explain: starting ${holderCount} processes × ${fdsEach} fds`);
const heldBytes = await startHolders();
const withHolders = census();
const holderSamples = await measure([...contenders, ...steps], `with ${holderCount} more`);
await stopHolders();
console.error(`bench:explain: measured in ${((performance.now() - started) / 60000).toFixed(1)} min`);

// ---- the report ----

const ms = (value) => (value === undefined ? '' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const ratio = (value) => `${value.toFixed(2)}×`;
const verdict = (ok) => (ok ? '**PASS**' : '**MISS**');
const medianOf = (samples, key, field = 'ms') => median(samples.get(key).map((sample) => sample[field]));

/** What every run of `key` found with the holders, checked against what they hold; mismatches of either set of rounds go to `wrong`. */
const wrong = [];
function check(key) {
  let shown = '';
  for (const samples of [ownSamples, holderSamples]) {
    const seen = [...new Set(samples.get(key).map((sample) => sample.found))];
    if (seen.every((line) => line === undefined)) return '';
    const expected = expectedLine(samples, key);
    for (const line of seen.filter((line) => line !== expected))
      wrong.push(`${key}, ${samples === ownSamples ? 'own processes' : 'with the holders'}: ${line}, not ${expected}`);
    if (samples === holderSamples) shown = seen.map((line) => (line === expected ? `${line} ✓` : `**${line}**`)).join('; ');
  }
  return shown;
}

function expectedLine(samples, key) {
  const files = samples === holderSamples ? holderCount : 0;
  const bytes = samples === holderSamples ? heldBytes : 0;
  if (key.startsWith('lsof')) return `${count(files)} files, ${count(files)} fds`;
  if (key.startsWith('floor') || key.startsWith('steps')) return `${count(files)} fds, ${count(bytes)} bytes`;
  return found({ files, holders: files, bytes, outside: 0 });
}

const lsofMs = (samples) => medianOf(samples, 'lsof');
const scanRow = (label, key, field = 'ms', checked = true) => {
  const cells = [ownSamples, holderSamples].map((samples) => {
    const m = medianOf(samples, key, field);
    return `${ms(m)} | ${ratio(lsofMs(samples) / m)}`;
  });
  return `| ${label} | ${cells.join(' | ')} | ${checked ? ms(medianOf(holderSamples, key, 'cpuMs')) : ''} | ${checked ? check(key) : ''} |`;
};
const scanRows = contenders
  .filter((contender) => contender.part === 'scan')
  .flatMap((contender) =>
    contender.key === 'explain'
      ? [
          scanRow(contender.label, 'explain'),
          scanRow('the same, as its `elapsedMs` says', 'explain', 'elapsedMs', false),
          scanRow('the same, the whole fresh `node` process (start-up, import, call)', 'explain', 'processMs', false),
        ]
      : [scanRow(contender.label, contender.key)],
  );

const walkOwn = medianOf(ownSamples, 'walk');
const walkHeld = medianOf(holderSamples, 'walk');
const treeRows = contenders
  .filter((contender) => contender.part === 'tree')
  .map((contender) => {
    const own = medianOf(ownSamples, contender.key);
    const withMore = medianOf(holderSamples, contender.key);
    const totals = new Set([...ownSamples.get(contender.key), ...holderSamples.get(contender.key)].map((sample) => sample.allocated));
    return `| ${contender.label} | ${ms(own)} | ${ratio(own / walkOwn)} | ${ms(withMore)} | ${ratio(withMore / walkHeld)} | ${ms(medianOf(holderSamples, contender.key, 'cpuMs'))} | ${[...totals].map(count).join(', ')} |`;
  });
const stepRows = steps.map((step, i) => {
  const cells = [ownSamples, holderSamples].map((samples) => {
    const m = medianOf(samples, step.key);
    const before = i === 0 ? 0 : medianOf(samples, steps[i - 1].key);
    return `${ms(m)} | ${ms(m - before)}`;
  });
  return `| \`${STEPS[i][0]}\`: ${step.label} | ${cells.join(' | ')} |`;
});

const scanRatio = lsofMs(holderSamples) / medianOf(holderSamples, 'explain');
const treeRatio = medianOf(ownSamples, 'explainTree') / walkOwn;
const treeRatioHeld = medianOf(holderSamples, 'explainTree') / walkHeld;
const scale = (c) => `${count(c.processes)} processes, ${count(c.fds)} fds`;
const cpus = os.cpus();
const report = [
  `Run of ${new Date().toISOString().slice(0, 10)}${sourceRevision(ROOT)}; Node ${process.version}, ${os.type()} ${os.release()}, ${cpus[0]?.model ?? '?'} × ${cpus.length}, ${(os.totalmem() / 1e9).toFixed(1)} GB RAM, lsof ${/revision: ([\d.]+)/.exec(spawnSync('lsof', ['-v'], { encoding: 'utf8' }).stderr)?.[1] ?? '?'}; load average at the start ${load.map((value) => value.toFixed(2)).join(' ')}.`,
  '',
  `Medians of ${rounds} rounds, every contender once a round in a fresh random order, after one warm-up run each; milliseconds. Two sets of rounds: with this machine's own processes (${scale(own)}), then with ${count(holderCount)} more, each holding ${fdsEach} fds (${scale(withHolders)} in all): one on a deleted file on a nearly empty tmpfs, one on a deleted file on another tmpfs, ${fdsEach - 5} on ordinary files there, and 0, 1 and 2 on /dev/null. diskprobe runs in a fresh Node process each time (explainUsage keeps its walks within a process): "the call" is the awaited \`explainUsage()\` in it, Node's start-up and the import left out. lsof and the command: the whole process. CPU ms: user + system of the whole process, in the rounds with the ${count(holderCount)} more. The C floor (bench/explainFloor.c) makes the scan's system calls alone.`,
  '',
  `### The deleted-open scan: ${count(holderCount)} processes × ${fdsEach} fds`,
  '',
  `"Found" is what each run found on the nearly empty tmpfs, with the ${count(holderCount)} more: ${count(holderCount)} deleted files, one fd each, ${count(heldBytes)} bytes, none elsewhere; ✓ where every run agrees.`,
  '',
  `| contender | own processes: ms | \`lsof +L1\` ÷ it | with ${count(holderCount)} more: ms | \`lsof +L1\` ÷ it | CPU ms | found |`,
  '| --- | --: | --: | --: | --: | --: | --- |',
  ...scanRows,
  '',
  'Where the scan\'s time goes: the C floor, one thread, one step added a row ("alone": this row less the one above).',
  '',
  `| steps | own processes: ms | alone | with ${count(holderCount)} more: ms | alone |`,
  '| --- | --: | --: | --: | --: |',
  ...stepRows,
  '',
  `### explain on a ${count(entries)}-entry file system`,
  '',
  `A tmpfs holding bench/duTree.mjs's tree of ${count(made.entries)} entries (${count(made.dirs)} directories), built in ${(made.ms / 1000).toFixed(1)} s. Both rows: the call in a fresh Node process, with the addon's walk at its default threads.`,
  '',
  `| contender | own processes: ms | ÷ walk | with ${count(holderCount)} more: ms | ÷ walk | CPU ms | bytes allocated (every run) |`,
  '| --- | --: | --: | --: | --: | --: | --- |',
  ...treeRows,
  '',
  '| target | limit | measured | result |',
  '| --- | --- | --: | --- |',
  `| \`lsof -nP +L1\` ÷ \`explainUsage()\`, ${count(holderCount)} processes × ${fdsEach} fds | ≥ 5× | ${ratio(scanRatio)} | ${verdict(scanRatio >= 5)} |`,
  `| \`explainUsage()\` ÷ the walk alone, ${count(entries)} entries | ≤ 1.3× | ${ratio(treeRatio)} | ${verdict(treeRatio <= 1.3)} |`,
  `| the same, with the ${count(holderCount)} processes running | ≤ 1.3× | ${ratio(treeRatioHeld)} | ${verdict(treeRatioHeld <= 1.3)} |`,
  ...(wrong.length === 0 ? [] : ['', '**Runs that did not find what the holders hold:**', '', ...wrong.map((line) => `- ${line}`)]),
].join('\n');
console.log(`\n${report}`);

if (flags.doc) {
  writeDocSection(
    join(ROOT, 'docs/benchmarks.md'),
    'explain',
    "## Explaining df: the deleted-open scan against lsof, and explain against the walk alone\n\nReproduce with `npm run bench:explain` (as root: it mounts three tmpfs in a private mount namespace and reads every process's /proc).",
    report,
  );
  console.error('bench:explain: wrote its section of docs/benchmarks.md');
}
