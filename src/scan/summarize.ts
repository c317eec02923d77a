// One answer from a walk's tree: the totals of a directory in it, its
// children (its largest subtrees) to a depth, the directories holding the
// most and the largest files below it, and what could not be read. Reads
// only the nodes it reports and ranks the rest from the typed arrays.
import { errnoError } from '../probe/errors.js';
import { NodeFlag } from '../probe/nativeBinding.js';
import type { ScanTree } from './scanTree.js';
import type { DirectoryEntry, DirectoryHoldingMost, DirectoryUsage, LargestFile, WalkError } from './types.js';

export interface SummaryOptions {
  readonly depth: number;
  readonly top: number;
  readonly apparent: boolean;
  readonly bigint: boolean;
  /** Errors and unfinished directories named at most. */
  readonly listed: number;
  /** Milliseconds since the walk ended (0: made for this call). */
  readonly ageMs: number;
}

type Count = number | bigint;

/**
 * Keeps the `limit` largest of what is offered, by `size`, sorted largest
 * first by sorted(). Equal sizes are ordered by path, so that the answer does
 * not depend on the order the walk's threads finished listings in; the path
 * (`item()`) is made only for what makes the cut.
 */
class Largest<T extends { readonly path: string }> {
  private readonly items: Array<{ size: bigint; item: T }> = [];
  constructor(private readonly limit: number) {}
  offer(size: bigint, item: () => T): void {
    if (this.limit === 0) return;
    const full = this.items.length === this.limit;
    if (full && size < this.items[this.items.length - 1]!.size) return;
    const entry = { size, item: item() };
    let at = this.items.length;
    while (at > 0 && Largest.before(entry, this.items[at - 1]!)) at--;
    if (full && at === this.items.length) return;
    this.items.splice(at, 0, entry);
    if (this.items.length > this.limit) this.items.pop();
  }
  sorted(): T[] {
    return this.items.map((entry) => entry.item);
  }
  private static before(a: { size: bigint; item: { path: string } }, b: { size: bigint; item: { path: string } }): boolean {
    return a.size > b.size || (a.size === b.size && a.item.path < b.item.path);
  }
}

function count(value: bigint, bigint: boolean): Count {
  return bigint ? value : Number(value);
}

function walkError(tree: ScanTree, dir: number, name: Buffer, errno: number, syscall: number): WalkError {
  const path = tree.entryPath(dir, name);
  const named = tree.syscalls[syscall] ?? 'stat';
  // As fs names it: ENOENT, EACCES... with the same message shape.
  const error = errnoError(errno, named, path);
  return { path, code: error.code, syscall: named, message: error.message };
}

function entryOf(tree: ScanTree, node: number, depth: number, options: SummaryOptions): DirectoryEntry<Count> {
  const [allocated, apparent, files, directories] = tree.totals(node);
  return {
    name: tree.name(node),
    path: tree.path(node),
    allocated: count(allocated, options.bigint),
    apparent: count(apparent, options.bigint),
    files: count(files, options.bigint),
    directories: count(directories, options.bigint),
    children: depth > 0 ? childrenOf(tree, node, depth - 1, options) : [],
    complete: tree.complete(node),
  };
}

/** `node`'s counted subdirectories, largest first (ties in listing order), each with its own to `depth`. */
function childrenOf(tree: ScanTree, node: number, depth: number, options: SummaryOptions): DirectoryEntry<Count>[] {
  const size = options.apparent ? 1 : 0;
  const children = tree.children(node).filter((child) => tree.counted(child) && (tree.flags(child) & NodeFlag.notDirectory) === 0);
  children.sort((a, b) => {
    const difference = tree.totals(b)[size] - tree.totals(a)[size];
    return difference > 0n ? 1 : difference < 0n ? -1 : a - b;
  });
  return children.map((child) => entryOf(tree, child, depth, options));
}

/** The answer for directory `node` of `tree`. */
export function summarize(tree: ScanTree, node: number, options: SummaryOptions): DirectoryUsage<Count> {
  const { data } = tree;
  const size = options.apparent ? 1 : 0;
  const below = tree.subtree(node);

  const holdingMost = new Largest<DirectoryHoldingMost<Count>>(options.top);
  const skipped: string[] = [];
  for (const dir of below) {
    const flags = tree.flags(dir);
    if ((flags & NodeFlag.skipped) !== 0) skipped.push(tree.path(dir));
    if (!tree.counted(dir) || (flags & NodeFlag.notDirectory) !== 0) continue;
    const own = tree.own(dir);
    holdingMost.offer(own[size], () => ({
      path: tree.path(dir),
      allocated: count(own[0], options.bigint),
      apparent: count(own[1], options.bigint),
      // Less the directory's own inode, which `own` counts only in bytes.
      files: count(own[2], options.bigint),
    }));
  }

  const largestFiles = new Largest<LargestFile<Count>>(options.top);
  const files = data.files;
  for (let i = 0; i < files.dir.length; i++) {
    const dir = files.dir[i]!;
    if (!tree.contains(node, dir)) continue;
    const allocated = files.sizes[i * 2]!;
    const apparent = files.sizes[i * 2 + 1]!;
    largestFiles.offer(size === 0 ? allocated : apparent, () => ({
      path: tree.entryPath(dir, files.names.subarray(i === 0 ? 0 : files.nameEnd[i - 1]!, files.nameEnd[i]!)),
      allocated: count(allocated, options.bigint),
      apparent: count(apparent, options.bigint),
    }));
  }

  const errors = data.errors.filter((error) => tree.contains(node, error.dir));
  // Threads held now come first: where a dead mount is.
  const unfinishedNodes = [...data.inProgress.map((busy) => busy.dir), ...data.unfinished].filter((dir) => tree.contains(node, dir));
  const unfinishedPaths = [
    ...new Set(
      unfinishedNodes.map((dir) => {
        const busy = data.inProgress.find((entry) => entry.dir === dir && entry.name.length > 0);
        return busy ? tree.entryPath(data.parent[dir]!, busy.name) : tree.path(dir);
      }),
    ),
  ];
  const unfinishedCount = node === 0 ? Math.max(data.unfinishedCount, unfinishedPaths.length) : unfinishedPaths.length;

  const [allocated, apparent, fileCount, directories] = tree.totals(node);
  return {
    path: tree.path(node),
    allocated: count(allocated, options.bigint),
    apparent: count(apparent, options.bigint),
    files: count(fileCount, options.bigint),
    directories: count(directories, options.bigint),
    children: options.depth > 0 ? childrenOf(tree, node, options.depth - 1, options) : [],
    directoriesHoldingMost: holdingMost.sorted(),
    largestFiles: largestFiles.sorted(),
    errors: {
      count: node === 0 ? data.errorCount : errors.length,
      first: errors.slice(0, options.listed).map((error) => walkError(tree, error.dir, error.name, error.errno, error.syscall)),
    },
    skipped,
    unfinished: { count: unfinishedCount, first: unfinishedPaths.slice(0, options.listed) },
    complete: tree.complete(node) && unfinishedCount === 0,
    scannedAt: new Date(tree.startedAt).toISOString(),
    elapsedMs: Math.round(tree.elapsedMs),
    ageMs: Math.round(options.ageMs),
    backend: tree.backend,
  };
}
