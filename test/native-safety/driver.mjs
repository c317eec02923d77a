// The workload of `npm run test:native-safety`: drives an instrumented copy of
// the addon (built by scripts/test-native-safety.mjs under ASan/UBSan, or plain
// for valgrind memcheck) through the public API in dist/ and through the raw
// binding, on every path the addon has: good paths, error paths, long and
// non-ASCII paths, many concurrent asynchronous probes in several lanes,
// timeouts and abandon(), the mount list and the mount-table watcher, the
// thread-safe callback with ref/unref, explain's scan of /proc and open_tree
// (native/explain/), and environment teardown (workers that end, and workers
// terminated with probes in flight or stuck in the kernel).
//
//   node driver.mjs --root <package copy> [--scale <n>] [--dead <dir>] [--dead-pid <pid>] [--tmpfs <dir>]...
//   node driver.mjs --canary <canary.node>     (the checker's self-test)
//
// It checks what each call returns, prints "driver: ok" as its last line when
// every step ran, and ends by itself (no process.exit) so that Node tears the
// environment down and the addon's cleanup runs before the leak check.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const options = (name) => args.flatMap((value, index) => (args[index - 1] === name ? [value] : []));

const log = (...parts) => console.log('driver:', ...parts);
let failures = 0;
function check(condition, what) {
  if (!condition) {
    failures++;
    console.log(`driver: FAILED: ${what}`);
  }
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- self-test
const canary = option('--canary');
const eacces = option('--eacces');
if (eacces !== undefined) {
  // Run by a user who may not enter the directory above `eacces` (root may
  // enter anything, so the script runs this step as nobody).
  const api = await import(pathToFileURL(join(option('--root'), 'dist/index.js')).href);
  check(api.backend === 'native', 'backend is native');
  for (const options of [undefined, { timeout: 5000 }, { bigint: true }]) {
    try {
      api.diskUsageSync(eacces, options);
      check(false, 'EACCES sync');
    } catch (error) {
      check(error.code === 'EACCES', `EACCES sync (${error.code})`);
    }
  }
  await api.diskUsage(eacces).then(
    () => check(false, 'EACCES async'),
    (error) => check(error.code === 'EACCES', `EACCES async (${error.code})`),
  );
  log(failures === 0 ? 'ok' : `${failures} check(s) failed`);
} else if (canary !== undefined) {
  const bad = createRequire(import.meta.url)(canary);
  bad.leak();
  bad.overflow();
  bad.uninit();
  log('ok');
} else {
  await main();
}

async function main() {
  const root = option('--root');
  const scale = Number(option('--scale') ?? 1);
  const dead = option('--dead');
  const deadPid = option('--dead-pid') === undefined ? undefined : Number(option('--dead-pid'));
  const tmpfs = options('--tmpfs');
  const scratch = option('--scratch') ?? mkdtempSync('/tmp/diskprobe-safety-');
  const isRoot = process.getuid() === 0;

  const api = await import(pathToFileURL(join(root, 'dist/index.js')).href);
  const require = createRequire(join(root, 'package.json'));
  const addonPath = require('node-gyp-build').path(root);
  const raw = require(addonPath); // the same instance the public API uses (require's cache)
  check(api.backend === 'native', `backend is native (${api.backend})`);
  check(addonPath.startsWith(root), `the instrumented addon is the one loaded (${addonPath})`);
  check(readFileSync('/proc/self/maps', 'utf8').includes(addonPath), 'the instrumented addon is mapped');
  log(`addon ${addonPath}, scale ${scale}, dead mount ${dead ?? 'none'}, tmpfs ${tmpfs.length}`);

  const events = [];
  const unsubscribe = api.onMountEvent((event) => events.push(event));

  // A tree of paths to probe: directories, a file, non-ASCII names.
  const tree = join(scratch, 'tree');
  const unicode = join(tree, 'ünïcødé € 😀 名前');
  mkdirSync(unicode, { recursive: true });
  const file = join(tree, 'file');
  writeFileSync(file, 'x');
  const good = ['/', '/tmp', process.cwd(), tree, unicode, file, ...tmpfs];

  // ------------------------------------------------ synchronous, public API
  for (const path of good) {
    for (const bigint of [false, true]) {
      const usage = api.diskUsageSync(path, { bigint });
      check(usage.backend === 'native' && typeof usage.total === (bigint ? 'bigint' : 'number'), `diskUsageSync(${path}) answers`);
      const timed = api.diskUsageSync(path, { bigint, timeout: 5000 });
      check(timed.blockSize === usage.blockSize, `diskUsageSync(${path}, {timeout}) answers`);
    }
  }
  const expectCode = (fn, code, what) => {
    try {
      fn();
      check(false, `${what}: expected ${code}, got success`);
    } catch (error) {
      check(error.code === code, `${what}: expected ${code}, got ${error.code}: ${error.message}`);
    }
  };
  const long = (bytes, tail = '') => {
    let path = tree;
    while (Buffer.byteLength(path + tail) + 2 <= bytes) path += '/.';
    while (Buffer.byteLength(path + tail) < bytes) path += '/';
    return path + tail;
  };
  const errorPaths = [
    ['/nonexistent/diskprobe/x', 'ENOENT'],
    [join(file, 'below'), 'ENOTDIR'],
    [join(tree, 'n'.repeat(300)), 'ENAMETOOLONG'],
    [long(4096), 'ENAMETOOLONG'],
    [long(5000), 'ENAMETOOLONG'],
    [long(70000), 'ENAMETOOLONG'],
    [`/${'é'.repeat(3000)}`, 'ENAMETOOLONG'],
  ];
  for (const [path, code] of errorPaths) {
    expectCode(() => api.diskUsageSync(path), code, `diskUsageSync(${path.slice(0, 40)}…${Buffer.byteLength(path)} bytes)`);
    expectCode(() => api.diskUsageSync(path, { timeout: 5000, bigint: true }), code, `diskUsageSync(${code}, {timeout})`);
  }
  const okLong = long(4095);
  check(api.diskUsageSync(okLong).total > 0, 'a path of exactly 4095 bytes is probed');
  expectCode(() => api.diskUsageSync('/tmp\0/x'), 'ERR_INVALID_ARG_VALUE', 'embedded NUL');
  expectCode(() => api.diskUsageSync(42), 'ERR_INVALID_ARG_TYPE', 'a number as path');
  expectCode(() => api.diskUsageSync('/tmp/\uD800'), 'ERR_INVALID_ARG_VALUE', 'a lone surrogate');

  // ------------------------------------------- the raw binding, sync calls
  // The JS layer validates before the addon sees a path; these reach the
  // addon's own guards with what JS would refuse.
  const rawSync = (path) => raw.statSync(path, true);
  check(rawSync('/tmp\0/x') === 0, 'raw statSync with an embedded NUL stops at the NUL');
  check(rawSync('/tmp/\uD800') === 2, 'raw statSync with a lone surrogate (U+FFFD) is ENOENT');
  check(rawSync('/tmp/\uDC00\uD800\uDFFF') === 2, 'raw statSync with mixed surrogates is ENOENT');
  for (const bad of [undefined, null, 42, {}, Symbol('x'), ['/tmp']]) {
    let threw = false;
    try {
      raw.statSync(bad, true);
    } catch (error) {
      threw = error instanceof TypeError;
    }
    check(threw, `raw statSync(${String(typeof bad)}) throws a TypeError`);
  }
  // Every byte length around the limit, ending in characters of 1 to 4 UTF-8 bytes.
  const notes = [];
  for (const tail of ['', 'é', '€', '😀']) {
    for (let bytes = 4088; bytes <= 4102; bytes++) {
      const path = long(bytes, tail);
      const length = Buffer.byteLength(path);
      const status = rawSync(path);
      check(status === 0 || status === 2 || status === 36, `raw statSync at ${length} bytes answers an errno (${status})`);
      if (length > 4095 && status !== 36) notes.push(`${length}-byte path ending in ${JSON.stringify(tail)}: status ${status}, not ENAMETOOLONG`);
    }
  }
  for (const note of notes) log(`NOTE (contract, not memory): raw statSync of a ${note}`);
  log(`raw ENAMETOOLONG boundary: ${notes.length} paths over 4095 bytes probed as a shorter prefix`);
  if (typeof raw.statBeneath === 'function') {
    // Probes beneath an open mount root: every mount's id, good and bad relative paths.
    const table = readFileSync('/proc/self/mountinfo', 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    const ids = table.map((fields) => [Number(fields[0]), fields[4].replace(/\\040/g, ' ')]);
    const rootId = ids.find(([, mountPoint]) => mountPoint === '/')?.[0] ?? 0;
    let answered = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (const relative of ['', 'tmp', 'nonexistent/x', '../../..', 'tmp/\uD800', 'x/'.repeat(2100), 'etc/passwd/x']) {
        const status = raw.statBeneath('/', rootId, relative);
        check(Number.isInteger(status), `statBeneath('/', ${relative.slice(0, 20)}) answers`);
        if (status === 0) answered++;
      }
    }
    for (const [id, mountPoint] of ids) if (!dead || !mountPoint.startsWith(dead)) raw.statBeneath(mountPoint, id, '');
    raw.statBeneath('/nonexistent', 999999, '');
    raw.statBeneath('/', 123456789, 'tmp');
    raw.statBeneath('/tmp\0/x', rootId, 'a\0b');
    for (const bad of [
      [42, rootId, ''],
      ['/', 'id', ''],
      ['/', rootId, 42],
    ]) {
      try {
        raw.statBeneath(...bad);
      } catch {
        // refused: what matters is that nothing leaks
      }
    }
    log(`statBeneath: ${answered} answered inline`);
  }
  raw.names();
  check(raw.listMounts() === null, 'listMounts() is null on Linux');
  raw.mountTableChanged();
  raw.pending(123456);
  raw.abandon(123456);

  // ------------------------------------------------ asynchronous, public API
  const rounds = Math.max(1, Math.round(3 * scale));
  const perRound = Math.max(50, Math.round(600 * scale));
  let resolved = 0;
  let rejected = 0;
  for (let round = 0; round < rounds; round++) {
    const probes = [];
    for (let i = 0; i < perRound; i++) {
      const pick = i % 10;
      const bigint = i % 3 === 0;
      if (pick < 6) probes.push(api.diskUsage(good[i % good.length], { bigint }));
      else if (pick === 6) probes.push(api.diskUsage(errorPaths[i % errorPaths.length][0]));
      else if (pick === 7) probes.push(api.diskUsage(good[i % good.length], { timeout: Infinity, bigint }));
      else if (pick === 8) probes.push(api.diskUsage(good[i % good.length], { timeout: 1 + (i % 3) }));
      else {
        const controller = new AbortController();
        probes.push(api.diskUsage(good[i % good.length], { signal: controller.signal }));
        if (i % 20 === 9) controller.abort();
        else queueMicrotask(() => controller.abort());
      }
    }
    for (const outcome of await Promise.allSettled(probes)) {
      if (outcome.status === 'fulfilled') resolved++;
      else rejected++;
    }
  }
  check(resolved > 0 && rejected > 0, `async probes: ${resolved} resolved, ${rejected} rejected`);
  log(`async probes: ${resolved} resolved, ${rejected} rejected`);
  const aborted = new AbortController();
  aborted.abort();
  await api.diskUsage('/', { signal: aborted.signal }).then(
    () => check(false, 'an aborted signal rejects'),
    (error) => check(error.name === 'AbortError', 'an aborted signal rejects with AbortError'),
  );

  // ------------------------------------------------ mounts and the watcher
  // listMounts() probes every mount df would list: skipped when another
  // program's FUSE or network mount may never answer (a thread stuck on it
  // would keep the process, and the leak check at its exit, from ending).
  const all = await api.listMounts({ all: true });
  const listed = args.includes('--no-probe-all') ? all : await api.listMounts();
  check(listed.length > 0 && all.length >= listed.length, 'listMounts() lists');
  if (isRoot) {
    const extra = mkdtempSync(join(scratch, 'watched-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', extra]).status === 0;
    if (mounted) {
      await sleep(50);
      await api.diskUsage(extra);
      api.diskUsageSync('/tmp');
      await api.listMounts({ all: true });
      spawnSync('umount', ['-l', extra]);
      rmSync(extra, { recursive: true, force: true });
      await sleep(50);
      await api.listMounts({ all: true });
      api.diskUsageSync('/tmp');
      const changes = events.filter((event) => event.type === 'mounts-changed');
      check(changes.length > 0, 'the mount watcher saw a tmpfs come and go');
    }
  }

  // ------------------------------------------------ a dead mount
  if (dead !== undefined) {
    const started = performance.now();
    await api.diskUsage(join(dead, 'x'), { timeout: 300 }).then(
      () => check(false, 'a dead mount times out'),
      (error) => check(error.code === 'ETIMEDOUT', `a dead mount times out (${error.code})`),
    );
    check(performance.now() - started < 5000, 'the timeout is kept');
    expectCode(() => api.diskUsageSync(dead, { timeout: 200 }), 'ETIMEDOUT', 'diskUsageSync of a stuck mount fails fast');
    await api.diskUsage(dead, { timeout: 200 }).catch((error) => check(error.code === 'ETIMEDOUT', 'diskUsage of a stuck mount fails fast'));
    check(api.stuckMounts().includes(dead), 'stuckMounts() names the dead mount');
    check(
      events.some((event) => event.type === 'stuck'),
      'a stuck event was sent',
    );
  }

  // ------------------------------------------------ explain: the /proc scan and open_tree
  if (typeof raw.openFilesStart === 'function') {
    // A deleted file this process holds, on a tmpfs lane where there is one (a walk of / under valgrind would take minutes).
    const on = tmpfs[0] ?? scratch;
    const held = join(on, 'held.bin');
    writeFileSync(held, Buffer.alloc(1 << 20, 3));
    const fd = openSync(held, 'r');
    unlinkSync(held);
    if (tmpfs.length > 0) {
      const why = await api.explainUsage(on, { timeout: 60000 });
      check(
        why.deletedOpen?.files.some((file) => file.path === held && file.bytes === 1 << 20),
        'explainUsage finds the deleted file this process holds',
      );
    }
    // Scans at once, some released before they are done, some read after.
    const ids = [];
    for (let i = 0; i < 6 * scale; i++) ids.push(raw.openFilesStart(0, 0, () => {}));
    for (const id of ids.slice(0, 3)) raw.openFilesRelease(id);
    await sleep(500);
    for (const id of ids) {
      raw.openFilesBusy(id);
      raw.openFilesResult(id);
      raw.openFilesRelease(id);
    }
    check(raw.openFilesResult(987654) === null && raw.openFilesBusy(987654) === '', 'an explain scan id never given answers nothing');
    for (const bad of [['x', 0, () => {}], [0, 0, 'not a function'], []]) {
      try {
        raw.openFilesStart(...bad);
      } catch {
        // refused: what matters is that nothing leaks
      }
    }
    for (const path of ['/', on, '/nonexistent', '', 42]) {
      try {
        const clone = raw.openTreeClone(path);
        if (clone >= 0) closeSync(clone);
      } catch {
        // a number is no path
      }
    }
    closeSync(fd);
    log(`explain: ${ids.length} scans of /proc, ${tmpfs.length > 0 ? 'explainUsage on a tmpfs lane, ' : ''}open_tree clones`);
  }

  // ------------------------------------------------ workers: own instances, raw binding, teardown
  const workerUrl = new URL('./worker.mjs', import.meta.url);
  const runWorker = (data, terminateAfterMs) =>
    new Promise((resolve) => {
      const worker = new Worker(workerUrl, { workerData: { addonPath, scale, dead, tree, ...data } });
      let report = { ok: false };
      worker.on('message', (message) => {
        report = message;
        if (message.ready && terminateAfterMs !== undefined) setTimeout(() => worker.terminate(), terminateAfterMs);
      });
      worker.on('error', (error) => {
        report = { ok: false, error: String(error?.stack ?? error) };
      });
      worker.on('exit', (code) => resolve({ ...report, code }));
    });
  const finished = await runWorker({ mode: 'finish' });
  check(finished.ok, `a worker drives the raw binding and ends (${finished.error ?? finished.failures ?? ''})`);
  const parallel = await Promise.all([runWorker({ mode: 'finish' }), runWorker({ mode: 'finish' })]);
  check(
    parallel.every((report) => report.ok),
    `two workers at once (${parallel.map((report) => report.error ?? report.failures ?? '').join(' | ')})`,
  );
  for (const delay of [0, 5, 40]) {
    const terminated = await runWorker({ mode: 'terminate' }, delay);
    check(terminated.code === 1 || terminated.ok, `a worker terminated ${delay} ms into its probes`);
  }
  if (dead !== undefined) {
    const stuck = await runWorker({ mode: 'stuck' }, 100);
    check(stuck.ready === true && stuck.ok === true, `a worker with a probe stuck in the kernel is terminated (${stuck.error ?? ''})`);
  }

  // ------------------------------------------------ the dead mount answers again
  if (dead !== undefined && deadPid !== undefined) {
    process.kill(deadPid, 'SIGKILL'); // every call stuck on it returns (ENOTCONN)
    const until = performance.now() + 10000;
    while (!events.some((event) => event.type === 'recovered') && performance.now() < until) await sleep(20);
    check(
      events.some((event) => event.type === 'recovered'),
      'the dead mount is reported as recovered',
    );
    check(!api.stuckMounts().includes(dead), 'stuckMounts() no longer names it');
    await api.diskUsage(dead, { timeout: 500 }).catch(() => {});
  }
  unsubscribe();

  // Give the threads of terminated workers time to see their pools closed.
  await sleep(300);

  log(failures === 0 ? 'ok' : `${failures} check(s) failed`);
  if (failures) process.exitCode = 1;
}
