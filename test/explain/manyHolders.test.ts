// explainUsage() where hundreds of processes hold the same deleted files:
// the native scan shares the processes out among its threads (one per 128
// processes, up to the cores), so a file met by several threads must come
// out once, with every holder once. A python3 parent holds one deleted file
// open and one only mapped, then forks children that inherit both.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, mountTmpfs, rootSkipReason, type TestMount } from '../helpers/system.js';
import { type ExplainUsage, explainUsage } from '../lib.js';
import { pythonSkipReason } from './holders.js';

const CHILDREN = 400;
const MiB = 1024 * 1024;

const FORKER_PY = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
opened, mapped, children = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(opened, os.O_RDWR)
os.unlink(opened)
# libc's mmap, not Python's, which keeps an fd of its own
mapping = os.open(mapped, os.O_RDWR)
address = libc.mmap(None, os.fstat(mapping).st_size, 1, 1, mapping, 0)  # PROT_READ, MAP_SHARED
assert address not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
os.close(mapping)
os.unlink(mapped)
pids = []
for _ in range(children):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        sys.stdin.close()
        time.sleep(3600)
        os._exit(0)
    pids.append(pid)
print(' '.join(map(str, [os.getpid(), fd] + pids)), flush=True)
sys.stdin.read()
for pid in pids:
    os.kill(pid, 9)
for pid in pids:
    os.waitpid(pid, 0)
`;

const skipReason =
  rootSkipReason ??
  pythonSkipReason ??
  (os.availableParallelism() < 2 ? 'one core: the scan runs on one thread, and there is no merge of threads to test' : undefined);

describe.skipIf(announceSkip('explainUsage with 400 holders of one file', skipReason))('explainUsage with hundreds of holders', () => {
  let mount: TestMount;
  let forker: ReturnType<typeof spawn>;
  let pids: number[];
  let fd: number;
  let explained: ExplainUsage<bigint>;
  beforeAll(async () => {
    mount = mountTmpfs('size=64m');
    const opened = join(mount.dir, 'opened.log');
    const mapped = join(mount.dir, 'mapped.db');
    writeFileSync(opened, Buffer.alloc(3 * MiB, 1));
    writeFileSync(mapped, Buffer.alloc(2 * MiB, 2));
    forker = spawn('python3', ['-c', FORKER_PY, opened, mapped, String(CHILDREN)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      forker.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      forker.once('exit', (code) => reject(new Error(`the forker exited (${code}) before its children were ready`)));
    });
    [pids, fd] = ((numbers) => [numbers.filter((_, i) => i !== 1), numbers[1]!])(line.trim().split(' ').map(Number));
    explained = await explainUsage(mount.dir, { bigint: true });
  }, 60_000);
  afterAll(async () => {
    if (forker?.exitCode === null) {
      const gone = new Promise((resolve) => forker.once('exit', resolve));
      forker.stdin!.end();
      await gone;
    }
    mount?.cleanup();
  }, 60_000);

  it('lists each file once, with each of the 401 holders once, by its fd where it has one', () => {
    const files = explained.deletedOpen!.files;
    expect(files.map((file) => [file.path, file.heldBy, file.bytes])).toEqual([
      [join(mount.dir, 'opened.log'), 'open', BigInt(3 * MiB)],
      [join(mount.dir, 'mapped.db'), 'mapped', BigInt(2 * MiB)],
    ]);
    const [opened, mapped] = files;
    expect(opened!.holders.map((holder) => holder.pid)).toEqual([...pids].sort((a, b) => a - b));
    expect(new Set(opened!.holders.map((holder) => holder.fd))).toEqual(new Set([fd]));
    expect(mapped!.holders.map((holder) => holder.pid)).toEqual([...pids].sort((a, b) => a - b));
    expect(mapped!.holders.every((holder) => holder.fd === null)).toBe(true);
    expect(explained.deletedOpen!.bytes).toBe(BigInt(5 * MiB));
    expect(explained.unseen).toEqual([]);
  });
});
