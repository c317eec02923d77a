// directoryUsage(): what fills a directory. Answers from a kept walk when one
// holds the directory, else walks it (on the addon's threads, or in the
// fallback's helper process), within the caller's deadline and signal, and
// never hangs: a walk that stalls on directories that do not answer is given
// up, the mounts holding them marked stuck, so the next walk skips them.
import { resolve } from 'node:path';

import {
  abortError,
  codeError,
  codeNameError,
  type OptionNames,
  timeoutError,
  validateOptions,
  validatePath,
  validateSignal,
  validateTimeout,
} from '../probe/errors.js';
import { mountHolding } from '../probe/walkSupport.js';
import { findKeptWalk, forgetWalk, type KeptWalk, keepWalk, walkFinished } from './keptWalks.js';
import { mountsFor, runWalk, startFailure, startWalk } from './runWalk.js';
import type { ScanTree } from './scanTree.js';
import { summarize } from './summarize.js';
import type { DirectoryUsage, DirectoryUsageOptions } from './types.js';
import { STALL_MS } from './walk.js';

const DEFAULT_DEPTH = 1;
const DEFAULT_TOP = 10;
const MAX_TOP = 1000;
const MAX_DEPTH = 64;
const MAX_THREADS = 64;
/** Errors and unfinished directories named in an answer. */
const LISTED = 10;
/** Errors kept by a walk with their names. */
const MAX_ERRORS = 100;

interface Settings {
  readonly depth: number;
  readonly top: number;
  readonly oneFileSystem: boolean;
  readonly fresh: boolean;
  readonly apparent: boolean;
  readonly bigint: boolean;
  readonly timeout: number;
  readonly stallTimeout: number;
  readonly threads: number | undefined;
  readonly signal: DirectoryUsageOptions['signal'];
  readonly onProgress: DirectoryUsageOptions['onProgress'];
}

const OPTIONS: OptionNames<DirectoryUsageOptions> = {
  depth: true,
  top: true,
  oneFileSystem: true,
  fresh: true,
  apparent: true,
  timeout: true,
  stallTimeout: true,
  signal: true,
  onProgress: true,
  bigint: true,
  threads: true,
};

function wholeNumber(value: unknown, name: string, min: number, max: number, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') {
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.${name}" property must be of type number. Received ${typeof value}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw codeError(
      RangeError,
      'ERR_OUT_OF_RANGE',
      `The value of "options.${name}" is out of range. It must be an integer from ${min} to ${max}. Received ${String(value)}`,
    );
  }
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.${name}" property must be of type boolean. Received ${typeof value}`);
  return value;
}

/** `stallTimeout`: a finite timeout (as diskUsage's `timeout`), STALL_MS by default. */
function stallTimeoutOf(value: unknown): number {
  const stall = validateTimeout(value, 'stallTimeout') ?? STALL_MS;
  if (stall === Infinity) {
    throw codeError(
      RangeError,
      'ERR_OUT_OF_RANGE',
      'The value of "options.stallTimeout" is out of range. It must be finite: a walk that waits forever on a dead mount never answers',
    );
  }
  return stall;
}

function settingsOf(given: DirectoryUsageOptions | null | undefined): Settings {
  const options = validateOptions(given, OPTIONS) ?? {};
  validateSignal(options.signal);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.onProgress" property must be of type function. Received ${typeof options.onProgress}`);
  }
  return {
    depth: wholeNumber(options.depth, 'depth', 0, MAX_DEPTH, DEFAULT_DEPTH)!,
    top: wholeNumber(options.top, 'top', 0, MAX_TOP, DEFAULT_TOP)!,
    oneFileSystem: flag(options.oneFileSystem, 'oneFileSystem'),
    fresh: flag(options.fresh, 'fresh'),
    apparent: flag(options.apparent, 'apparent'),
    bigint: flag(options.bigint, 'bigint'),
    timeout: validateTimeout(options.timeout) ?? Infinity,
    stallTimeout: stallTimeoutOf(options.stallTimeout),
    threads: wholeNumber(options.threads, 'threads', 1, MAX_THREADS, undefined),
    signal: options.signal,
    onProgress: options.onProgress,
  };
}

