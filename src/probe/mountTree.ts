import type { MountEntry } from './mountEntry.js';

/**
 * The mounts as the tree mountinfo's parent ids make: which mounts are at
 * each mount point, and whether one mount lies beneath another (is on the
 * chain of mounts the other is mounted on), in constant time from the
 * order of a walk of the tree.
 */
export class MountTree {
  /** The entries at each mount point, in table order. */
  readonly at = new Map<string, MountEntry[]>();
  private readonly enter = new Map<number, number>();
  private readonly leave = new Map<number, number>();

  constructor(entries: readonly MountEntry[]) {
    const children = new Map<number, MountEntry[]>();
    const ids = new Set<number>();
    for (const entry of entries) {
      const list = this.at.get(entry.mountPoint);
      if (list) list.push(entry);
      else this.at.set(entry.mountPoint, [entry]);
      ids.add(entry.mountId);
    }
    const roots: MountEntry[] = [];
    for (const entry of entries) {
      if (entry.parentId === entry.mountId || !ids.has(entry.parentId)) {
        roots.push(entry);
        continue;
      }
      const list = children.get(entry.parentId);
      if (list) list.push(entry);
      else children.set(entry.parentId, [entry]);
    }
    // An explicit stack: a tree thousands of mounts deep must not overflow the call stack.
    let clock = 0;
    const stack: Array<{ entry: MountEntry; next: number }> = [];
    for (const root of roots) {
      if (this.enter.has(root.mountId)) continue;
      this.enter.set(root.mountId, clock++);
      stack.push({ entry: root, next: 0 });
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const child = children.get(top.entry.mountId)?.[top.next++];
        if (child === undefined) {
          this.leave.set(top.entry.mountId, clock++);
          stack.pop();
        } else if (!this.enter.has(child.mountId)) {
          this.enter.set(child.mountId, clock++);
          stack.push({ entry: child, next: 0 });
        }
      }
    }
  }

  /** Whether `above` is on the chain of mounts `entry` is mounted on (its parent, the parent's parent, ...). */
  isAncestor(above: MountEntry, entry: MountEntry): boolean {
    if (above.mountId === entry.mountId) return false;
    const aIn = this.enter.get(above.mountId);
    const aOut = this.leave.get(above.mountId);
    const eIn = this.enter.get(entry.mountId);
    return aIn !== undefined && aOut !== undefined && eIn !== undefined && aIn < eIn && eIn < aOut;
  }
}
