// One walk of a tree by a Node library, in a process of its own, for
// npm run bench:du: the time of the call alone (Node's start-up and the
// import are not counted), and the totals it reports. Its own process, so
// /usr/bin/time can give the peak RSS of each walk on its own. CPU time
// (user + system, every thread) is the call's too, with that of the helper
// process the fallback walks in, once it has ended (Linux's /proc).
//
//   node bench/duInside.mjs library|get-folder-size|fdir PATH THREADS
//
// `library` is diskprobe's directoryUsage (the fallback too, when the parent
// sets DISKPROBE_BACKEND=statfs). Prints one JSON line: { ms, cpuMs, allocated,
// apparent } (a total the library does not report is left out), or
// { missing } when diskprobe has no directoryUsage yet.
import { existsSync, readFileSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const [kind, path, threads] = process.argv.slice(2);

const TICKS_PER_SECOND = 100; // USER_HZ, the unit of /proc's times on every Linux

/** CPU ms of this process's children that have ended and been waited for (proc(5): cutime, cstime). */
function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** Waits up to 5 s for every child process to have ended and been waited for. */
async function childrenEnded() {
  const children = `/proc/self/task/${process.pid}/children`;
  for (let waited = 0; waited < 5000 && existsSync(children) && readFileSync(children, 'utf8').trim() !== ''; waited += 10) await sleep(10);
}

/** Starts a clock; calling the result gives { ms, cpuMs } since, children's CPU included. */
function clock() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const childrenCpu = childrenCpuMs();
  return async () => {
    const ms = performance.now() - wall;
    const used = process.cpuUsage(cpu);
    await childrenEnded();
    return { ms, cpuMs: (used.user + used.system) / 1000 + childrenCpuMs() - childrenCpu };
  };
}

/** A plain number from a number or bigint field, or undefined. */
const integer = (value) => (typeof value === 'bigint' || typeof value === 'number' ? Number(value) : undefined);

/** The allocated and apparent totals of directoryUsage's result, under the names it is likely to use. */
function totalsOf(result) {
  const top = Array.isArray(result) ? result[0] : result;
  if (top === null || typeof top !== 'object') return {};
  const first = (names) => names.map((name) => integer(top[name])).find((value) => value !== undefined);
  return {
    allocated: first(['allocated', 'allocatedBytes', 'diskBytes', 'bytes', 'size']),
    apparent: first(['apparent', 'apparentBytes', 'apparentSize']),
  };
}

async function library() {
  const diskprobe = await import('../dist/index.js');
  if (typeof diskprobe.directoryUsage !== 'function') return { missing: 'dist/index.js exports no directoryUsage' };
  const started = clock();
  const result = await diskprobe.directoryUsage(path, { depth: 0, threads: Number(threads) });
  return { ...(await started()), ...totalsOf(result) };
}

async function getFolderSizeWalk() {
  const { default: getFolderSize } = await import('get-folder-size');
  const started = clock();
  // Its documented strict call: lstat sizes, each inode once; apparent bytes only.
  const size = await getFolderSize.strict(path, { bigint: true });
  return { ...(await started()), apparent: Number(size) };
}

// How a careful npm user writes it: list with fdir, then lstat every path
// with a bounded number in flight, each inode with more than one link once.
async function fdirWalk() {
  const { fdir } = await import('fdir');
  const started = clock();
  const paths = await new fdir().withFullPaths().withDirs().crawl(path).withPromise();
  let allocated = 0;
  let apparent = 0;
  const seen = new Set();
  let next = 0;
  async function worker() {
    while (next < paths.length) {
      const stats = await lstat(paths[next++]);
      if (stats.nlink > 1 && !stats.isDirectory()) {
        const key = `${stats.dev}:${stats.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      allocated += stats.blocks * 512;
      apparent += stats.size;
    }
  }
  await Promise.all(Array.from({ length: 64 }, worker));
  return { ...(await started()), allocated, apparent };
}

const walks = { library, 'get-folder-size': getFolderSizeWalk, fdir: fdirWalk };
if (!(kind in walks)) throw new Error(`usage: node bench/duInside.mjs ${Object.keys(walks).join('|')} PATH THREADS`);
const outcome = await walks[kind]();
process.stdout.write(`${JSON.stringify(outcome)}\n`);
