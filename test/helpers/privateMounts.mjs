// A mount namespace of its own, private propagation, for each process that
// mounts in the tests and in the scripts that mount (issue 27): the vitest
// pool starts every test file's process in one (test/privateMountsPool.ts),
// and a script runs itself again in one (reExecInPrivateMounts). What such a
// process mounts is seen by no process outside, and goes with the namespace
// when its last process ends: an interrupted run leaves no mount behind, and
// two runs on one machine never see each other's mounts.
//
// unshare(1) makes the namespace and execs setpriv(1), which asks for SIGKILL
// when the parent dies (PR_SET_PDEATHSIG) and execs node: so the process keeps
// the pid and the IPC channel its parent gave it, and dies with that parent
// even when the parent is SIGKILLed and can clean nothing up. The FUSE
// fixture's daemon asks the same of the test process that starts it
// (fusefix.c), so no daemon, and no call stuck on its mount, outlives the run.
import { spawn, spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';

/** The variable that tells a test process why the vitest pool gave it no mount namespace of its own. */
export const NO_PRIVATE_MOUNTS = 'DISKPROBE_TEST_NO_PRIVATE_MOUNTS';

const PREFIX = ['unshare', '--mount', '--propagation', 'private', 'setpriv', '--pdeathsig', 'KILL', '--'];

/** `argv` as a command line that runs it in a mount namespace of its own (see above). */
export function inPrivateMounts(argv) {
  return [...PREFIX, ...argv];
}

/** privateMountsSkipReason's answer, once found. */
let found;

/**
 * Why this process cannot start others in a mount namespace of their own, or
 * undefined when it can: found by trying it once (`true` in a namespace), so
 * that a container without CAP_SYS_ADMIN answers as truly as a missing tool.
 */
export function privateMountsSkipReason() {
  found ??= { reason: findReason() };
  return found.reason;
}

function findReason() {
  if (process.platform !== 'linux') return `mount namespaces are Linux's; this is ${process.platform}`;
  if (process.getuid?.() !== 0) return 'making a mount namespace needs root';
  const [command, ...args] = inPrivateMounts(['true']);
  const tried = spawnSync(command, args, { encoding: 'utf8', timeout: 10_000 });
  if (tried.status === 0) return undefined;
  if (tried.error?.code === 'ENOENT') return 'unshare(1) (util-linux) is not installed';
  const said = (tried.stderr ?? '').trim() || tried.error?.message || `status ${tried.status ?? tried.signal}`;
  return `\`${PREFIX.join(' ')} true\` failed: ${said} (setpriv(1) missing, or no CAP_SYS_ADMIN?)`;
}

/**
 * Whether this process is in another mount namespace than its parent's: the
 * one the vitest pool or reExecInPrivateMounts made for it. False where the
 * parent's namespace cannot be read (not Linux, not root).
 */
export function ownsMountNamespace() {
  try {
    return readlinkSync('/proc/self/ns/mnt') !== readlinkSync(`/proc/${process.ppid}/ns/mnt`);
  } catch {
    return false;
  }
}

/** Whether setpriv(1) is here, once found. */
let setprivFound;

/**
 * `argv` as a command line that is SIGKILLed when the process that starts it
 * dies (`setpriv --pdeathsig KILL`), or `argv` itself where setpriv is not
 * there. For the servers a test file starts that would live on when the test
 * process is SIGKILLed (an HTTP server, Prometheus): one of them would keep
 * the file's namespace, and the mounts in it, alive for nothing.
 */
export function killedWithParent(argv) {
  setprivFound ??= process.platform === 'linux' && spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;
  return setprivFound ? ['setpriv', '--pdeathsig', 'KILL', '--', ...argv] : [...argv];
}

const RE_RUN_MARK = 'DISKPROBE_PRIVATE_MOUNTS_RERUN';
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/**
 * For a script that mounts: runs this script again, with the same arguments,
 * in a mount namespace of its own, and exits with the re-run's status (in
 * this process the promise never settles). In the re-run it resolves at once
 * with undefined; where no namespace can be made, with the reason, and the
 * script must mount nothing (it says so and goes on without those steps).
 * `label` names the script in what is printed.
 */
export function reExecInPrivateMounts(label) {
  if (process.env[RE_RUN_MARK] === '1') {
    return Promise.resolve(ownsMountNamespace() ? undefined : 'its re-run is not in a mount namespace of its own');
  }
  const reason = privateMountsSkipReason();
  if (reason) return Promise.resolve(reason);
  const [command, ...args] = inPrivateMounts([process.execPath, ...process.execArgv, ...process.argv.slice(1)]);
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, [RE_RUN_MARK]: '1' } });
  // Ctrl-C signals the whole process group, the re-run included; a signal
  // sent to this process alone (kill PID, a CI timeout) is passed on, so the
  // re-run cleans up. Either way this process waits for it to end.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(`${label}: could not start its re-run in a private mount namespace (${command}): ${error.message}`);
    process.exit(2);
  });
  child.on('exit', (status, signal) => process.exit(status ?? 128 + (SIGNAL_NUMBERS[signal] ?? 15)));
  return new Promise(() => {});
}
