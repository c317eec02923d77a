// What GNU du prints for one operand, from a finished (or stopped) walk:
// its lines in du's order and its complaints where du makes them. Pure: the
// tree in, calls to a sink out.
//
// du's order is fts's (coreutils' du.c, process_file, over gnulib's fts): a
// depth-first walk in listing order, each directory printed after
// everything in it, its files (-a) among its subdirectories as the listing
// has them. A directory's size is the sum of the bytes below it, each inode
// once; what du leaves out is left out here too: another file system's
// directories under -x, a directory met again (a bind-mount cycle), entries
// that could not be stat'ed. Lines deeper than -d are not printed, but
// count. Complaints come at the point du makes them: "cannot access" where
// an entry could not be stat'ed, "cannot read directory" before the line of
// a directory that could not be listed (du still prints and counts it).
// A walk that stopped (a deadline, a dead mount) names what it did not finish.
import { strerror } from '../../format/strerror.js';
import { NodeFlag, WALK_SYSCALLS } from '../../probe/nativeBinding.js';
import type { ScanTree } from '../../scan/scanTree.js';
import type { EntryRanks } from './duFtsOrder.js';
import { fileName, PathBuilder } from './duPaths.js';

export interface ListingFormat {
  /** Print files too (-a). */
  readonly all: boolean;
  /** Deepest level printed; the operand is level 0. */
  readonly maxDepth: number;
  readonly apparent: boolean;
  /** Print lines at all: --top and --json list only the complaints this way. */
  readonly lines: boolean;
  /** Directories named as unfinished at most; the rest are counted. */
  readonly unfinishedNamed: number;
  /** The mount points the walk was given (absolute, as tree.path() names them): one it never got to was never stat'ed. */
  readonly mountPoints: ReadonlySet<string>;
  /** Directories du lists out of their listing order (duFtsOrder.ts): each entry's rank by its listing position. */
  readonly ranks?: EntryRanks;
}

/** Why what the walk did not finish was not finished (the caller knows how the walk ended). */
export interface UnfinishedReasons {
  /** For a directory a thread was still on when the walk ended. */
  readonly busy: string;
  /** For one still waiting for a thread. */
  readonly waiting: string;
  /** For a mount point not entered because it was found stuck before. */
  readonly skipped: string;
}

export interface ListingSink {
  /** One line: `bytes` at `path` (raw bytes, valid during the call only). */
  line(bytes: bigint, path: Uint8Array): void;
  /** One complaint, du's: "cannot access" or "cannot read directory", the path (raw bytes) and why. */
  complain(what: 'cannot access' | 'cannot read directory', path: Uint8Array, reason: string): void;
}

export interface ListingResult {
  /** Nothing could be read at all: the operand itself could not be stat'ed. */
  readonly missing: boolean;
  /** Anything complained about. */
  readonly complaints: number;
  /** Directories not finished, named or not. */
  readonly unfinished: number;
}

const STAT_SYSCALLS: ReadonlySet<number> = new Set([WALK_SYSCALLS.indexOf('fstatat'), WALK_SYSCALLS.indexOf('statx')]);
const LEFT_OUT = NodeFlag.otherDevice | NodeFlag.duplicate;

interface WalkError {
  readonly errno: number;
  readonly syscall: number;
}

/** Each directory's kept files (-a), in listing order: [start, end) of `order` by directory. */
function filesByDirectory(tree: ScanTree): { order: Uint32Array; start: Uint32Array } {
  const { dir, entryIndex } = tree.data.files;
  const start = new Uint32Array(tree.nodeCount + 1);
  for (let i = 0; i < dir.length; i++) start[dir[i]! + 1]!++;
  for (let node = 0; node < tree.nodeCount; node++) start[node + 1]! += start[node]!;
  const next = start.slice(0, tree.nodeCount);
  const order = new Uint32Array(dir.length);
  for (let i = 0; i < dir.length; i++) order[next[dir[i]!]!++] = i;
  for (let node = 0; node < tree.nodeCount; node++) {
    const from = start[node]!;
    const to = start[node + 1]!;
    if (to - from > 1) order.subarray(from, to).sort((a, b) => entryIndex[a]! - entryIndex[b]!);
  }
  return { order, start };
}

