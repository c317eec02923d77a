// Paths as fts builds them and du prints them, as raw bytes: the operand's
// name (ftsRootName), then for each level a slash and a name, the slash left
// out after a name that already ends in one ("/" and "dir/" give "/bin" and
// "dir/sub", fts_build's NAPPEND). Names are bytes, not text: a file system
// may hold any but "/" and NUL.
import type { ScanTree } from '../../scan/scanTree.js';

const SLASH = 0x2f;

/** A path built one name a level, for a depth-first walk: push a name going down, cut back going up. */
export class PathBuilder {
  bytes: Buffer;
  length: number;

  constructor(root: Uint8Array) {
    this.bytes = Buffer.allocUnsafe(Math.max(4096, root.length * 2));
    this.bytes.set(root);
    this.length = root.length;
  }

  /** Appends `name` after a slash; returns the length before, to cut back to. */
  push(name: Uint8Array): number {
    const before = this.length;
    const slash = before > 0 && this.bytes[before - 1] === SLASH ? 0 : 1;
    const needed = before + slash + name.length;
    if (needed > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, before);
      this.bytes = grown;
    }
    if (slash) this.bytes[before] = SLASH;
    this.bytes.set(name, before + slash);
    this.length = needed;
    return before;
  }

  /** The path so far; valid until the next push. */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** The path of `node` of `tree` (and of `name` inside it), from `root`, the name of the walk's start. */
export function nodePath(tree: ScanTree, root: Uint8Array, node: number, name?: Uint8Array): Buffer {
  const names: Uint8Array[] = name === undefined ? [] : [name];
  for (let at = node; at !== 0; at = tree.data.parent[at]!) names.push(tree.nameBytes(at));
  const path = new PathBuilder(root);
  for (let i = names.length - 1; i >= 0; i--) path.push(names[i]!);
  return Buffer.from(path.view());
}

/** The name of file `file` (an index into tree.data.files). */
export function fileName(tree: ScanTree, file: number): Buffer {
  const { names, nameEnd } = tree.data.files;
  return names.subarray(file === 0 ? 0 : nameEnd[file - 1]!, nameEnd[file]!);
}
