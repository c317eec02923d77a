// A worker of test/native-safety/driver.mjs. Each worker is a Node
// environment of its own, so it gets its own addon instance (slots, pool,
// callback, watcher), which it drives through the raw binding, then either
// ends by itself or is terminated with probes queued, running, or stuck in
// the kernel: the addon's teardown paths.
import { readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

const { addonPath, mode, scale, dead, tree } = workerData;
const raw = createRequire(import.meta.url)(addonPath);
// An explain scan of /proc in every worker: still running, or done and unread, when the worker ends or is terminated.
if (typeof raw.openFilesStart === 'function') raw.openFilesStart(0, 0, () => {});
const ENOENT = 2;
const ENAMETOOLONG = 36;
const ECANCELED = 125;
let failures = 0;
const problems = [];
function check(condition, what) {
  if (!condition) {
    failures++;
    problems.push(what);
  }
}

const answers = new Map();
let waiters = [];
const onAnswer = (id, status, names) => {
  answers.set(id, status);
  check(names === undefined, 'no names on Linux');
  for (const waiter of waiters) waiter();
};
const until = (predicate, ms = 20000) =>
  new Promise((resolve) => {
    const deadline = setTimeout(done, ms);
    function done() {
      clearTimeout(deadline);
      waiters = waiters.filter((waiter) => waiter !== poll);
      resolve(predicate());
    }
    function poll() {
      if (predicate()) done();
    }
    waiters.push(poll);
    poll();
  });

/** The mount that holds `path` by name (the last, topmost, of the longest mount point above it): [mountPoint, mountId]. */
function mountOf(path) {
  let best = ['/', 0];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').trim().split('\n')) {
    const fields = line.split(' ');
    const mountPoint = fields[4].replace(/\\040/g, ' ');
    const holds = mountPoint === '/' || path === mountPoint || path.startsWith(`${mountPoint}/`);
    if (holds && mountPoint.length >= best[0].length) best = [mountPoint, Number(fields[0])];
  }
  return best;
}

/** A symlink in the tree to `target` (another worker may have made it already). */
function linkTo(name, target) {
  const link = join(tree, name);
  try {
    symlinkSync(target, link);
  } catch {
    // exists
  }
  return link;
}

const overlong = `/${'x/'.repeat(3000)}`;
const paths = ['/', '/tmp', tree, join(tree, 'file'), '/nonexistent/x', join(tree, 'file', 'below'), overlong, '/tmp/\uD800'];

/** Walks `path` to the end (native/walk/scan.h); resolves with the snapshot taken once done. */
function walkToEnd(path, options) {
  return new Promise((resolve) => {
    const id = raw.scanStart(path, options, () => {
      const snapshot = raw.scanSnapshot(id, 10);
      raw.scanBusy(id);
      raw.scanProgress(id);
      raw.scanRelease(id);
      check(raw.scanSnapshot(id) === null, 'a released walk has no tree');
      raw.scanRelease(id);
      raw.scanStop(id);
      resolve(snapshot);
    });
  });
}

/**
 * The walk's entry points and teardown paths: to the end (with every file
 * kept, and with the mount points below as work items of their own),
 * stopped and released mid-walk, released without a stop, snapshots while
 * threads add nodes, a walk of a file and of nothing, and ids never given.
 */
async function exerciseWalks() {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map((fields) => [fields[4].replace(/\\040/g, ' '), ...fields[2].split(':').map(Number), false]);
  const whole = await walkToEnd(tree, { threads: 3, keepFiles: true, topFiles: 4, maxErrors: 3, mounts });
  check(whole.done && whole.sizes[3] > 0n && whole.sizes[6] >= 1n, 'a walk of the tree finishes with its sizes');
  const file = await walkToEnd(join(tree, 'file'), { threads: 1 });
  check((file.flags[0] & 64) !== 0 && file.sizes[5] === 1n, 'a walk of a file counts one file');
  const missing = await walkToEnd('/nonexistent/x', { threads: 2 });
  check(missing.errors.length === 1 && missing.errors[0].errno === ENOENT, 'a walk of nothing reports ENOENT');
  check(raw.scanSnapshot(987654) === null && raw.scanBusy(987654).length === 0, 'an id never given answers nothing');
  raw.scanStop(987654);
  raw.scanUnref(987654);
  for (const threads of [1, 4]) {
    const usr = raw.scanStart('/usr', { threads, topFiles: 2, mounts }, () => {});
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      const partial = raw.scanSnapshot(usr, 5);
      check(partial.parent.length === partial.flags.length, 'a snapshot mid-walk is consistent');
    }
    raw.scanUnref(usr);
    raw.scanStop(usr);
    raw.scanStop(usr);
    raw.scanSnapshot(usr, 5);
    raw.scanRelease(usr);
    raw.scanRelease(raw.scanStart('/usr', { threads, mounts }, () => {}));
  }
}

