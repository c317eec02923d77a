// Runs GNU df and `diskprobe df` side by side on the same arguments, inside a
// private mount namespace (`unshare -m --propagation private node <this>`),
// for dfFlags.test.ts. Read from stdin: { cli, keep, below, cases }.
//
// Why a namespace: without paths both commands list every mount, and the
// test file's namespace (test/privateMountsPool.ts) began as a copy of the
// machine's, where anything else may have mounted under the temp dir, a dead
// FUSE mount among them (GNU df would hang on it). Here the mounts under
// `below` that are not in `keep` are detached first (lazily, by name, so a
// dead one is never asked anything), and nothing mounted outside afterwards
// reaches in: the two commands see the same mounts, the machine's and the
// test's own. Writes a JSON array of results, one per case, to stdout.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const { cli, keep, below, cases } = JSON.parse(readFileSync(0, 'utf8'));

const unescapeOctal = (field) => field.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(Number.parseInt(octal, 8)));
const others = readFileSync('/proc/self/mountinfo', 'utf8')
  .split('\n')
  .map((line) => unescapeOctal(line.split(' ')[4] ?? ''))
  .filter((point) => point.startsWith(below) && !keep.some((dir) => point === dir || point.startsWith(`${dir}/`)))
  .sort((a, b) => b.length - a.length);
for (const point of new Set(others)) {
  // -c: no canonicalizing, which would stat the mount point (and hang on a dead one).
  spawnSync('umount', ['-l', '-c', point], { timeout: 5000 });
}

function run(command, args, env) {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', ...env }, timeout: 30_000, maxBuffer: 16 << 20 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, signal: result.signal };
}

const results = cases.map(({ ours, gnu, env }) => {
  let last;
  // The root file system's figures move while other processes write to it,
  // and come back when they delete: a round counts when GNU df says the same
  // before and after diskprobe, and diskprobe says it too. A real difference
  // shows in every round; the last is reported.
  for (let round = 0; round < 5; round++) {
    const before = run('timeout', ['20', 'df', ...gnu], env);
    const mine = run(process.execPath, [cli, 'df', ...ours], env);
    const after = run('timeout', ['20', 'df', ...gnu], env);
    last = { gnu: after, ours: mine };
    if (before.stdout === after.stdout && mine.stdout === after.stdout) break;
  }
  return last;
});
process.stdout.write(JSON.stringify(results));
