// `diskprobe du --top N`: where the space under an operand went, in a few
// lines: the operand's size as du -s prints it, then the N directories
// holding the most, ranked by the files directly in each as du -S counts
// them (a directory of a million small files stands out even when it has no
// large one; dust and ncdu rank subtrees instead, which du -d 1 shows), then
// the N largest files, each with its share of the operand. Pure: the tree
// in, the text out (raw bytes: a name is printed as the file system has it).
import { NodeFlag } from '../../probe/nativeBinding.js';
import type { ScanTree } from '../../scan/scanTree.js';
import { fileName, nodePath } from './duPaths.js';

export interface TopFormat {
  readonly count: number;
  readonly apparent: boolean;
  /** The size as printed, from bytes. */
  readonly sizeText: (bytes: bigint) => string;
}

const NOT_A_COUNTED_DIRECTORY = NodeFlag.skipped | NodeFlag.otherDevice | NodeFlag.duplicate | NodeFlag.notDirectory;

/** Keeps the `limit` largest offered, largest first; among equals, the first offered. */
function largest<T>(limit: number, offers: Iterable<readonly [bigint, T]>): Array<readonly [bigint, T]> {
  const kept: Array<readonly [bigint, T]> = [];
  for (const offer of offers) {
    if (kept.length === limit && offer[0] <= kept[kept.length - 1]![0]) continue;
    let at = kept.length;
    while (at > 0 && kept[at - 1]![0] < offer[0]) at--;
    kept.splice(at, 0, offer);
    if (kept.length > limit) kept.pop();
  }
  return kept;
}

/** Directories counted and listed to the end (one a walk did not finish has no total of its own yet). */
function* directories(tree: ScanTree, size: number): Generator<readonly [bigint, number]> {
  for (let node = 0; node < tree.nodeCount; node++) {
    const flags = tree.flags(node);
    if ((flags & NOT_A_COUNTED_DIRECTORY) === 0 && (flags & NodeFlag.listed) !== 0) yield [tree.own(node)[size]!, node];
  }
}

function* files(tree: ScanTree, size: number): Generator<readonly [bigint, number]> {
  const { sizes, dir } = tree.data.files;
  for (let file = 0; file < dir.length; file++) yield [sizes[file * 2 + size]!, file] as const;
}

/** A section's rows: sizes right-aligned to `width`, then the share of `whole`, then the path. */
function rows(entries: ReadonlyArray<readonly [bigint, Buffer]>, whole: bigint, sizeText: TopFormat['sizeText'], width: number): Buffer[] {
  return entries.map(([bytes, path]) => {
    const share = whole > 0n ? `${(bytes * 100n) / whole}%` : '-';
    return Buffer.concat([Buffer.from(`  ${sizeText(bytes).padStart(width)}  ${share.padStart(4)}  `), path, NEWLINE]);
  });
}

const NEWLINE = Buffer.from('\n');

/** The --top block for one operand named `root`. */
export function topReport(tree: ScanTree, root: Uint8Array, format: TopFormat): Buffer {
  const size = format.apparent ? 1 : 0;
  const whole = tree.totals(0)[size];
  const out: Buffer[] = [Buffer.from(`${format.sizeText(whole)}\t`), Buffer.from(root), NEWLINE];
  if ((tree.flags(0) & NodeFlag.notDirectory) !== 0) return Buffer.concat(out);
  const holdingMost = largest(format.count, directories(tree, size)).map(([bytes, node]) => [bytes, nodePath(tree, root, node)] as const);
  const bigFiles = largest(format.count, files(tree, size)).map(
    ([bytes, file]) => [bytes, nodePath(tree, root, tree.data.files.dir[file]!, fileName(tree, file))] as const,
  );
  // One column of sizes for both sections.
  const width = Math.max(0, ...[...holdingMost, ...bigFiles].map(([bytes]) => format.sizeText(bytes).length));
  if (holdingMost.length > 0) {
    out.push(Buffer.from('directories holding the most (by the files directly in them):\n'), ...rows(holdingMost, whole, format.sizeText, width));
  }
  if (bigFiles.length > 0) out.push(Buffer.from('largest files:\n'), ...rows(bigFiles, whole, format.sizeText, width));
  return Buffer.concat(out);
}