function answerFrom(tree: ScanTree, node: number, settings: Settings, ageMs: number): DirectoryUsage<number | bigint> {
  return summarize(tree, node, { depth: settings.depth, top: settings.top, apparent: settings.apparent, bigint: settings.bigint, listed: LISTED, ageMs });
}

/**
 * The walk of `path`, or of a kept walk that holds it. With `keepWalking`,
 * a walk past `timeout` is left running (and kept) rather than stopped, so
 * that a later call answers from it: the MCP tool's budget.
 */
async function directoryUsageOf(path: string, settings: Settings, keepWalking: boolean, keep = true): Promise<DirectoryUsage<number | bigint>> {
  validatePath(path);
  // As fs and diskUsage(): "" is no path, not the working directory.
  if (path === '') throw codeNameError('ENOENT', 'openat', path);
  const absolute = resolve(path);
  if (settings.signal?.aborted) throw abortError(settings.signal);
  // Reads the mount table (a change drops the kept walks), and fails fast on a stuck mount.
  const holding = mountHolding(absolute);
  if (holding?.stuck) throw timeoutError(absolute, holding.mountPoint, settings.stallTimeout); // as a probe of it would
  const topFiles = Math.max(settings.top, DEFAULT_TOP);
  let entry: KeptWalk | undefined;
  if (!settings.fresh && keep) {
    const found = findKeptWalk(absolute, settings.oneFileSystem, topFiles);
    if (found?.kept.tree !== undefined && found.node !== undefined) {
      return answerFrom(found.kept.tree, found.node, settings, Date.now() - found.kept.endedAt!);
    }
    entry = found?.kept;
  }
  let root = absolute;
  // Whether this call started the walk it answers from: then the answer is new (ageMs 0).
  const own = entry === undefined;
  if (entry === undefined) {
    const walk = await startWalk(absolute, {
      threads: settings.threads,
      oneFileSystem: settings.oneFileSystem,
      keepFiles: false,
      topFiles,
      maxErrors: MAX_ERRORS,
      mounts: mountsFor(absolute),
    });
    const made = { root: absolute, oneFileSystem: settings.oneFileSystem, topFiles, walk, tree: undefined, endedAt: undefined };
    entry = keep ? keepWalk(made) : { ...made, lastUsed: Date.now() };
  } else {
    root = entry.root;
  }
  let outcome: Awaited<ReturnType<typeof runWalk>>;
  try {
    outcome = await runWalk(entry.walk, {
      timeoutMs: settings.timeout,
      stallMs: settings.stallTimeout,
      signal: settings.signal,
      onProgress: settings.onProgress,
      keepWalking,
    });
  } catch (error) {
    // Cancelled: the walk stops within one call of each thread, and its memory goes as they return.
    forgetWalk(entry);
    throw error;
  }
  const { tree, done, stalled } = outcome;
  if (!keep) return answerOnce(entry, tree, settings);
  if (done) {
    walkFinished(entry, tree);
  } else if (stalled || !keepWalking) {
    forgetWalk(entry);
  }
  const failed = startFailure(tree);
  if (failed) {
    forgetWalk(entry);
    throw failed;
  }
  const node = tree.find(absolute === root ? '' : absolute.slice(root.length + (root.endsWith('/') || root.endsWith('\\') ? 0 : 1)));
  if (node !== undefined) return answerFrom(tree, node, settings, own || !done ? 0 : Date.now() - (entry.endedAt ?? Date.now()));
  // A walk from above that has not reached it yet.
  if (!done && !stalled) return notReachedYet(absolute, tree, settings);
  throw codeNameError('ENOENT', 'openat', absolute); // not a directory the walk met
}

