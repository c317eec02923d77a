// The fallback walk's tree: the same nodes, rules and snapshot as the
// addon's (native/walk/), in JS, for the helper process that walks with
// fs when no addon loads. What it counts, and where, must match: one test
// suite runs on both backends.
import { type NativeScanError, type NativeScanSnapshot, NodeFlag, SIZES_PER_NODE } from '../probe/nativeBinding.js';

/** A hard-linked file, counted once where du's order meets it first (decided in snapshot()). */
interface Hardlink {
  readonly key: string;
  readonly dir: number;
  readonly entryIndex: number;
  readonly allocated: bigint;
  readonly apparent: bigint;
}

export interface FallbackFile {
  readonly name: Buffer;
  dir: number;
  readonly entryIndex: number;
  readonly allocated: bigint;
  readonly apparent: bigint;
  /** `${dev}:${ino}` of a file with several links, else undefined. */
  readonly link: string | undefined;
}

const NOT_COUNTED = NodeFlag.skipped | NodeFlag.otherDevice | NodeFlag.duplicate;

export class FallbackTree {
  readonly parent: number[] = [0];
  readonly entryIndex: number[] = [0];
  readonly firstChild: number[] = [0];
  readonly childCount: number[] = [0];
  readonly flags: number[] = [0];
  readonly entries: number[] = [0];
  /** Three per node: own allocated, apparent, files. */
  readonly own: bigint[] = [0n, 0n, 0n];
  readonly names: Buffer[];
  readonly files: FallbackFile[] = [];
  readonly hardlinks: Hardlink[] = [];
  /** [node, the node that was walked] for each directory met twice. */
  readonly duplicates: Array<[number, number]> = [];
  readonly seenDirectories = new Map<string, number>();
  errorCount = 0;
  readonly errors: NativeScanError[] = [];
  entriesSeen = 0;

  constructor(
    root: Buffer,
    private readonly maxErrors: number,
  ) {
    this.names = [root];
  }

  get size(): number {
    return this.parent.length;
  }

  /** Adds `count` nodes for a directory's children, contiguous; returns the first. */
  addChildren(parent: number, children: ReadonlyArray<{ name: Buffer; entryIndex: number }>): number {
    const first = this.parent.length;
    for (const child of children) {
      this.parent.push(parent);
      this.entryIndex.push(child.entryIndex);
      this.firstChild.push(0);
      this.childCount.push(0);
      this.flags.push(0);
      this.entries.push(0);
      this.own.push(0n, 0n, 0n);
      this.names.push(child.name);
    }
    this.firstChild[parent] = first;
    this.childCount[parent] = children.length;
    return first;
  }

  recordError(dir: number, name: Buffer, errno: number, syscall: number): void {
    this.errorCount++;
    if (this.errors.length < this.maxErrors) this.errors.push({ dir, name, errno, syscall });
  }

  recordLink(key: string, dir: number, entryIndex: number, allocated: bigint, apparent: bigint): void {
    this.hardlinks.push({ key, dir, entryIndex, allocated, apparent });
  }

  /** The tree with totals summed, in the addon's layout (see native/walk/snapshot.cc). */
  snapshot(done: boolean, stopped: boolean, maxUnfinished: number, inProgress: readonly NativeScanError[]): NativeScanSnapshot {
    const count = this.size;
    const parent = Uint32Array.from(this.parent);
    const firstChild = Uint32Array.from(this.firstChild);
    const childCount = Uint32Array.from(this.childCount);
    const flags = Uint32Array.from(this.flags);
    const entries = Uint32Array.from(this.entries);
    const sizes = new BigUint64Array(count * SIZES_PER_NODE);
    for (let i = 0; i < count; i++) for (let k = 0; k < 3; k++) sizes[i * SIZES_PER_NODE + k] = this.own[i * 3 + k]!;
    const tree = { parent, entryIndex: Uint32Array.from(this.entryIndex), firstChild, childCount, flags, entries, sizes };

    const home = placeDuplicates(tree, this.duplicates);
    const files = placeHardlinks(tree, this.hardlinks, this.files, home);
    sumTotals(tree);

    const nameEnd = new Uint32Array(count);
    let end = 0;
    for (let i = 0; i < count; i++) nameEnd[i] = end += this.names[i]!.length;
    const fileNameEnd = new Uint32Array(files.length);
    const fileSizes = new BigUint64Array(files.length * 2);
    end = 0;
    files.forEach((file, i) => {
      fileNameEnd[i] = end += file.name.length;
      fileSizes[i * 2] = file.allocated;
      fileSizes[i * 2 + 1] = file.apparent;
    });
    const unfinished: number[] = [];
    let unfinishedCount = 0;
    for (let i = 0; i < count; i++) {
      if ((this.flags[i]! & NodeFlag.listed) !== 0) continue;
      unfinishedCount++;
      if (unfinished.length < maxUnfinished) unfinished.push(i);
    }
    return {
      done,
      stopped,
      ...tree,
      names: Buffer.concat(this.names),
      nameEnd,
      files: {
        dir: Uint32Array.from(files, (file) => file.dir),
        entryIndex: Uint32Array.from(files, (file) => file.entryIndex),
        sizes: fileSizes,
        names: Buffer.concat(files.map((file) => file.name)),
        nameEnd: fileNameEnd,
      },
      errorCount: this.errorCount,
      errors: this.errors.map((error) => ({ ...error, dir: home[error.dir]! })),
      unfinishedCount,
      unfinished: Uint32Array.from(unfinished),
      inProgress,
      entriesSeen: this.entriesSeen,
    };
  }
}

