// The order du visits a very large directory in. gnulib's fts (fts_build)
// reads a directory 100,000 entries at a time, and sorts a batch of more
// than 10,000 by inode number before handing it over, except on tmpfs, NFS
// and CIFS, where that does not speed anything up
// (dirent_inode_sort_may_be_useful). du's lines follow that order: the
// directories among the entries (and with -a, the files) come out in inode
// order there, and in listing order everywhere else.
//
// The walk keeps listing positions, not inode numbers, so the entries that
// are printed in such a directory are lstat'ed again here to learn theirs.
// Only on mounts that cannot hang: elsewhere (FUSE) the listing order stands.
import { lstatSync } from 'node:fs';
import { listMounts } from '../../probe/mountProbes.js';
import { NodeFlag } from '../../probe/nativeBinding.js';
import { mountHolding } from '../../probe/walkSupport.js';
import type { ScanTree } from '../../scan/scanTree.js';
import { fileName, nodePath } from './duPaths.js';

/** fts's batch, and the size past which it sorts one (FTS_MAX_READDIR_ENTRIES, FTS_INODE_SORT_DIR_ENTRIES_THRESHOLD). */
const BATCH = 100_000;
const SORT_PAST = 10_000;
/** The file systems fts does not sort on, by the type the mount table gives (S_MAGIC_TMPFS, S_MAGIC_NFS, S_MAGIC_CIFS). */
const UNSORTED_TYPES = new Set(['tmpfs', 'devtmpfs', 'nfs', 'nfs4', 'cifs', 'smb3']);

/** For a directory listed out of its listing order: each entry's rank, by its listing position. */
export type EntryRanks = ReadonlyMap<number, (entryIndex: number) => number>;

/**
 * The ranks fts would give the printed entries of every directory of `tree`
 * that it sorts: `files` says whether files are printed (-a) as well as
 * subdirectories. Empty when there is none, which is nearly always.
 */
export async function ftsEntryRanks(tree: ScanTree, files: boolean): Promise<EntryRanks> {
  const ranks = new Map<number, (entryIndex: number) => number>();
  const { entries, firstChild, childCount } = tree.data;
  const large: number[] = [];
  for (let node = 0; node < tree.nodeCount; node++) {
    if (entries[node]! > SORT_PAST && tree.counted(node) && (tree.flags(node) & NodeFlag.listed) !== 0) large.push(node);
  }
  if (large.length === 0) return ranks;
  const types = new Map((await listMounts({ all: true })).map((mount) => [mount.mountPoint, mount.fsType]));
  const fileIndexes = new Map<number, number[]>();
  if (files) {
    const { dir } = tree.data.files;
    const wanted = new Set(large);
    for (let file = 0; file < dir.length; file++) {
      if (!wanted.has(dir[file]!)) continue;
      const list = fileIndexes.get(dir[file]!) ?? [];
      list.push(file);
      fileIndexes.set(dir[file]!, list);
    }
  }
  for (const node of large) {
    const path = nodePath(tree, tree.nameBytes(0), node);
    const holding = mountHolding(path.toString('utf8'));
    if (holding === undefined || holding.mayHang || holding.stuck || UNSORTED_TYPES.has(types.get(holding.mountPoint) ?? '')) continue;
    // Each printed entry's inode number, by its listing position.
    const inodes = new Map<number, bigint>();
    const learn = (entryIndex: number, name: Buffer): void => {
      try {
        inodes.set(entryIndex, lstatSync(nodePath(tree, tree.nameBytes(0), node, name), { bigint: true }).ino);
      } catch {
        // Gone since: it keeps its listing position.
      }
    };
    for (let c = 0; c < childCount[node]!; c++) learn(tree.data.entryIndex[firstChild[node]! + c]!, tree.nameBytes(firstChild[node]! + c));
    for (const file of fileIndexes.get(node) ?? []) learn(tree.data.files.entryIndex[file]!, fileName(tree, file));
    const total = entries[node]!;
    const sortedBatch = (at: number): boolean => Math.min(BATCH, total - Math.floor(at / BATCH) * BATCH) > SORT_PAST;
    const order = [...inodes.keys()].sort((a, b) => {
      const batch = Math.floor(a / BATCH) - Math.floor(b / BATCH);
      if (batch !== 0 || !sortedBatch(a)) return batch !== 0 ? batch : a - b;
      const difference = inodes.get(a)! - inodes.get(b)!;
      return difference < 0n ? -1 : difference > 0n ? 1 : a - b;
    });
    const rankOf = new Map(order.map((entryIndex, rank) => [entryIndex, rank]));
    // An entry not looked up again (gone) stays where the listing had it, among the batch's first.
    ranks.set(node, (entryIndex) => rankOf.get(entryIndex) ?? -1 - (total - entryIndex));
  }
  return ranks;
}
