// The measurements of npm run bench:mounts, taken where the mounts are: in
// the private namespace mountmany made. Every contender runs once a round,
// in a fresh random order each round, after one warm-up round; prints one
// JSON line with every round's figures, in ms.
//
//   node bench/mountsInside.mjs FLOOR_BINARY ROUNDS FLIP_DIR
//
// FLIP_DIR is an empty directory on which a tmpfs is mounted and unmounted
// in turn, before each call of the "changed" contender, so that its
// mountsUsage() finds the table changed and reads it again, as the floor
// does at every call.
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { median, shuffled } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [floorBinary, roundsArg, flipDir] = process.argv.slice(2);
const rounds = Number(roundsArg);
const cli = join(root, 'dist/bin/diskprobe.js');
const execFileAsync = promisify(execFile);

const { mountsUsage, onMountEvent } = await import(join(root, 'dist/index.js'));
const { default: si } = await import('systeminformation');

/** ms of one call of `run`, awaited. */
async function timed(run) {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** A whole process, spawned and waited for, its output thrown away. */
const processOf =
  (command, args, env = process.env) =>
  () => {
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'], env });
    if (result.status !== 0 && command !== 'df') throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  };

// The library's first call in this process, before any warm-up: what a short-lived caller pays.
const firstMountsUsage = await timed(() => mountsUsage());
const mountinfoLines = readFileSync('/proc/self/mountinfo', 'utf8').trimEnd().split('\n').length;
const listed = (await mountsUsage()).length;

const { NODE_EXTRA_CA_CERTS, ...withoutExtraCerts } = process.env;
const plainEnv = NODE_EXTRA_CA_CERTS === undefined ? undefined : withoutExtraCerts;

let flipped = false;
let changes = 0;
onMountEvent((event) => {
  if (event.type === 'mounts-changed') changes++;
});

/** Mounts a tmpfs on FLIP_DIR, or unmounts it: a change of the table, seen by the addon's watch. */
async function flip() {
  const [command, args] = flipped ? ['umount', [flipDir]] : ['mount', ['-t', 'tmpfs', '-o', 'size=4k', 'flip', flipDir]];
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr.trim()}`);
  flipped = !flipped;
  // The watch's thread wakes on the kernel's POLLPRI; give it time to count the change.
  await sleep(50);
}

const contenders = {
  // The floor runs three rounds in its own process, start-up excluded: the median of those.
  floor: async () => {
    const { stdout } = await execFileAsync(floorBinary, ['3']);
    return median(JSON.parse(stdout).ms);
  },
  // Timed again if the table changed meanwhile after all (a watch slower than flip waited for).
  mountsUsage: async () => {
    for (;;) {
      const before = changes;
      const ms = await timed(() => mountsUsage());
      if (changes === before) return ms;
    }
  },
  mountsUsageChanged: async () => {
    await flip();
    const before = changes;
    const ms = await timed(() => mountsUsage());
    if (changes === before) throw new Error(`mountsUsage() did not read the table again after ${flipped ? 'mounting' : 'unmounting'} ${flipDir}`);
    return ms;
  },
  diskprobeDf: () => timed(processOf(process.execPath, [cli, 'df'])),
  nodeStart: () => timed(processOf(process.execPath, ['-e', '0'])),
  // Node reads the certificates NODE_EXTRA_CA_CERTS names at every start, before any of
  // the script runs: where it is set, both again without it, as most machines start Node.
  ...(plainEnv && {
    diskprobeDfPlain: () => timed(processOf(process.execPath, [cli, 'df'], plainEnv)),
    nodeStartPlain: () => timed(processOf(process.execPath, ['-e', '0'], plainEnv)),
  }),
  gnuDf: () => timed(processOf('df', ['-hT'])),
  // What Node peers do: spawn df and parse its output, or ask systeminformation.
  spawnDf: () => timed(() => execFileAsync('df', ['-P', '-B1'], { maxBuffer: 256 << 20 }).catch(() => {})),
  systeminformation: () => timed(() => si.fsSize()),
};

const figures = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
// A warm-up round, not reported: page cache, JIT, the addon.
for (const name of Object.keys(contenders)) await contenders[name]();
for (let round = 0; round < rounds; round++) {
  for (const name of shuffled(Object.keys(contenders))) figures[name].push(await contenders[name]());
}
if (flipped) await flip();
process.stdout.write(`${JSON.stringify({ mountinfoLines, listed, firstMountsUsage, figures })}\n`, () => process.exit(0));