interface Arrays {
  parent: Uint32Array;
  entryIndex: Uint32Array;
  firstChild: Uint32Array;
  childCount: Uint32Array;
  flags: Uint32Array;
  entries: Uint32Array;
  sizes: BigUint64Array;
}

/** Where entries stand in du's depth-first walk in listing order (native/walk/dedupe.h WalkOrder). */
class WalkOrder {
  private readonly depth: Uint32Array;
  constructor(private readonly tree: Arrays) {
    this.depth = new Uint32Array(tree.parent.length);
    const stack = [0];
    while (stack.length > 0) {
      const node = stack.pop()!;
      for (let c = 0; c < tree.childCount[node]!; c++) {
        const child = tree.firstChild[node]! + c;
        this.depth[child] = this.depth[node]! + 1;
        stack.push(child);
      }
    }
  }

  before(a: number, aEntry: number, b: number, bEntry: number): boolean {
    const { parent, entryIndex } = this.tree;
    let aUp = 0;
    let bUp = 0;
    while (this.depth[a]! > this.depth[b]!) [aEntry, a, aUp] = [entryIndex[a]!, parent[a]!, aUp + 1];
    while (this.depth[b]! > this.depth[a]!) [bEntry, b, bUp] = [entryIndex[b]!, parent[b]!, bUp + 1];
    while (a !== b) {
      [aEntry, a, aUp] = [entryIndex[a]!, parent[a]!, aUp + 1];
      [bEntry, b, bUp] = [entryIndex[b]!, parent[b]!, bUp + 1];
    }
    return aEntry !== bEntry ? aEntry < bEntry : aUp < bUp;
  }

  nodeBefore(a: number, b: number): boolean {
    if (a === 0 || b === 0) return a === 0 && b !== 0;
    return this.before(this.tree.parent[a]!, this.tree.entryIndex[a]!, this.tree.parent[b]!, this.tree.entryIndex[b]!);
  }

  isAncestor(ancestor: number, node: number): boolean {
    while (this.depth[node]! > this.depth[ancestor]!) node = this.tree.parent[node]!;
    return node === ancestor;
  }
}

function placeDuplicates(tree: Arrays, duplicates: ReadonlyArray<[number, number]>): Uint32Array {
  const home = new Uint32Array(tree.parent.length);
  for (let i = 0; i < home.length; i++) home[i] = i;
  const order = new WalkOrder(tree);
  const first = new Map<number, number>();
  for (const [node, claimer] of duplicates) {
    const current = first.get(claimer) ?? claimer;
    first.set(claimer, order.nodeBefore(node, current) && !order.isAncestor(claimer, node) ? node : current);
  }
  for (const [walked, winner] of first) {
    if (walked === winner) continue;
    for (const array of [tree.firstChild, tree.childCount, tree.flags, tree.entries]) [array[walked], array[winner]] = [array[winner]!, array[walked]!];
    for (let k = 0; k < 3; k++) {
      const a = walked * SIZES_PER_NODE + k;
      const b = winner * SIZES_PER_NODE + k;
      [tree.sizes[a], tree.sizes[b]] = [tree.sizes[b]!, tree.sizes[a]!];
    }
    for (let c = 0; c < tree.childCount[winner]!; c++) tree.parent[tree.firstChild[winner]! + c] = winner;
    home[walked] = winner;
  }
  return home;
}

function placeHardlinks(tree: Arrays, links: readonly Hardlink[], files: readonly FallbackFile[], home: Uint32Array): FallbackFile[] {
  const order = new WalkOrder(tree);
  const owners = new Map<string, Hardlink>();
  for (const given of links) {
    const link = { ...given, dir: home[given.dir]! };
    const owner = owners.get(link.key);
    if (owner === undefined || order.before(link.dir, link.entryIndex, owner.dir, owner.entryIndex)) owners.set(link.key, link);
  }
  for (const owner of owners.values()) {
    const at = owner.dir * SIZES_PER_NODE;
    tree.sizes[at] = tree.sizes[at]! + owner.allocated;
    tree.sizes[at + 1] = tree.sizes[at + 1]! + owner.apparent;
    tree.sizes[at + 2] = tree.sizes[at + 2]! + 1n;
  }
  const kept: FallbackFile[] = [];
  for (const file of files) {
    const dir = home[file.dir]!;
    if (file.link !== undefined) {
      const owner = owners.get(file.link);
      if (owner === undefined || owner.dir !== dir || owner.entryIndex !== file.entryIndex) continue;
    }
    kept.push({ ...file, dir });
  }
  return kept;
}

function sumTotals(tree: Arrays): void {
  const stack: Array<[number, boolean]> = [[0, false]];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const node = top[0];
    if (!top[1]) {
      top[1] = true;
      for (let c = 0; c < tree.childCount[node]!; c++) stack.push([tree.firstChild[node]! + c, false]);
      continue;
    }
    stack.pop();
    const at = node * SIZES_PER_NODE;
    const flags = tree.flags[node]!;
    const counted = (flags & NOT_COUNTED) === 0;
    tree.sizes[at + 3] = counted ? tree.sizes[at]! : 0n;
    tree.sizes[at + 4] = counted ? tree.sizes[at + 1]! : 0n;
    tree.sizes[at + 5] = counted ? tree.sizes[at + 2]! : 0n;
    tree.sizes[at + 6] = counted && (flags & NodeFlag.notDirectory) === 0 ? 1n : 0n;
    for (let c = 0; c < tree.childCount[node]!; c++) {
      const child = (tree.firstChild[node]! + c) * SIZES_PER_NODE;
      for (let k = 3; k < 7; k++) tree.sizes[at + k] = tree.sizes[at + k]! + tree.sizes[child + k]!;
    }
  }
}
