// A walk's tree as both backends hand it over: typed arrays indexed by
// directory (NativeScanSnapshot's layout), and the few lookups every answer
// needs. No object is made per directory or per file: an answer reads the
// nodes it names.
import { type NativeScanSnapshot, NodeFlag, SIZES_PER_NODE } from '../probe/nativeBinding.js';
import type { Backend } from '../probe/types.js';

const SEPARATOR = process.platform === 'win32' ? '\\' : '/';

/** Flags of a node that is not counted where it stands. */
const NOT_COUNTED = NodeFlag.skipped | NodeFlag.otherDevice | NodeFlag.duplicate;

export class ScanTree {
  /** Pre-order number of each node, and one past the last of its subtree: `dir` is in `node`'s subtree iff pre[node] <= pre[dir] < end[node]. */
  private order: { pre: Uint32Array; end: Uint32Array } | undefined;
  /** Per node: something below it (or it) was not listed, was skipped or was unreadable. */
  private incomplete: Uint8Array | undefined;

  constructor(
    readonly data: NativeScanSnapshot,
    /** Date.now() when the walk started. */
    readonly startedAt: number,
    /** Milliseconds the walk ran, to its end or to this snapshot. */
    readonly elapsedMs: number,
    readonly backend: Backend,
    /** The system call names of data's errors, by index. */
    readonly syscalls: readonly string[],
  ) {}

  get nodeCount(): number {
    return this.data.parent.length;
  }

  /** Every directory was listed. */
  get done(): boolean {
    return this.data.done;
  }

  nameBytes(node: number): Buffer {
    return this.data.names.subarray(node === 0 ? 0 : this.data.nameEnd[node - 1]!, this.data.nameEnd[node]!);
  }

  name(node: number): string {
    return this.nameBytes(node).toString('utf8');
  }

  /** The node's path: the start's path, then the names below it. */
  path(node: number): string {
    const names: string[] = [];
    for (let at = node; at !== 0; at = this.data.parent[at]!) names.push(this.name(at));
    const start = this.name(0);
    if (names.length === 0) return start;
    const base = start.endsWith(SEPARATOR) ? start : start + SEPARATOR;
    return base + names.reverse().join(SEPARATOR);
  }

  /** The path of an entry named `name` (raw bytes) inside directory `dir`. */
  entryPath(dir: number, name: Buffer): string {
    if (name.length === 0) return this.path(dir);
    const parent = this.path(dir);
    return (parent.endsWith(SEPARATOR) ? parent : parent + SEPARATOR) + name.toString('utf8');
  }

  flags(node: number): number {
    return this.data.flags[node]!;
  }

  counted(node: number): boolean {
    return (this.data.flags[node]! & NOT_COUNTED) === 0;
  }

  /** Subtree sizes: [allocated, apparent, files, directories]. */
  totals(node: number): [bigint, bigint, bigint, bigint] {
    const at = node * SIZES_PER_NODE;
    const sizes = this.data.sizes;
    return [sizes[at + 3]!, sizes[at + 4]!, sizes[at + 5]!, sizes[at + 6]!];
  }

  /** The node's own sizes (itself and its entries that are not directories): [allocated, apparent, files]. */
  own(node: number): [bigint, bigint, bigint] {
    const at = node * SIZES_PER_NODE;
    const sizes = this.data.sizes;
    return [sizes[at]!, sizes[at + 1]!, sizes[at + 2]!];
  }

  /** The node's child directories, in listing order. */
  children(node: number): number[] {
    const first = this.data.firstChild[node]!;
    const count = this.data.childCount[node]!;
    const list = new Array<number>(count);
    for (let i = 0; i < count; i++) list[i] = first + i;
    return list;
  }

  /**
   * The node at `relative` below the start (names separated by "/", or "\"
   * on Windows; "" is the start itself), or undefined when the tree has no
   * such directory: not a directory, never walked, or a name it did not see.
   */
  find(relative: string): number | undefined {
    let node = 0;
    for (const part of relative.split(process.platform === 'win32' ? /[\\/]/ : '/')) {
      if (part === '' || part === '.') continue;
      const wanted = Buffer.from(part, 'utf8');
      let found: number | undefined;
      for (const child of this.children(node)) {
        if (this.nameBytes(child).equals(wanted)) {
          found = child;
          break;
        }
      }
      if (found === undefined) return undefined;
      node = found;
    }
    return node;
  }

  /** Whether `dir` is `node` or below it. */
  contains(node: number, dir: number): boolean {
    const { pre, end } = this.preOrder();
    return pre[node]! <= pre[dir]! && pre[dir]! < end[node]!;
  }

  /** Whether everything below `node` was listed: nothing unfinished, skipped or unreadable. */
  complete(node: number): boolean {
    if (this.incomplete === undefined) this.incomplete = this.markIncomplete();
    return this.incomplete[node] === 0;
  }

  /** Every node of `node`'s subtree, itself first. */
  subtree(node: number): number[] {
    const out: number[] = [];
    const stack = [node];
    while (stack.length > 0) {
      const at = stack.pop()!;
      out.push(at);
      const first = this.data.firstChild[at]!;
      for (let c = this.data.childCount[at]! - 1; c >= 0; c--) stack.push(first + c);
    }
    return out;
  }

  private preOrder(): { pre: Uint32Array; end: Uint32Array } {
    if (this.order !== undefined) return this.order;
    const count = this.nodeCount;
    const pre = new Uint32Array(count);
    const end = new Uint32Array(count);
    const stack: Array<[number, boolean]> = [[0, false]];
    let next = 0;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const node = top[0];
      if (!top[1]) {
        top[1] = true;
        pre[node] = next++;
        const first = this.data.firstChild[node]!;
        for (let c = this.data.childCount[node]! - 1; c >= 0; c--) stack.push([first + c, false]);
        continue;
      }
      stack.pop();
      end[node] = next;
    }
    this.order = { pre, end };
    return this.order;
  }

  private markIncomplete(): Uint8Array {
    const marks = new Uint8Array(this.nodeCount);
    const { flags } = this.data;
    for (let node = 0; node < this.nodeCount; node++) {
      const flag = flags[node]!;
      const lacking = (flag & NodeFlag.listed) === 0 || (flag & (NodeFlag.unreadable | NodeFlag.skipped)) !== 0;
      if (!lacking) continue;
      // Up to the start: every directory that holds it is incomplete too.
      for (let at = node; marks[at] === 0; at = this.data.parent[at]!) {
        marks[at] = 1;
        if (at === 0) break;
      }
    }
    return marks;
  }
}