/** The answer of a walk made for one call and kept by none, freed once it is read. */
function answerOnce(entry: KeptWalk, tree: ScanTree, settings: Settings): DirectoryUsage<number | bigint> {
  try {
    const failed = startFailure(tree);
    if (failed) throw failed;
    return answerFrom(tree, tree.find('')!, settings, 0);
  } finally {
    entry.walk.release();
  }
}

/** What a continuing walk from above can say of a directory it has not reached yet: nothing but that. */
function notReachedYet(path: string, tree: ScanTree, settings: Settings): DirectoryUsage<number | bigint> {
  const zero = settings.bigint ? 0n : 0;
  return {
    path,
    allocated: zero,
    apparent: zero,
    files: zero,
    directories: zero,
    children: [],
    directoriesHoldingMost: [],
    largestFiles: [],
    errors: { count: 0, first: [] },
    skipped: [],
    unfinished: { count: 1, first: [path] },
    complete: false,
    scannedAt: new Date(tree.startedAt).toISOString(),
    elapsedMs: Math.round(tree.elapsedMs),
    ageMs: 0,
    backend: tree.backend,
  };
}

/**
 * What fills the directory at `path`: its allocated and apparent bytes,
 * files and directories, its children to `depth`, and the largest
 * directories and files below it. Exact: each inode counted once, symlinks
 * never followed. A walk made for this call, or a kept one (see docs/du.md).
 * Rejects, with an fs-style error, only when `path` itself cannot be read.
 */
export function directoryUsage(path: string, options: DirectoryUsageOptions & { bigint: true }): Promise<DirectoryUsage<bigint>>;
export function directoryUsage(path: string, options?: (DirectoryUsageOptions & { bigint?: false }) | null): Promise<DirectoryUsage<number>>;
export function directoryUsage(path: string, options?: DirectoryUsageOptions | null): Promise<DirectoryUsage<number> | DirectoryUsage<bigint>>;
export async function directoryUsage(path: string, options?: DirectoryUsageOptions | null): Promise<DirectoryUsage<number> | DirectoryUsage<bigint>> {
  return (await directoryUsageOf(path, settingsOf(options), false)) as DirectoryUsage<number> | DirectoryUsage<bigint>;
}

/**
 * As directoryUsage(), for a caller with a budget that asks again (the MCP
 * tool): past `budgetMs` it answers with what the walk has found so far,
 * `complete: false`, and the walk goes on; the next call for a directory in
 * it waits on that walk, or answers from it once it is done.
 */
export async function directoryUsageWithin(
  path: string,
  budgetMs: number,
  options?: DirectoryUsageOptions | null,
): Promise<DirectoryUsage<number> | DirectoryUsage<bigint>> {
  const settings = { ...settingsOf(options), timeout: budgetMs };
  return (await directoryUsageOf(path, settings, true)) as DirectoryUsage<number> | DirectoryUsage<bigint>;
}

/**
 * As directoryUsage(), with a walk that no later call answers from, and
 * that takes no kept walk's place: for a tree seen through a path that
 * means nothing after this call (explain's detached mounts, /proc/self/fd/N).
 */
export async function directoryUsageOnce(path: string, options: DirectoryUsageOptions & { bigint: true }): Promise<DirectoryUsage<bigint>> {
  return (await directoryUsageOf(path, { ...settingsOf(options), fresh: true }, false, false)) as DirectoryUsage<bigint>;
}

/**
 * What a finished kept walk (du -x) says of `path`, without walking: for a
 * tool that can then say how far df's Used is from what the files hold.
 * Undefined when no finished walk holds it.
 */
export function keptDirectoryUsage(path: string): DirectoryUsage<number> | undefined {
  const found = findKeptWalk(resolve(path), true, DEFAULT_TOP);
  if (found?.kept.tree === undefined || found.node === undefined) return undefined;
  return answerFrom(found.kept.tree, found.node, settingsOf({ depth: 0 }), Date.now() - found.kept.endedAt!) as DirectoryUsage<number>;
}
