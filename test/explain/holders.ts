// Processes that hold files, for explainUsage's tests: a python3 child runs
// a list of steps (write a file and hold it deleted, by an fd or only by a
// memory mapping; an O_TMPFILE file; open another holder's deleted file
// through /proc; a file with a second name left; an O_PATH fd; a thread
// stuck on a mount), prints "ready" and what it holds, as its own fstat saw
// it, then waits. Each child dies with the test process (PR_SET_PDEATHSIG,
// and EOF on its stdin); stopHolders SIGKILLs them and waits until they are
// gone, so that their file systems can be unmounted.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

import { has } from '../helpers/system.js';

type Step =
  | { readonly kind: 'open' | 'mapped'; readonly path: string; readonly bytes: number }
  /** Opens `path`, another holder's fd (/proc/PID/fd/N): its deleted file, held by two processes. */
  | { readonly kind: 'reopen'; readonly path: string }
  /** An O_TMPFILE file in the directory `path`. */
  | { readonly kind: 'tmpfile'; readonly path: string; readonly bytes: number }
  /** Held open, with one name unlinked and `link` left. */
  | { readonly kind: 'linked'; readonly path: string; readonly link: string; readonly bytes: number }
  /** An O_PATH fd of `path`, which asks its file system nothing. */
  | { readonly kind: 'path'; readonly path: string }
  /** A thread listing `path`, left waiting if its file system never answers. */
  | { readonly kind: 'stuck'; readonly path: string };

/** A file as its holder saw it (fstat after the unlink): fd null where only a mapping holds it. */
interface HeldFile {
  readonly kind: Step['kind'];
  readonly path: string;
  readonly pid: number;
  readonly fd: number | null;
  readonly inode: number;
  /** Bytes: st_blocks × 512. */
  readonly bytes: number;
  /** Bytes: st_size. */
  readonly size: number;
  readonly links: number;
}

export interface Holder {
  readonly pid: number;
  readonly files: readonly HeldFile[];
}

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export const pythonSkipReason: string | undefined =
  existsSync('/usr/bin/python3') || has('python3') ? undefined : 'python3 is missing: it plays the processes that hold files';

const HOLDER_PY = `
import ctypes, json, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: never outlive the test process
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
CHUNK = b'\\xa5' * (1 << 20)

def fill(fd, size):
    left = size
    while left > 0:
        left -= os.write(fd, CHUNK[:min(left, len(CHUNK))])
    os.fsync(fd)

def made(path, size):
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
    fill(fd, size)
    return fd

def seen(kind, path, fd):
    st = os.fstat(fd)
    return {'kind': kind, 'path': path, 'pid': os.getpid(), 'fd': fd, 'inode': st.st_ino, 'bytes': st.st_blocks * 512, 'size': st.st_size, 'links': st.st_nlink}

def hold(steps, found):
    for step in steps:
        kind, path = step['kind'], step['path']
        if kind == 'open':
            fd = made(path, step['bytes'])
            os.unlink(path)
            found.append(seen(kind, path, fd))
        elif kind == 'mapped':
            # Not python's mmap module: it keeps a dup of the fd, and the file would be held open too.
            fd = made(path, step['bytes'])
            if libc.mmap(None, step['bytes'], 1, 1, fd, 0) in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), 'mmap')
            os.unlink(path)
            entry = seen(kind, path, fd)
            os.close(fd)
            found.append(dict(entry, fd=None))
        elif kind == 'tmpfile':
            fd = os.open(path, os.O_TMPFILE | os.O_RDWR, 0o600)
            fill(fd, step['bytes'])
            found.append(seen(kind, path, fd))
        elif kind == 'linked':
            fd = made(path, step['bytes'])
            os.link(path, step['link'])
            os.unlink(path)
            found.append(seen(kind, path, fd))
        elif kind == 'reopen':
            found.append(seen(kind, path, os.open(path, os.O_RDONLY)))
        elif kind == 'path':
            fd = os.open(path, os.O_PATH)
            found.append({'kind': kind, 'path': path, 'pid': os.getpid(), 'fd': fd, 'inode': 0, 'bytes': 0, 'size': 0, 'links': 0})
        elif kind == 'stuck':
            threading.Thread(target=os.listdir, args=(path,), daemon=True).start()

def leader_gone():
    stat = open('/proc/%d/stat' % os.getpid()).read()
    return stat[stat.rindex(')') + 2] == 'Z'

def main(leader_exits):
    libc.prctl(1, 9)  # per thread: this one may outlive the leader
    found = []
    hold(json.loads(sys.argv[1]), found)
    while leader_exits and not leader_gone():
        time.sleep(0.01)
    print('ready ' + json.dumps({'pid': os.getpid(), 'files': found}), flush=True)
    sys.stdin.buffer.read()  # until the test closes it, or dies
    os._exit(0)

if sys.argv[2] == 'leader-exits':
    # The fds stay with the thread group; /proc/<pid>/fd of a zombie leader lists none of them.
    threading.Thread(target=main, args=(True,)).start()
    libc.pthread_exit(None)
main(False)
`;

/** Live holders, by pid. */
const live = new Set<number>();

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

process.on('exit', killAll);

/** Whether `pid` still runs: not gone, and not a zombie waiting to be reaped (a zombie leader whose threads live on runs). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z' || readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}

interface HolderOptions {
  /** Run as uid and gid 65534, with no groups. */
  readonly asNobody?: boolean;
  /** Run in a mount namespace of its own (a copy of the test's): its fds name mounts the test's mountinfo does not list. */
  readonly ownMountNamespace?: boolean;
  /** Hold everything from a second thread, the main one gone (pthread_exit): a zombie leader whose threads live on. */
  readonly leaderExits?: boolean;
}

/**
 * Starts a holder running `steps` and resolves once it is ready. Rejects
 * with its stderr if it exits first or is not ready within `timeoutMs`.
 * setpriv and unshare exec python3: the pid is the holder's.
 */
export function startHolder(steps: readonly Step[], options: HolderOptions = {}, timeoutMs = 15_000): Promise<Holder> {
  const args = [PYTHON, '-c', HOLDER_PY, JSON.stringify(steps), options.leaderExits ? 'leader-exits' : 'leader-stays'];
  const [command, ...rest] = [
    ...(options.ownMountNamespace ? ['unshare', '--mount', '--propagation', 'private'] : []),
    ...(options.asNobody ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []),
    ...args,
  ];
  const child = spawn(command!, rest, { stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid !== undefined) live.add(child.pid);
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`holder ${JSON.stringify(steps.map((step) => step.kind))} ${why}${stderr ? `: ${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`was not ready within ${timeoutMs} ms`), timeoutMs);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = /^ready (.*)\n/m.exec(stdout)?.[1];
      if (line === undefined) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as Holder);
    });
    child.on('error', (error) => fail(`could not start (${error.message})`));
    child.on('exit', (code, signal) => fail(`exited before it was ready (${signal ?? `status ${code}`})`));
  });
}

/**
 * SIGKILLs every holder at once (before it returns: a caller may then free
 * what one is stuck on), and resolves once all of them are gone.
 */
export function stopHolders(timeoutMs = 5000): Promise<void> {
  const pids = [...live];
  killAll();
  live.clear();
  const until = performance.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      const left = pids.filter(alive);
      if (left.length === 0) resolve();
      else if (performance.now() > until) reject(new Error(`holders still alive after SIGKILL: ${left.join(', ')}`));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

/** /proc/<pid>/comm: the command explainUsage names a holder by. */
export function commandOf(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, 'utf8').trimEnd();
}