/**
 * Lists the operand whose walk is `tree`, named `root` (ftsRootName), into
 * `sink`, in du's order. Depth-first with a stack of its own: a tree
 * thousands of levels deep is listed like any other.
 */
export function listTree(tree: ScanTree, root: Uint8Array, format: ListingFormat, reasons: UnfinishedReasons, sink: ListingSink): ListingResult {
  const { data } = tree;
  const size = format.apparent ? 1 : 0;
  let complaints = 0;
  let unfinished = 0;
  const complain: ListingSink['complain'] = (what, path, reason) => {
    complaints++;
    sink.complain(what, path, reason);
  };

  // Errors by directory: the directory's own (its open or its listing), and its entries' by name.
  const ownErrors = new Map<number, WalkError>();
  const entryErrors = new Map<number, Map<string, WalkError & { name: Buffer }>>();
  for (const error of data.errors) {
    if (error.name.length === 0) {
      if (!ownErrors.has(error.dir)) ownErrors.set(error.dir, error);
      continue;
    }
    const named = entryErrors.get(error.dir) ?? new Map<string, WalkError & { name: Buffer }>();
    entryErrors.set(error.dir, named);
    named.set(error.name.toString('latin1'), error);
  }
  const busy = new Set(data.inProgress.map((entry) => entry.dir));
  // A thread on a mount point (or the start) names it: its visit began with its stat.
  const busyWithName = new Set(data.inProgress.filter((entry) => entry.name.length > 0).map((entry) => entry.dir));

  const path = new PathBuilder(root);
  const files = format.all && format.lines ? filesByDirectory(tree) : undefined;
  const { firstChild, childCount, entryIndex } = data;
  // One frame a level: the directory, its next child and next file, and the path's length before its name.
  const nodes: number[] = [];
  const nextChild: number[] = [];
  const nextFile: number[] = [];
  // For a directory du lists in another order: its children and files in that order, and the rank to merge them by.
  const childOrders: Array<number[] | undefined> = [];
  const fileOrders: Array<number[] | undefined> = [];
  const rankOf: Array<((entryIndex: number) => number) | undefined> = [];
  const pathBefore: number[] = [];

  const enter = (node: number, before: number): void => {
    nodes.push(node);
    nextChild.push(0);
    nextFile.push(files === undefined ? 0 : files.start[node]!);
    const rank = format.ranks?.get(node);
    rankOf.push(rank);
    if (rank === undefined) {
      childOrders.push(undefined);
      fileOrders.push(undefined);
    } else {
      const byRank = (a: number, b: number): number => rank(a) - rank(b);
      const children = Array.from({ length: childCount[node]! }, (_, c) => firstChild[node]! + c);
      childOrders.push(children.sort((a, b) => byRank(entryIndex[a]!, entryIndex[b]!)));
      const own = files === undefined ? [] : [...files.order.subarray(files.start[node]!, files.start[node + 1]!)];
      fileOrders.push(own.sort((a, b) => byRank(data.files.entryIndex[a]!, data.files.entryIndex[b]!)));
    }
    pathBefore.push(before);
    // Entries that could not be stat'ed, other than the mount points among the subdirectories (their nodes say so).
    // The walk keeps no listing position for them: they are named before the rest of the directory.
    const named = entryErrors.get(node);
    if (named === undefined) return;
    const children = new Set<string>();
    for (let c = 0; c < childCount[node]!; c++) children.add(tree.nameBytes(firstChild[node]! + c).toString('latin1'));
    for (const [key, error] of named) {
      if (children.has(key)) continue;
      const before = path.push(error.name);
      complain('cannot access', path.view(), strerrorOf(error));
      path.length = before;
    }
  };

  const unfinishedReason = (node: number, flags: number): string | undefined => {
    if ((flags & NodeFlag.listed) !== 0) return undefined;
    unfinished++;
    if (unfinished > format.unfinishedNamed) return undefined;
    return busy.has(node) ? reasons.busy : reasons.waiting;
  };
  // A directory not finished whose own stat may never have returned: the start, or a mount point, still
  // being visited (what a dead mount holds), or never reached. Nothing is known of it, not even its size.
  const unknown = (node: number, flags: number): boolean => {
    if ((flags & NodeFlag.listed) !== 0) return false;
    if (busy.has(node)) return busyWithName.has(node);
    return (flags & NodeFlag.started) === 0 && format.mountPoints.has(tree.path(node));
  };

  const rootFlags = tree.flags(0);
  const rootError = ownErrors.get(0);
  if ((rootFlags & NodeFlag.unreadable) !== 0 && rootError !== undefined && STAT_SYSCALLS.has(rootError.syscall)) {
    complain('cannot access', path.view(), strerrorOf(rootError));
    return { missing: true, complaints, unfinished };
  }
  if (unknown(0, rootFlags)) {
    const reason = unfinishedReason(0, rootFlags);
    if (reason !== undefined) complain('cannot access', path.view(), reason);
    return { missing: true, complaints, unfinished };
  }
  if ((rootFlags & NodeFlag.notDirectory) !== 0) {
    if (format.lines) sink.line(tree.own(0)[size], path.view());
    return { missing: false, complaints, unfinished };
  }

  enter(0, 0);
  while (nodes.length > 0) {
    const top = nodes.length - 1;
    const node = nodes[top]!;
    const level = top;
    const childAt = nextChild[top]!;
    const childOrder = childOrders[top];
    const child = childAt < childCount[node]! ? (childOrder === undefined ? firstChild[node]! + childAt : childOrder[childAt]!) : -1;
    const fileAt = nextFile[top]!;
    const fileOrder = fileOrders[top];
    const printsFiles = files !== undefined && level + 1 <= format.maxDepth;
    const file = !printsFiles
      ? -1
      : fileOrder === undefined
        ? fileAt < files.start[node + 1]!
          ? files.order[fileAt]!
          : -1
        : fileAt - files.start[node]! < fileOrder.length
          ? fileOrder[fileAt - files.start[node]!]!
          : -1;
    const rank = rankOf[top] ?? ((at: number) => at);

    if (file >= 0 && (child < 0 || rank(data.files.entryIndex[file]!) < rank(entryIndex[child]!))) {
      nextFile[top] = fileAt + 1;
      const before = path.push(fileName(tree, file));
      sink.line(data.files.sizes[file * 2 + size]!, path.view());
      path.length = before;
      continue;
    }

    if (child >= 0) {
      nextChild[top] = childAt + 1;
      const flags = tree.flags(child);
      if ((flags & LEFT_OUT) !== 0) continue;
      const before = path.push(tree.nameBytes(child));
      if ((flags & NodeFlag.skipped) !== 0) {
        // Never touched, not even stat'ed.
        complain('cannot access', path.view(), reasons.skipped);
        path.length = before;
        continue;
      }
      // A mount point whose own stat failed: du's "cannot access", and nothing counted.
      const statError = (flags & NodeFlag.unreadable) !== 0 ? entryErrors.get(node)?.get(tree.nameBytes(child).toString('latin1')) : undefined;
      if (statError !== undefined) {
        complain('cannot access', path.view(), strerrorOf(statError));
        path.length = before;
        continue;
      }
      if (unknown(child, flags)) {
        const reason = unfinishedReason(child, flags);
        if (reason !== undefined) complain('cannot access', path.view(), reason);
        path.length = before;
        continue;
      }
      if ((flags & NodeFlag.notDirectory) !== 0) {
        // A file mounted over a mount point: one file.
        if (format.lines && format.all && level + 1 <= format.maxDepth) sink.line(tree.own(child)[size], path.view());
        path.length = before;
        continue;
      }
      enter(child, before);
      continue;
    }

    // Everything in it is done: its complaints, then its line.
    const flags = tree.flags(node);
    const ownError = ownErrors.get(node);
    if (ownError !== undefined) complain('cannot read directory', path.view(), strerrorOf(ownError));
    const reason = unfinishedReason(node, flags);
    if (reason !== undefined) complain('cannot read directory', path.view(), reason);
    if (format.lines && level <= format.maxDepth) sink.line(tree.totals(node)[size], path.view());
    path.length = pathBefore[top]!;
    nodes.pop();
    nextChild.pop();
    nextFile.pop();
    childOrders.pop();
    fileOrders.pop();
    rankOf.pop();
    pathBefore.pop();
  }
  return { missing: false, complaints, unfinished };
}

function strerrorOf(error: WalkError): string {
  return strerror(error.errno);
}
