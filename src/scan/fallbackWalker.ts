// The fallback walk's helper process: walks with fs.opendir and lstat
// (bigint) when no addon loads, so that a directory on a dead mount holds
// this process's libuv threads, never the caller's. Same rules as the
// addon's walk (native/walk/), through the same tree (fallbackTree.ts).
//
// Talks to its parent (fallbackWalk.ts) over the IPC channel, with
// 'advanced' serialization so typed arrays and Buffers cross as they are:
//   in:  { start: { path, options } }, { snapshot: id, maxUnfinished }, { stop: true }
//   out: { progress: [entries, allocated, directories], busy }, { done: true }, { snapshot: id, data }
// It acts only when it is the process's main module: importing it does nothing.
import type { Dir, Dirent } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type NativeScanError, NodeFlag } from '../probe/nativeBinding.js';
import { type FallbackFile, FallbackTree } from './fallbackTree.js';
import type { WalkOptions } from './walk.js';

/** The system calls its errors name, by index (ScanTree.syscalls). */
export const FALLBACK_SYSCALLS = ['opendir', 'readdir', 'lstat'] as const;
const [OPENDIR, READDIR, LSTAT] = [0, 1, 2];

/** lstat calls in flight at once, per directory being listed. */
const STATS_IN_FLIGHT = 32;
const PROGRESS_MS = 100;

interface Mount {
  readonly dev: bigint | undefined;
  readonly stuck: boolean;
}

type Stat = Awaited<ReturnType<typeof lstat>> & { dev: bigint; ino: bigint; nlink: bigint; blocks: bigint; size: bigint };

interface Work {
  readonly node: number;
  readonly path: Buffer;
  /** A mount point (or the start): its lstat is part of the work. */
  readonly statFirst: boolean;
}

function errnoOf(error: unknown): number {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return (constants.errno as Record<string, number | undefined>)[code] ?? constants.errno.EIO;
}

