// explainUsage(): df's Used for the file system holding a path, accounted
// for part by part (docs/explain.md): the files a walk sees, the deleted
// files still held, the files hidden under mount points, and the rest;
// beside it, the reserve df counts as neither used nor available. The parts
// are measured at once, each with the stall rule and the deadline, so that
// a part that does not answer is named and the rest still arrive on time.
import { resolve } from 'node:path';

import { abortError, codeError, type OptionNames, validateOptions, validatePath, validateSignal, validateTimeout } from '../probe/errors.js';
import { DEFAULT_TIMEOUT_MS } from '../probe/limits.js';
import type { MountEntry } from '../probe/mountEntry.js';
import type { MountTable } from '../probe/mountTable.js';
import { diskUsage } from '../probe/probe.js';
import { tables } from '../probe/runtime.js';
import { directoryUsage, directoryUsageWithin } from '../scan/directoryUsage.js';
import type { DirectoryUsage, WalkProgress } from '../scan/types.js';
import { adviceFor } from './advice.js';
import { heldFiles, type Limits } from './heldFiles.js';
import { hiddenFiles } from './hiddenFiles.js';
import type { RawDeletedFile } from './measured.js';
import { numbered } from './numbered.js';
import { remainderOf } from './remainder.js';
import { reserveOf } from './reserve.js';
import type { ExplainOptions, ExplainProgress, ExplainUsage, Unseen } from './types.js';

const OPTIONS: OptionNames<ExplainOptions> = { timeout: true, stallTimeout: true, signal: true, onProgress: true, bigint: true };

interface Settings {
  readonly timeout: number;
  readonly stallTimeout: number;
  readonly signal: ExplainOptions['signal'];
  readonly onProgress: (progress: ExplainProgress) => void;
  readonly bigint: boolean;
  /** The MCP tool's budget: past it the walk answers with what it has and goes on, for the next call. */
  readonly walkBudgetMs: number | undefined;
}

function settingsOf(given: ExplainOptions | null | undefined, walkBudgetMs?: number): Settings {
  const options = validateOptions(given, OPTIONS) ?? {};
  validateSignal(options.signal);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.onProgress" property must be of type function. Received ${typeof options.onProgress}`);
  }
  if (options.bigint !== undefined && typeof options.bigint !== 'boolean') {
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.bigint" property must be of type boolean. Received ${typeof options.bigint}`);
  }
  return {
    timeout: validateTimeout(options.timeout) ?? Infinity,
    stallTimeout: validateTimeout(options.stallTimeout, 'stallTimeout') ?? DEFAULT_TIMEOUT_MS,
    signal: options.signal,
    onProgress: options.onProgress ?? (() => {}),
    bigint: options.bigint ?? false,
    walkBudgetMs,
  };
}

/** The mount df names for `mountPoint`: the last one mounted there (it covers the others). */
function visibleMount(table: MountTable, mountPoint: string): MountEntry | undefined {
  let found: MountEntry | undefined;
  for (const entry of table.entries) if (entry.mountPoint === mountPoint) found = entry;
  return found;
}

/**
 * Where to walk the whole file system from: its own mount, unless that is a
 * bind mount of a subdirectory (mountinfo's root is not "/"), then a mount
 * of its root if this namespace has one.
 */
function walkRoot(table: MountTable, target: MountEntry): { from: string; unseen: Unseen[] } {
  if (target.root === '/') return { from: target.mountPoint, unseen: [] };
  const whole = table.entries.find((entry) => entry.deviceKey === target.deviceKey && entry.root === '/');
  if (whole) return { from: whole.mountPoint, unseen: [] };
  return {
    from: target.mountPoint,
    unseen: [{ part: 'visible', reason: `only ${target.root} of this file system is mounted here (a bind mount): files outside it are not visible to a walk` }],
  };
}

function walkUnseen(walk: DirectoryUsage<bigint>): Unseen[] {
  const unseen: Unseen[] = [];
  if (walk.errors.count > 0) {
    const first = walk.errors.first[0];
    const denied = walk.errors.first.some((error) => error.code === 'EACCES');
    unseen.push({
      part: 'visible',
      reason: `${walk.errors.count} entries could not be read${first ? ` (first: ${first.code} ${first.path})` : ''}${denied ? ': run as root to see them' : ''}`,
    });
  }
  if (walk.unfinished.count > 0)
    unseen.push({ part: 'visible', reason: `the walk did not finish: ${walk.unfinished.count} directories not listed yet (call again)` });
  if (walk.skipped.length > 0)
    unseen.push({ part: 'visible', reason: `mount points not entered, their probe has not returned: ${walk.skipped.slice(0, 3).join(', ')}` });
  return unseen;
}