if (mode === 'finish') {
  // Answers before any callback is set are dropped, and freed.
  raw.statAsync('/', 1, 900001, true);
  raw.statAsyncBatch(['/tmp', overlong], [1, 2], [900002, 900003], [true, false]);
  // Until they are answered (and dropped): one answered while the first
  // callback below is set would reach it. Under valgrind that takes a while.
  for (const start = Date.now(); [900001, 900002, 900003].some((id) => raw.pending(id)) && Date.now() - start < 20000; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  check(![900001, 900002, 900003].some((id) => raw.pending(id)), 'probes before any callback are answered');
  raw.setCallback(() => check(false, 'the replaced callback is never called'));
  raw.setCallback(onAnswer); // replaces (and releases) the first
  raw.unref();
  raw.ref();
  raw.unref();

  for (const path of paths) {
    for (const device of [true, false]) {
      const status = raw.statSync(path, device);
      check(status >= 0, `statSync(${path.slice(0, 30)}) answers`);
    }
    const timed = raw.statSyncTimeout(path, 3, 800000 + paths.indexOf(path), 5000, true);
    check(timed >= 0, `statSyncTimeout(${path.slice(0, 30)}) answers (${timed})`);
  }
  check(raw.statSync(overlong, true) === ENAMETOOLONG, 'overlong is ENAMETOOLONG');
  check(raw.statSync('/nonexistent/x', true) === ENOENT, 'missing is ENOENT');
  raw.names();
  raw.listMounts();
  await exerciseWalks();
  raw.mountTableChanged();

  // Many asynchronous probes in several lanes, one by one and in batches.
  raw.ref();
  const count = Math.max(40, Math.round(400 * scale));
  let id = 1;
  const ids = [];
  for (let i = 0; i < count; i++, id++) {
    raw.statAsync(paths[i % paths.length], 1 + (i % 5), id, i % 2 === 0);
    ids.push(id);
  }
  for (let b = 0; b < 8; b++) {
    const size = Math.max(5, Math.round(count / 8));
    const batch = { paths: [], lanes: [], ids: [], devices: [] };
    for (let i = 0; i < size; i++, id++) {
      batch.paths.push(paths[(i + b) % paths.length]);
      batch.lanes.push(1 + ((i * 7 + b) % 6));
      batch.ids.push(id);
      batch.devices.push(i % 3 !== 0);
      ids.push(id);
    }
    raw.statAsyncBatch(batch.paths, batch.lanes, batch.ids, batch.devices);
    // Abandon some at once: skipped if still queued, delivered if running.
    for (let i = 0; i < size; i += 4) raw.abandon(batch.ids[i]);
  }
  // Probes that check first whether they lead off their mount: a symlink to
  // another mount (/proc) moves to the off-mount lane given and is answered
  // there; the others are answered in their own lane.
  const [treeMount, treeMountId] = mountOf(tree);
  const procLink = linkTo('proc-link', '/proc');
  check(raw.statSyncTimeout(procLink, 11, 700001, 5000, true, treeMount, treeMountId, 12) === 0, 'statSyncTimeout with an off-mount check answers');
  check(
    raw.statSyncTimeout(join(tree, 'file'), 11, 700002, 5000, true, treeMount, treeMountId, 12) === 0,
    'statSyncTimeout of a path that stays on its mount answers',
  );
  for (const path of [procLink, join(procLink, 'self'), tree, join(tree, 'file'), '/nonexistent/x', overlong, '/tmp/\uD800']) {
    for (const [mountPoint, mountId] of [
      [treeMount, treeMountId],
      ['/', 0],
      ['/nonexistent', 1],
      [`${treeMount}/`, treeMountId],
    ]) {
      raw.statAsync(path, 11 + (id % 3), id, id % 2 === 0, mountPoint, mountId, 14);
      ids.push(id++);
    }
  }
  raw.statAsyncBatch([], [], [], []);
  // A batch with a non-string among strings: a TypeError, and nothing queued.
  for (const bad of [42, undefined, {}]) {
    let threw = false;
    try {
      raw.statAsyncBatch(['/', '/tmp', bad, '/'], [1, 1, 1, 1], [990001, 990002, 990003, 990004], [true, true, true, true]);
    } catch (error) {
      threw = error instanceof TypeError;
    }
    check(threw, 'a batch with a non-string throws a TypeError');
  }
  let threw = false;
  try {
    raw.statAsync(7, 1, 990005, true);
  } catch (error) {
    threw = error instanceof TypeError;
  }
  check(threw, 'statAsync with a non-string throws a TypeError');
  // Lanes and ids that are not numbers: the addon throws, and must free what
  // it allocated for the probe before it noticed.
  const misuses = [
    () => raw.statAsync('/', 'lane', 990006, true),
    () => raw.statAsync('/', 1, undefined, true),
    () => raw.statSyncTimeout('/', 1, {}, 1000, true),
    () => raw.statSyncTimeout('/', 1, 990007, 'soon', true),
    () => raw.statAsyncBatch(['/', '/tmp', '/'], [1, 'lane', 1], [990008, 990009, 990010], [true, true, true]),
    () => raw.statAsyncBatch(['/', '/tmp'], [1, 1], [990011, null], [true, true]),
    () => raw.statAsyncBatch(['/', '/tmp'], [1, 1], [990012], [true, true]),
    () => raw.statAsync('/tmp', 1, 990013, true, '/', 'id', 2),
    () => raw.statAsync('/tmp', 1, 990014, true, '/', 1, 'lane'),
    () => raw.statSyncTimeout('/tmp', 1, 990015, 1000, true, '/', {}, 2),
  ];
  for (const misuse of misuses) {
    try {
      misuse();
    } catch {
      // refused: what matters is that nothing leaks
    }
  }

  const all = await until(() => ids.every((i) => answers.has(i)));
  check(all, `every async probe answered (${ids.filter((i) => answers.has(i)).length}/${ids.length})`);
  const statuses = new Set(ids.map((i) => answers.get(i)));
  for (const status of statuses) check([0, ENOENT, 20, ENAMETOOLONG, ECANCELED].includes(status), `status ${status} is expected`);
  check(!ids.some((i) => raw.pending(i)), 'nothing is pending once answered');
  check(![990001, 990002, 990003, 990004, 990005].some((i) => answers.has(i)), 'refused batches queue nothing');
  await new Promise((resolve) => setTimeout(resolve, 50)); // answers of misused calls that were queued after all
  raw.unref();
  parentPort.postMessage({ ok: failures === 0, failures: problems.slice(0, 5).join('; ') });
} else if (mode === 'terminate') {
  // Probes queued, running and answered when the environment goes away.
  raw.setCallback(onAnswer);
  raw.ref();
  let id = 1;
  const submit = () => {
    const batch = { paths: [], lanes: [], ids: [], devices: [] };
    for (let i = 0; i < 50; i++, id++) {
      batch.paths.push(paths[i % paths.length]);
      batch.lanes.push(1 + (i % 4));
      batch.ids.push(id);
      batch.devices.push(true);
    }
    raw.statAsyncBatch(batch.paths, batch.lanes, batch.ids, batch.devices);
    raw.statAsync(paths[id % paths.length], 9, id++, false);
    raw.abandon(id - 7);
    setImmediate(submit);
  };
  submit();
  // Walks running, done and released when the environment goes away.
  const walk = () => raw.scanStart('/usr', { threads: 2, topFiles: 3 }, walk);
  walk();
  raw.scanStart(tree, { threads: 1 }, () => {});
  parentPort.postMessage({ ready: true, ok: true });
} else if (mode === 'stuck') {
  // One probe stuck in the kernel (timed out: the pool owns it), one queued
  // behind it, one queued and abandoned; then the environment goes away.
  raw.setCallback(onAnswer);
  const status = raw.statSyncTimeout(dead, 7, 1, 200, true);
  check(status === -1, `statSyncTimeout of a dead mount times out (${status})`);
  raw.statAsync(join(dead, 'a'), 7, 2, true);
  raw.statAsync(join(dead, 'b'), 7, 3, true);
  raw.abandon(3);
  check(raw.pending(1) && raw.pending(2), 'the stuck and the queued probes are pending');
  // A symlink into the dead mount, with the off-mount check: moved to its
  // off-mount lane (12), where it is stuck, while its own lane (11) answers.
  // (Where the kernel can check: openat2 with RESOLVE_CACHED, Linux 5.12.)
  const [treeMount, treeMountId] = mountOf(tree);
  if (raw.statBeneath(treeMount, treeMountId, '') === 0) {
    raw.statAsync(linkTo('dead-link', dead), 11, 4, true, treeMount, treeMountId, 12);
    raw.statAsync(tree, 11, 5, true);
    for (const start = Date.now(); !(raw.pendingOffMount(4) && answers.has(5)) && Date.now() - start < 20000; ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    check(raw.pendingOffMount(4), 'a symlink into the dead mount is moved off its mount, and stuck there');
    check(answers.get(5) === 0, "its mount's lane answers meanwhile");
    check(!raw.pendingOffMount(5) && !raw.pendingOffMount(2), 'only the moved probe is pending off its mount');
  }
  raw.ref(); // keeps the worker alive until it is terminated
  parentPort.postMessage({ ready: true, ok: failures === 0, error: problems.join('; ') });
}