class FallbackWalker {
  readonly tree: FallbackTree;
  private readonly queue: Work[] = [];
  private readonly mounts = new Map<string, Mount>();
  private readonly busy = new Map<number, Buffer>();
  private active = 0;
  private rootDev = 0n;
  private allocatedSeen = 0n;
  private listed = 0;
  done = false;
  stopped = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly root: Buffer,
    private readonly options: WalkOptions,
  ) {
    this.tree = new FallbackTree(root, options.maxErrors);
    for (const [path, major, minor, stuck] of options.mounts) {
      // Linux's st_dev of major:minor (glibc's makedev), to compare with lstat's.
      const dev = Number.isNaN(major)
        ? undefined
        : (BigInt(major & 0xfff) << 8n) | (BigInt(major >>> 12) << 32n) | BigInt(minor & 0xff) | (BigInt(minor >>> 8) << 12n);
      this.mounts.set(path, { dev: process.platform === 'linux' ? dev : undefined, stuck });
    }
  }

  progress(): { progress: [number, number, number]; busy: number[] } {
    return { progress: [this.tree.entriesSeen, Number(this.allocatedSeen), this.listed], busy: [...this.busy.keys()] };
  }

  inProgress(): NativeScanError[] {
    return [...this.busy].map(([dir, name]) => ({ dir, name, errno: 0, syscall: 0 }));
  }

  async run(threads: number): Promise<void> {
    this.queue.push({ node: 0, path: this.root, statFirst: true });
    await Promise.all(Array.from({ length: threads }, () => this.worker()));
    if (!this.stopped) this.done = true;
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.wake?.();
  }

  private async worker(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const work = this.queue.pop();
      if (work === undefined) {
        if (this.active === 0) {
          this.wake?.();
          return;
        }
        await new Promise<void>((resolve) => {
          const previous = this.wake;
          this.wake = () => {
            previous?.();
            resolve();
          };
        });
        continue;
      }
      this.active++;
      this.tree.flags[work.node]! |= NodeFlag.started;
      this.busy.set(work.node, work.statFirst ? this.tree.names[work.node]! : Buffer.alloc(0));
      try {
        await this.visit(work);
      } finally {
        this.busy.delete(work.node);
        this.active--;
        const wake = this.wake;
        this.wake = undefined;
        wake?.();
      }
    }
  }

  /** Takes directory `node`'s lstat: false when it is not to be walked. */
  private claim(node: number, stat: Stat): boolean {
    const { tree } = this;
    if (node === 0) this.rootDev = stat.dev;
    if (!stat.isDirectory()) {
      tree.flags[node]! |= NodeFlag.notDirectory | NodeFlag.listed;
      tree.own[node * 3] = stat.blocks * 512n;
      tree.own[node * 3 + 1] = stat.size;
      tree.own[node * 3 + 2] = 1n;
      return false;
    }
    if (this.options.oneFileSystem && stat.dev !== this.rootDev) {
      tree.flags[node]! |= NodeFlag.otherDevice | NodeFlag.listed;
      return false;
    }
    const key = `${stat.dev}:${stat.ino}`;
    const claimer = tree.seenDirectories.get(key);
    if (claimer !== undefined) {
      tree.flags[node]! |= NodeFlag.duplicate | NodeFlag.listed;
      tree.duplicates.push([node, claimer]);
      return false;
    }
    tree.seenDirectories.set(key, node);
    tree.own[node * 3] = stat.blocks * 512n;
    tree.own[node * 3 + 1] = stat.size;
    return true;
  }

  private async visit(work: Work): Promise<void> {
    const { tree } = this;
    const node = work.node;
    if (work.statFirst) {
      let stat: Stat;
      try {
        stat = (await lstat(work.path, { bigint: true })) as Stat;
      } catch (error) {
        tree.recordError(node === 0 ? 0 : tree.parent[node]!, node === 0 ? Buffer.alloc(0) : tree.names[node]!, errnoOf(error), LSTAT);
        tree.flags[node]! |= NodeFlag.listed | NodeFlag.unreadable;
        this.listed++;
        return;
      }
      tree.entriesSeen++;
      if (!this.claim(node, stat)) return;
    }
    let dir: Dir;
    try {
      dir = await opendir(work.path, { encoding: 'buffer' as BufferEncoding, bufferSize: 1024 });
    } catch (error) {
      tree.recordError(node, Buffer.alloc(0), errnoOf(error), OPENDIR);
      tree.flags[node]! |= NodeFlag.listed | NodeFlag.unreadable;
      this.listed++;
      return;
    }
    await this.list(node, work.path, dir);
  }

  private async list(node: number, path: Buffer, dir: Dir): Promise<void> {
    const { tree, options } = this;
    const prefix = path[path.length - 1] === 0x2f ? path : Buffer.concat([path, Buffer.from('/')]);
    const pathText = prefix.toString('utf8');
    const children: Array<{ name: Buffer; entryIndex: number; stat?: Stat; decision: 'stat' | 'defer' | 'skip'; stuck?: boolean }> = [];
    let entries = 0;
    let ownAllocated = 0n;
    let ownApparent = 0n;
    let ownFiles = 0n;
    const kept: FallbackFile[] = [];
    const pending: Array<Promise<void>> = [];
    const statEntry = async (name: Buffer, at: number): Promise<void> => {
      let stat: Stat;
      try {
        stat = (await lstat(Buffer.concat([prefix, name]), { bigint: true })) as Stat;
      } catch (error) {
        tree.recordError(node, name, errnoOf(error), LSTAT);
        return;
      }
      tree.entriesSeen++;
      const allocated = stat.blocks * 512n;
      this.allocatedSeen += allocated;
      if (stat.isDirectory()) {
        children.push({ name, entryIndex: at, stat, decision: 'stat' });
        return;
      }
      const linked = stat.nlink > 1n;
      if (linked) tree.recordLink(`${stat.dev}:${stat.ino}`, node, at, allocated, stat.size);
      else {
        ownAllocated += allocated;
        ownApparent += stat.size;
        ownFiles++;
      }
      const file = { name, dir: node, entryIndex: at, allocated, apparent: stat.size, link: linked ? `${stat.dev}:${stat.ino}` : undefined };
      if (options.keepFiles) kept.push(file);
      else if (options.topFiles > 0) keepLargest(kept, options.topFiles, file);
    };
    let listError: unknown;
    try {
      for await (const entry of dir as AsyncIterable<Dirent<Buffer>>) {
        if (this.stopped) break;
        const name = entry.name as unknown as Buffer;
        const at = entries++;
        const mount = this.mounts.get(pathText + name.toString('utf8'));
        if (mount !== undefined) {
          const skip = mount.stuck || (options.oneFileSystem && mount.dev !== undefined && mount.dev !== this.rootDev);
          children.push({ name, entryIndex: at, decision: skip ? 'skip' : 'defer', stuck: mount.stuck });
          continue;
        }
        pending.push(statEntry(name, at));
        if (pending.length >= STATS_IN_FLIGHT) await Promise.all(pending.splice(0));
      }
    } catch (error) {
      listError = error;
    }
    await Promise.all(pending);
    if (listError !== undefined) {
      tree.recordError(node, Buffer.alloc(0), errnoOf(listError), READDIR);
      tree.flags[node]! |= NodeFlag.unreadable;
    }
    tree.entries[node] = entries;
    if (!options.keepFiles && options.topFiles > 0) pruneLargest(kept, options.topFiles);
    for (const file of kept) tree.files.push(file);
    tree.own[node * 3] = tree.own[node * 3]! + ownAllocated;
    tree.own[node * 3 + 1] = tree.own[node * 3 + 1]! + ownApparent;
    tree.own[node * 3 + 2] = tree.own[node * 3 + 2]! + ownFiles;
    // Listing order, as the addon creates them: stats came back in any order.
    children.sort((a, b) => a.entryIndex - b.entryIndex);
    const first = tree.addChildren(node, children);
    children.forEach((child, i) => {
      const created = first + i;
      const childPath = Buffer.concat([prefix, child.name]);
      if (child.decision === 'skip') tree.flags[created] = (child.stuck ? NodeFlag.skipped : NodeFlag.otherDevice) | NodeFlag.listed;
      else if (child.decision === 'defer') {
        if (!this.stopped) this.queue.push({ node: created, path: childPath, statFirst: true });
      } else if (this.claim(created, child.stat!) && !this.stopped) this.queue.push({ node: created, path: childPath, statFirst: false });
    });
    if (!this.stopped) tree.flags[node]! |= NodeFlag.listed;
    this.listed++;
    try {
      await dir.close();
    } catch {
      // closed by the iterator already
    }
  }
}

