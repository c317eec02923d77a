// `diskprobe du --json`: for each operand, what directoryUsage() answers for
// it (src/scan/types.ts, DirectoryUsage), from the walk the command made,
// with exact integers (exactJson.ts). Paths are named as directoryUsage()
// names them: the operand made absolute, then the names below it.
import { ScanTree } from '../../scan/scanTree.js';
import { summarize } from '../../scan/summarize.js';
import type { DirectoryUsage } from '../../scan/types.js';

/** Levels of children at most: deeper, the answer would be the whole tree twice over. */
const MAX_DEPTH = 64;
/** Errors and unfinished directories named, as directoryUsage() names them. */
const LISTED = 10;

export interface JsonFormat {
  /** Levels of `children` (-d; 1 by default, 0 with -s). */
  readonly depth: number;
  readonly top: number;
  readonly apparent: boolean;
}

/** `text` with the walk's own name for the operand (`from`) put back as the operand's (`to`), wherever a path starts with it. */
function renamed(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') {
    if (value === from || value.startsWith(`${from}/`)) return to + value.slice(from.length);
    return value.replaceAll(`'${from}/`, `'${to}/`).replaceAll(`'${from}'`, `'${to}'`);
  }
  if (Array.isArray(value)) return value.map((item) => renamed(item, from, to));
  if (value !== null && typeof value === 'object' && typeof value !== 'bigint') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, renamed(member, from, to)]));
  }
  return value;
}

/**
 * The answer for an operand whose walk is `tree`, started at `walkPath`,
 * named `absolute`. Threads that never took a directory are not work in
 * progress (the walk reports them as being on its start).
 */
export function jsonEntry(tree: ScanTree, walkPath: string, absolute: string, format: JsonFormat): DirectoryUsage<bigint> {
  const inProgress = tree.data.inProgress.filter((entry) => entry.dir !== 0 || entry.name.length > 0);
  const cleaned = new ScanTree({ ...tree.data, inProgress }, tree.startedAt, tree.elapsedMs, tree.backend, tree.syscalls);
  const usage = summarize(cleaned, 0, {
    depth: Math.min(format.depth, MAX_DEPTH),
    top: format.top,
    apparent: format.apparent,
    bigint: true,
    listed: LISTED,
    ageMs: 0,
  }) as DirectoryUsage<bigint>;
  const from = walkPath.length > 1 && walkPath.endsWith('/') ? walkPath.slice(0, -1) : walkPath;
  return from === absolute ? usage : (renamed(usage, from, absolute) as DirectoryUsage<bigint>);
}

/** The answer for an operand that could not even be looked up: nothing counted, the reason as its one error. */
export function failedEntry(absolute: string, code: string, message: string, backend: DirectoryUsage['backend']): DirectoryUsage<bigint> {
  return {
    path: absolute,
    allocated: 0n,
    apparent: 0n,
    files: 0n,
    directories: 0n,
    children: [],
    directoriesHoldingMost: [],
    largestFiles: [],
    errors: { count: 1, first: [{ path: absolute, code, syscall: 'realpath', message }] },
    skipped: [],
    unfinished: { count: 0, first: [] },
    complete: false,
    scannedAt: new Date().toISOString(),
    elapsedMs: 0,
    ageMs: 0,
    backend,
  };
}
