// One call of diskprobe for npm run bench:explain, in a fresh Node process:
// its own time (Node's start-up and the import not counted), its CPU time,
// and what it found. A fresh process each time, because explainUsage keeps
// the walks it makes for the next call in the same process: a second call
// there could answer from the first one's walk.
//
//   node bench/explainInside.mjs explain|walk PATH
//
// `explain` is explainUsage(PATH); `walk` is the walk explainUsage makes,
// alone: directoryUsage(PATH) with the options explainUsage gives it
// (oneFileSystem, depth 0, bigint), and `fresh`. Prints one JSON line:
// { ms, cpuMs, elapsedMs?, allocated, deleted? }, where `deleted` sums up
// deletedOpen: { files, holders (by an fd), bytes, outside (files whose
// path is not under PATH) }, or null when it was not measured (`unseen`).
const [kind, path] = process.argv.slice(2);
const { directoryUsage, explainUsage } = await import('../dist/index.js');

function clock() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
  };
}

let outcome;
if (kind === 'explain') {
  const stop = clock();
  const answer = await explainUsage(path, { bigint: true });
  const timing = stop();
  const files = answer.deletedOpen?.files;
  outcome = {
    ...timing,
    elapsedMs: answer.elapsedMs,
    allocated: String(answer.visible),
    deleted: files
      ? {
          files: files.length,
          holders: files.reduce((sum, file) => sum + file.holders.filter((holder) => holder.fd !== null).length, 0),
          bytes: String(answer.deletedOpen.bytes),
          outside: files.filter((file) => !file.path.startsWith(`${path}/`)).length,
        }
      : null,
    unseen: answer.unseen,
  };
} else if (kind === 'walk') {
  const stop = clock();
  const walk = await directoryUsage(path, { oneFileSystem: true, depth: 0, bigint: true, fresh: true });
  outcome = { ...stop(), allocated: String(walk.allocated) };
} else {
  throw new Error('usage: node bench/explainInside.mjs explain|walk PATH');
}
process.stdout.write(`${JSON.stringify(outcome)}\n`);
