import type { MountEntry } from './mountEntry.js';

/**
 * The mounts as the tree mountinfo's parent ids make: which mounts are at
 * each mount point, and whether one mount lies beneath another (is on the
 * chain of mounts the other is mounted on), in constant time from the
 * order of a walk of the tree.
 *
 * Built at every reading of the table, often before V8 has compiled it: one
 * Map (mount id to node) and typed arrays, where a Map per relation (and
 * an object per step of an interpreted for-of) made the collector the
 * largest cost of `diskprobe df` at thousands of mounts (issue 27).
 */
export class MountTree {
  /** The entries at each mount point, in table order. */
  readonly at = new Map<string, MountEntry[]>();
  /** A node per mount id, numbered in order of first appearance. */
  private readonly nodeOf = new Map<number, number>();
  /** Clock readings of the walk at each node: entering it, leaving it; -1 where the walk never came. */
  private readonly enter: Int32Array;
  private readonly leave: Int32Array;

  constructor(entries: readonly MountEntry[]) {
    const count = entries.length;
    const nodeOf = this.nodeOf;
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      const list = this.at.get(entry.mountPoint);
      if (list) list.push(entry);
      else this.at.set(entry.mountPoint, [entry]);
      if (!nodeOf.has(entry.mountId)) nodeOf.set(entry.mountId, nodeOf.size);
    }
    const nodes = nodeOf.size;
    // Each node's children, in table order: entry indexes, linked through `nextChild`.
    const firstChild = new Int32Array(nodes).fill(-1);
    const lastChild = new Int32Array(nodes).fill(-1);
    const nextChild = new Int32Array(count).fill(-1);
    const roots: number[] = [];
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      const parent = entry.parentId === entry.mountId ? undefined : nodeOf.get(entry.parentId);
      if (parent === undefined) {
        roots.push(i);
        continue;
      }
      if (firstChild[parent] === -1) firstChild[parent] = i;
      else nextChild[lastChild[parent]!] = i;
      lastChild[parent] = i;
    }
    this.enter = new Int32Array(nodes).fill(-1);
    this.leave = new Int32Array(nodes).fill(-1);
    // An explicit stack (a tree thousands of mounts deep must not overflow
    // the call stack): the node, and the next of its children to visit.
    const stackNode = new Int32Array(nodes);
    const stackNext = new Int32Array(nodes);
    let clock = 0;
    for (let r = 0; r < roots.length; r++) {
      const root = nodeOf.get(entries[roots[r]!]!.mountId)!;
      if (this.enter[root] !== -1) continue;
      this.enter[root] = clock++;
      let depth = 0;
      stackNode[0] = root;
      stackNext[0] = firstChild[root]!;
      while (depth >= 0) {
        const child = stackNext[depth]!;
        if (child === -1) {
          this.leave[stackNode[depth]!] = clock++;
          depth--;
          continue;
        }
        stackNext[depth] = nextChild[child]!;
        const node = nodeOf.get(entries[child]!.mountId)!;
        if (this.enter[node] !== -1) continue;
        this.enter[node] = clock++;
        depth++;
        stackNode[depth] = node;
        stackNext[depth] = firstChild[node]!;
      }
    }
  }

  /** Whether `above` is on the chain of mounts `entry` is mounted on (its parent, the parent's parent, ...). */
  isAncestor(above: MountEntry, entry: MountEntry): boolean {
    if (above.mountId === entry.mountId) return false;
    const a = this.nodeOf.get(above.mountId);
    const e = this.nodeOf.get(entry.mountId);
    if (a === undefined || e === undefined) return false;
    const aIn = this.enter[a]!;
    const aOut = this.leave[a]!;
    const eIn = this.enter[e]!;
    return aIn !== -1 && aOut !== -1 && eIn !== -1 && aIn < eIn && eIn < aOut;
  }
}
