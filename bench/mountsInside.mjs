// The measurements of npm run bench:mounts, taken where the mounts are: in
// the private namespace mountmany made (or on the host, for its own few
// mounts). Every contender runs once a round, in a fresh random order each
// round; prints one JSON line with every round's figures, in ms.
//
//   node bench/mountsInside.mjs FLOOR_BINARY ROUNDS
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { median, shuffled } from './measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [floorBinary, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
const cli = join(root, 'dist/bin/diskprobe.js');
const execFileAsync = promisify(execFile);

const { listMounts, mountsUsage } = await import(join(root, 'dist/index.js'));
const { default: si } = await import('systeminformation');

/** ms of one call of `run`, awaited. */
async function timed(run) {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const wallOf = (command, args) => () => {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
  if (result.status !== 0 && command !== 'df') throw new Error(`${command} ${args.join(' ')} failed (${result.status})`);
};

// The library's first call in this process, before any warm-up: what a short-lived caller pays.
const firstMountsUsage = await timed(() => mountsUsage());
const mountCount = (await listMounts()).length;

const contenders = {
  // The floor runs three rounds in its own process, start-up excluded: the median of those.
  floor: async () => {
    const { stdout } = await execFileAsync(floorBinary, ['3']);
    return median(JSON.parse(stdout).ms);
  },
  mountsUsage: () => timed(() => mountsUsage()),
  listMounts: () => timed(() => listMounts()),
  // What Node peers do: spawn df and parse its output.
  spawnDf: () => timed(() => execFileAsync('df', ['-P', '-B1'], { maxBuffer: 256 << 20 }).catch(() => {})),
  systeminformation: () => timed(() => si.fsSize()),
  diskprobeDf: () => timed(wallOf(process.execPath, [cli, 'df'])),
  gnuDf: () => timed(wallOf('df', ['-hT'])),
  nodeStart: () => timed(wallOf(process.execPath, ['-e', '0'])),
};

const figures = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
// A warm-up round, not reported: page cache, JIT, the addon.
for (const name of Object.keys(contenders)) await contenders[name]();
for (let round = 0; round < rounds; round++) {
  for (const name of shuffled(Object.keys(contenders))) figures[name].push(await contenders[name]());
}
process.stdout.write(`${JSON.stringify({ mountCount, firstMountsUsage, figures })}\n`, () => process.exit(0));