/**
 * Keeps, of one directory's files, those among its `limit` largest by
 * allocated bytes or by apparent size, equal sizes in name order: all that a
 * ranking by either can take from it, whatever order the lstat calls ended in.
 */
function pruneLargest(files: FallbackFile[], limit: number): void {
  if (files.length <= limit) return;
  const keep = new Set<FallbackFile>();
  for (const size of ['allocated', 'apparent'] as const) {
    const ranked = [...files].sort((a, b) => (a[size] !== b[size] ? (a[size] > b[size] ? -1 : 1) : Buffer.compare(a.name, b.name)));
    for (const file of ranked.slice(0, limit)) keep.add(file);
  }
  files.splice(0, files.length, ...files.filter((file) => keep.has(file)));
}

/** Prunes once it holds four times the limit: a few sorts a directory, not one a file. */
function keepLargest(files: FallbackFile[], limit: number, file: FallbackFile): void {
  files.push(file);
  if (files.length >= 4 * limit) pruneLargest(files, limit);
}

function isMain(): boolean {
  const fold = (path: string): string => (process.platform === 'win32' ? resolve(path).toLowerCase() : resolve(path));
  return process.argv[1] !== undefined && fold(process.argv[1]) === fold(fileURLToPath(import.meta.url));
}

if (isMain() && process.send !== undefined) {
  let walker: FallbackWalker | undefined;
  let reporter: NodeJS.Timeout | undefined;
  process.on('message', (message: { start?: { path: string; options: WalkOptions }; snapshot?: number; maxUnfinished?: number; stop?: boolean }) => {
    if (message.start !== undefined) {
      const { path, options } = message.start;
      walker = new FallbackWalker(Buffer.from(path, 'utf8'), options);
      const current = walker;
      reporter = setInterval(() => process.send?.(current.progress()), PROGRESS_MS);
      void current.run(options.threads ?? 4).then(() => {
        clearInterval(reporter);
        process.send?.(current.progress());
        if (current.done) process.send?.({ done: true });
      });
    } else if (message.snapshot !== undefined && walker !== undefined) {
      const data = walker.tree.snapshot(walker.done, walker.stopped, message.maxUnfinished ?? 50, walker.inProgress());
      process.send?.({ snapshot: message.snapshot, data });
    } else if (message.stop === true) {
      walker?.stop();
    }
  });
  // The parent is gone: nothing to walk for.
  process.on('disconnect', () => process.exit(0));
}
