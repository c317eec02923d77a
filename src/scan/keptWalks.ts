// The last walks, kept so that a question about a directory inside one is
// answered from it: a model that asks about /, then /var, then /var/lib waits
// once. Bounded in number and in directories, dropped after a while, and
// dropped when a mount comes or goes at, below or above their start. A walk still running is kept too:
// a later call waits on it rather than starting another (the MCP tool's
// budget, src/mcp/features/tools/directoryUsageTool.ts).
import { sep } from 'node:path';

import { onMountEvent } from '../probe/runtime.js';
import type { ScanTree } from './scanTree.js';
import type { Walk } from './walk.js';

/** Walks kept at most. */
const MAX_WALKS = 8;
/** Directories kept at most, over all kept walks: about 120 bytes each in the addon. */
const MAX_NODES = 4_000_000;
/** Milliseconds a finished walk answers for: a conversation's drill-down, not yesterday's disk. */
const KEEP_MS = 10 * 60_000;

export interface KeptWalk {
  readonly root: string;
  readonly oneFileSystem: boolean;
  /** The largest files kept per directory: a later call asking for more walks again. */
  readonly topFiles: number;
  readonly walk: Walk;
  /** The whole tree, once the walk is done. */
  tree: ScanTree | undefined;
  /** Date.now() when it was done. */
  endedAt: number | undefined;
  lastUsed: number;
}

const kept: KeptWalk[] = [];

/** `path` relative to `root`, or undefined when it is not `root` or below it (by name: the walk did not follow symlinks). */
function below(root: string, path: string): string | undefined {
  if (path === root) return '';
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

function drop(entry: KeptWalk): void {
  const at = kept.indexOf(entry);
  if (at >= 0) kept.splice(at, 1);
  entry.walk.release();
}

// A mount or unmount at, below or above a kept walk's start changes what its tree says: drop that walk.
onMountEvent((event) => {
  if (event.type !== 'mounts-changed') return;
  const changed = [...event.added, ...event.removed];
  for (const entry of [...kept]) {
    if (changed.some((mountPoint) => below(entry.root, mountPoint) !== undefined || below(mountPoint, entry.root) !== undefined)) drop(entry);
  }
});

/**
 * A kept walk that holds `path`, walked with the same oneFileSystem and at
 * least `topFiles` files a directory: a finished one whose tree has that
 * directory (with its node), or one still running from `path` or above it
 * (node undefined until it is done). Expired walks are dropped on the way.
 */
export function findKeptWalk(path: string, oneFileSystem: boolean, topFiles: number): { kept: KeptWalk; node: number | undefined } | undefined {
  const now = Date.now();
  for (const entry of [...kept]) {
    if (entry.endedAt !== undefined && now - entry.endedAt > KEEP_MS) drop(entry);
  }
  // The nearest root first (its tree is the smallest that answers); of two with the same root, the newer.
  const candidates = kept
    .map((entry, order) => ({ entry, order }))
    .filter(({ entry }) => entry.oneFileSystem === oneFileSystem && entry.topFiles >= topFiles && below(entry.root, path) !== undefined)
    .sort((a, b) => b.entry.root.length - a.entry.root.length || b.order - a.order)
    .map(({ entry }) => entry);
  for (const entry of candidates) {
    const relative = below(entry.root, path)!;
    if (entry.tree === undefined) {
      entry.lastUsed = now;
      return { kept: entry, node: undefined };
    }
    const node = entry.tree.find(relative);
    if (node === undefined || !entry.tree.counted(node)) continue;
    entry.lastUsed = now;
    return { kept: entry, node };
  }
  return undefined;
}

/**
 * Keeps `walk` (running or done), dropping the kept walks it makes stale
 * (a walk of the same start or below it, with the same oneFileSystem: a
 * `fresh` walk must answer from now on, not the one it replaced) and the
 * least recently used past the bounds.
 */
export function keepWalk(entry: Omit<KeptWalk, 'lastUsed'>): KeptWalk {
  for (const older of [...kept]) {
    // A walk still running may have a caller waiting on it: it stays, and the newer one is found first (below).
    if (older.tree !== undefined && older.oneFileSystem === entry.oneFileSystem && below(entry.root, older.root) !== undefined) drop(older);
  }
  const added: KeptWalk = { ...entry, lastUsed: Date.now() };
  kept.push(added);
  trim();
  return added;
}

/** A kept walk is done: its tree is what it answers from now on, as old as the walk's end. */
export function walkFinished(entry: KeptWalk, tree: ScanTree): void {
  entry.tree = tree;
  entry.endedAt = entry.walk.endedAt ?? Date.now();
  trim();
}

/** Forgets a kept walk (one that stalled), releasing it. */
export function forgetWalk(entry: KeptWalk): void {
  drop(entry);
}

function trim(): void {
  const byUse = [...kept].sort((a, b) => a.lastUsed - b.lastUsed);
  let nodes = kept.reduce((sum, entry) => sum + (entry.tree?.nodeCount ?? 0), 0);
  for (const entry of byUse) {
    if (kept.length <= MAX_WALKS && nodes <= MAX_NODES) break;
    if (entry.tree === undefined && kept.length <= MAX_WALKS) continue; // a running walk stays while it fits
    nodes -= entry.tree?.nodeCount ?? 0;
    drop(entry);
  }
}
