// Where `diskprobe du` starts each walk, and how it names what it prints.
//
// du prints each path as fts builds it from the operand (gnulib's fts.c):
// the operand with a run of trailing slashes cut to one (fts_open), then a
// slash and a name per level below it (`du dir/` prints dir/sub, `du /`
// prints /bin). The walk itself needs an absolute path with the symlinks in
// the operand's directory resolved, as the kernel resolves them for du (a
// symlink as the last name is not followed, `du -P`, unless a slash follows
// it): that path is what the mount table is asked about, mount points below
// it included. Resolving it asks file systems, so this process does it only
// where the probe's inline check says the operand's directory resolves from
// the kernel's cache on a mount that cannot block; otherwise the worker
// process does it, within the deadline (see du.ts).
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';

import { diskUsageInline } from '../../probe/probe.js';
import { mountHolding, mountsBelow } from '../../probe/walkSupport.js';

export interface DuStart {
  readonly operand: string;
  /** How du names the operand in what it prints (raw bytes). */
  readonly display: Buffer;
  /** The absolute path the walk starts from (physical up to its last name). */
  readonly walkPath: string;
  /** The operand made absolute by name alone, as directoryUsage() reports it. */
  readonly absolute: string;
}

/** fts_open's name for an operand: a run of two or more trailing slashes cut to one ("a//" → "a/", "///" → "/"; "//" stays). */
function ftsRootName(operand: string): Buffer {
  const bytes = Buffer.from(operand, 'utf8');
  let length = bytes.length;
  if (length > 2 && bytes[length - 1] === 0x2f) {
    while (length > 1 && bytes[length - 2] === 0x2f) length--;
  }
  return bytes.subarray(0, length);
}

/**
 * What to resolve of `operand`: the whole of it when it ends in a slash or
 * in "." or ".." (the kernel follows those), else its directory, to which
 * its last name is then added unresolved.
 */
function resolvable(operand: string): { readonly path: string; readonly last: string | undefined } {
  const slash = operand.lastIndexOf('/');
  const last = operand.slice(slash + 1);
  if (last === '' || last === '.' || last === '..') return { path: operand, last: undefined };
  if (slash < 0) return { path: '.', last };
  return { path: operand.slice(0, slash) || '/', last };
}

function joined(directory: string, last: string | undefined): string {
  if (last === undefined) return directory;
  return directory.endsWith('/') ? directory + last : `${directory}/${last}`;
}

/** The operand made absolute by name, keeping a trailing slash (which makes the walk follow a symlink there). */
function lexical(operand: string): string {
  const absolute = resolve(operand);
  return operand.endsWith('/') && absolute !== '/' ? `${absolute}/` : absolute;
}

function startOf(operand: string, walkPath: string): DuStart {
  return { operand, display: ftsRootName(operand), walkPath, absolute: resolve(operand) };
}

/**
 * `operand`'s start, resolved on this thread, or undefined when resolving it
 * might block (its directory is not known to resolve from the cache on a
 * mount that keeps its answers in memory) and the worker must do it.
 */
export function startHere(operand: string): DuStart | undefined {
  // ".." after a symlink means something else to the kernel than to resolve(): the inline check would look elsewhere.
  if (operand.split('/').includes('..')) return undefined;
  const { path, last } = resolvable(operand);
  let inline: unknown;
  try {
    inline = diskUsageInline(resolve(path));
  } catch (error) {
    // Not there, not a directory, not ours to read: the walk's own stat says so at once, as du's does.
    if ((error as { code?: unknown }).code === 'ETIMEDOUT') return undefined;
    return startOf(operand, lexical(operand));
  }
  if (inline === undefined) return undefined;
  try {
    return startOf(operand, joined(realpathSync.native(path), last));
  } catch {
    return startOf(operand, lexical(operand));
  }
}

/**
 * `operand`'s start, resolved off this thread within `timeoutMs`; else
 * `late` (du's "cannot access" reason): a dead mount on the way.
 */
export async function startAnywhere(
  operand: string,
  timeoutMs: number,
  late: string,
): Promise<DuStart | { readonly operand: string; readonly reason: string }> {
  const { path, last } = resolvable(operand);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), Math.max(0, timeoutMs));
    timer.unref();
  });
  try {
    const resolved = await Promise.race([realpath(path), expired]);
    if (resolved === 'late') return { operand, reason: late };
    return startOf(operand, joined(resolved, last));
  } catch {
    return startOf(operand, lexical(operand));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a walk from `start` may meet a mount that can hang (network,
 * FUSE, automount) or one already found stuck: then it runs in the worker
 * process, which the command can leave behind. Only the mount table is read.
 */
export function mayBlock(start: DuStart): boolean {
  const holding = mountHolding(start.walkPath);
  if (holding !== undefined && (holding.mayHang || holding.stuck)) return true;
  return mountsBelow(start.walkPath).some((mount) => mount.mayHang || mount.stuck);
}