async function visibleWalk(from: string, settings: Settings, limits: Limits): Promise<DirectoryUsage<bigint> | Unseen> {
  const options = {
    bigint: true,
    oneFileSystem: true,
    depth: 0,
    stallTimeout: settings.stallTimeout,
    ...(settings.signal && { signal: settings.signal }),
    onProgress: (progress: WalkProgress) => settings.onProgress({ part: 'visible', ...progress }),
  } as const;
  try {
    if (settings.walkBudgetMs !== undefined) {
      return (await directoryUsageWithin(from, Math.min(settings.walkBudgetMs, settings.timeout), options)) as DirectoryUsage<bigint>;
    }
    return await directoryUsage(from, { ...options, timeout: Math.max(1, limits.deadline - performance.now()) });
  } catch (error) {
    if ((error as { name?: string }).name === 'AbortError') throw error;
    return { part: 'visible', reason: `the walk of ${from} failed: ${(error as Error).message}` };
  }
}

function descending(a: bigint, b: bigint): number {
  return b > a ? 1 : b < a ? -1 : 0;
}

/** Deleted files, most bytes on disk first; the unsized by their size. */
function largestFirst(a: RawDeletedFile, b: RawDeletedFile): number {
  return descending(a.sized ? a.allocated : a.size, b.sized ? b.allocated : b.size);
}

async function explain(path: string, settings: Settings): Promise<ExplainUsage<number> | ExplainUsage<bigint>> {
  validatePath(path);
  const started = performance.now();
  const absolute = resolve(path);
  if (settings.signal?.aborted) throw abortError(settings.signal);
  const usage = await diskUsage(absolute, {
    bigint: true,
    timeout: Math.min(settings.stallTimeout, settings.timeout),
    ...(settings.signal && { signal: settings.signal }),
  });
  const table = tables.fresh();
  const target = usage.mountPoint === null ? undefined : visibleMount(table, usage.mountPoint);
  if (target === undefined) throw codeError(Error, 'ENOENT', `no mount table names the file system holding ${absolute}: there is nothing to walk it from`);
  const limits: Limits = { deadline: started + settings.timeout, stallMs: settings.stallTimeout, signal: settings.signal };
  const root = walkRoot(table, target);

  const [walk, held, hidden] = await Promise.all([
    visibleWalk(root.from, settings, limits),
    heldFiles(table, target, limits),
    hiddenFiles(table, target, limits, settings.onProgress),
  ]);
  const reserve = reserveOf(target, usage.free, usage.available, usage.blockSize);

  const visible = 'part' in walk ? null : walk.allocated;
  const deletedBytes = held.files?.reduce((sum, file) => sum + (file.sized ? file.allocated : 0n), 0n) ?? null;
  const hiddenBytes = hidden.mounts?.reduce((sum, mount) => sum + (mount.bytes ?? 0n), 0n) ?? null;
  const unseen = [...root.unseen, ...('part' in walk ? [walk] : walkUnseen(walk)), ...held.unseen, ...hidden.unseen, ...reserve.unseen];
  const result = {
    path: absolute,
    mountPoint: target.mountPoint,
    walkedFrom: root.from,
    fsType: target.fsType,
    blockSize: usage.blockSize,
    used: usage.used,
    available: usage.available,
    reserved: reserve.reserved,
    reservedByFileSystem: reserve.reservedByFileSystem,
    visible,
    walkComplete: !('part' in walk) && walk.complete,
    deletedOpen: held.files === null || deletedBytes === null ? null : { bytes: deletedBytes, files: held.files.sort(largestFirst) },
    hidden:
      hidden.mounts === null || hiddenBytes === null
        ? null
        : { bytes: hiddenBytes, mounts: hidden.mounts.sort((a, b) => descending(a.bytes ?? 0n, b.bytes ?? 0n)) },
    unexplained: usage.used - (visible ?? 0n) - (deletedBytes ?? 0n) - (hiddenBytes ?? 0n),
    remainder: remainderOf(target.fsType),
    unseen,
    complete: unseen.length === 0,
  };
  return numbered({ ...result, advice: adviceFor(result), elapsedMs: Math.round(performance.now() - started) }, settings.bigint);
}

/**
 * Why df and du disagree, for the file system holding `path`: df's Used
 * split into what a walk sees, deleted files still held, files hidden under
 * mount points and the rest, with the reserve beside it and what to do
 * about each part. A part it could not measure is null, and `unseen` says
 * why. Rejects only when the file system itself cannot be probed.
 */
export function explainUsage(path: string, options: ExplainOptions & { bigint: true }): Promise<ExplainUsage<bigint>>;
export function explainUsage(path: string, options?: (ExplainOptions & { bigint?: false }) | null): Promise<ExplainUsage<number>>;
export function explainUsage(path: string, options?: ExplainOptions | null): Promise<ExplainUsage<number> | ExplainUsage<bigint>>;
export async function explainUsage(path: string, options?: ExplainOptions | null): Promise<ExplainUsage<number> | ExplainUsage<bigint>> {
  // Inside the promise: a bad option rejects, as a bad path does (and as directoryUsage's do).
  return explain(path, settingsOf(options));
}

/**
 * As explainUsage(), for a caller with a budget that asks again (the MCP
 * tool): past `budgetMs` the walk answers with what it has found so far and
 * goes on, and the next call answers from it.
 */
export async function explainUsageWithin(
  path: string,
  budgetMs: number,
  options?: ExplainOptions | null,
): Promise<ExplainUsage<number> | ExplainUsage<bigint>> {
  return explain(path, settingsOf(options, budgetMs));
}
