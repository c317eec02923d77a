// directory_usage: what fills a directory, for a model to read. The walk
// runs within the call's budget (--walk-budget, default 20 s): past it, the
// answer says first that it is partial, then what was found so far and
// "call again", and the walk goes on, so that a later call answers from the
// finished tree. Drilling down (/, then /var, then /var/lib) answers from
// the kept walk, at once. The text stays within TEXT_BUDGET however large
// the tree.

import { DIRECTORY_VIEW } from '../../../apps/appViews.js';
import { counted } from '../../../format/counted.js';
import { humanSize } from '../../../format/humanSize.js';
import { diskUsage } from '../../../index.js';
import { directoryUsageWithin } from '../../../scan/directoryUsage.js';
import type { DirectoryEntry, DirectoryUsage } from '../../../scan/types.js';
import type { Tool, ToolContext, ToolResult } from '../../protocol/tool.js';
import { ABSOLUTE_PATH_PATTERN } from '../absolutePath.js';
import { dfGapNote } from './dfGap.js';
import { probeFailure } from './probeFailure.js';

/** Bytes of text an answer holds at most, and about as many of structuredContent's subdirectories. */
const TEXT_BUDGET = 16 * 1024;
const MAX_DEPTH = 3;
const MAX_TOP = 50;

const SIZES = {
  allocated: { type: 'integer', minimum: 0, description: 'Bytes on disk (st_blocks × 512 summed, each inode once; du)' },
  apparent: { type: 'integer', minimum: 0, description: 'Bytes of content (st_size summed, each inode once; du --apparent-size)' },
} as const;
const COUNTS = {
  files: { type: 'integer', minimum: 0, description: 'Entries that are not directories, each inode once' },
  directories: { type: 'integer', minimum: 0, description: 'Directories, this one included' },
} as const;

const CHILD_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    path: { type: 'string' },
    ...SIZES,
    ...COUNTS,
    complete: { type: 'boolean', description: 'Every directory in it was listed' },
    children: { type: 'array', description: 'Its own largest subtrees, to the depth asked for', items: { type: 'object' } },
    others: { type: 'object', description: 'Its subdirectories past the largest `top`: how many, and their sizes' },
  },
  required: ['name', 'path', 'allocated', 'apparent', 'files', 'directories', 'complete', 'children'],
} as const;

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The directory reported on, absolute' },
    ...SIZES,
    ...COUNTS,
    children: {
      type: 'array',
      description: 'Its largest subtrees: its subdirectories ranked by everything below each, `top` of them, largest first',
      items: CHILD_SCHEMA,
    },
    others: {
      type: 'object',
      description: 'Its subdirectories past the largest `top`: how many, and what they add up to',
      properties: { count: { type: 'integer', minimum: 0 }, ...SIZES },
      required: ['count', 'allocated', 'apparent'],
    },
    directoriesHoldingMost: {
      type: 'array',
      description: 'The directories holding the most: anywhere below, ranked by the bytes of the files directly in each, subdirectories not counted',
      items: { type: 'object', properties: { path: { type: 'string' }, ...SIZES, files: COUNTS.files }, required: ['path', 'allocated', 'apparent', 'files'] },
    },
    largestFiles: {
      type: 'array',
      description: 'The largest files anywhere below',
      items: { type: 'object', properties: { path: { type: 'string' }, ...SIZES }, required: ['path', 'allocated', 'apparent'] },
    },
    errors: {
      type: 'object',
      description: 'What could not be read (not counted): how many, and the first few',
      properties: {
        count: { type: 'integer', minimum: 0 },
        first: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
            required: ['path', 'code', 'message'],
          },
        },
      },
      required: ['count', 'first'],
    },
    skipped: { type: 'array', description: 'Mount points not entered: a probe of them has not returned', items: { type: 'string' } },
    unfinished: {
      type: 'object',
      description: 'Directories not listed yet: how many, and the first few',
      properties: { count: { type: 'integer', minimum: 0 }, first: { type: 'array', items: { type: 'string' } } },
      required: ['count', 'first'],
    },
    complete: { type: 'boolean', description: 'Every directory was listed; false: call again for the rest' },
    scannedAt: { type: 'string', description: 'When the walk that answers started (ISO 8601)' },
    elapsedMs: { type: 'integer', minimum: 0, description: 'Milliseconds the walk took, or has taken so far' },
    ageMs: { type: 'integer', minimum: 0, description: 'Milliseconds since that walk ended: 0 for a walk made for this call' },
  },
  required: ['path', 'allocated', 'apparent', 'files', 'directories', 'children', 'largestFiles', 'complete'],
} as const;

/** What a level's subdirectories past the `top` largest add up to. */
interface Others {
  readonly count: number;
  readonly allocated: number;
  readonly apparent: number;
}

type ShownEntry = Omit<DirectoryEntry, 'children'> & { readonly children: readonly ShownEntry[]; readonly others?: Others };

/** Each level's `top` largest subdirectories (they come largest first), and what the rest add up to. */
function shown(entries: readonly DirectoryEntry[], top: number): { children: ShownEntry[]; others: Others | undefined } {
  const kept = entries.slice(0, top).map((entry) => {
    const below = shown(entry.children, top);
    return { ...entry, children: below.children, ...(below.others && { others: below.others }) };
  });
  const rest = entries.slice(top);
  if (rest.length === 0) return { children: kept, others: undefined };
  return {
    children: kept,
    others: {
      count: rest.length,
      allocated: rest.reduce((sum, entry) => sum + entry.allocated, 0),
      apparent: rest.reduce((sum, entry) => sum + entry.apparent, 0),
    },
  };
}

function share(part: number, whole: number): string {
  if (whole === 0) return '0%';
  const percent = (100 * part) / whole;
  return percent >= 10 || percent === 0 ? `${Math.round(percent)}%` : `${percent.toFixed(1)}%`;
}

/** An entry of the shown tree, flattened with what holds it (undefined: the directory asked about). */
interface Placed {
  readonly entry: ShownEntry;
  readonly parent: Placed | undefined;
  readonly depth: number;
  kept: boolean;
}

/**
 * The shown tree cut to about `budget` bytes of JSON: subdirectories are
 * kept largest first, anywhere in the tree (a parent is never smaller than
 * what it holds, so it comes first), and those left out are added to their
 * parent's `others`. An answer of bounded size, however many levels and
 * directories were asked for.
 */
function withinBudget(
  children: readonly ShownEntry[],
  others: Others | undefined,
  budget: number,
  apparent: boolean,
): { children: ShownEntry[]; others: Others | undefined } {
  const placed: Placed[] = [];
  const walk = (entries: readonly ShownEntry[], parent: Placed | undefined, depth: number): void => {
    for (const entry of entries) {
      const at: Placed = { entry, parent, depth, kept: false };
      placed.push(at);
      walk(entry.children, at, depth + 1);
    }
  };
  walk(children, undefined, 0);
  const size = (entry: { allocated: number; apparent: number }): number => (apparent ? entry.apparent : entry.allocated);
  let spent = 0;
  for (const at of [...placed].sort((a, b) => size(b.entry) - size(a.entry) || a.depth - b.depth)) {
    if (at.parent !== undefined && !at.parent.kept) continue;
    const { children: _children, others: _others, ...own } = at.entry;
    spent += Buffer.byteLength(JSON.stringify(own)) + 40;
    if (spent > budget) break;
    at.kept = true;
  }
  const byParent = new Map<Placed | undefined, Placed[]>();
  for (const at of placed) {
    const siblings = byParent.get(at.parent);
    if (siblings === undefined) byParent.set(at.parent, [at]);
    else siblings.push(at);
  }
  const rebuild = (parent: Placed | undefined, given: Others | undefined): { children: ShownEntry[]; others: Others | undefined } => {
    const kept: ShownEntry[] = [];
    let left: Others | undefined = given;
    for (const at of byParent.get(parent) ?? []) {
      if (at.kept) {
        const below = rebuild(at, at.entry.others);
        const { others: _others, ...rest } = at.entry;
        kept.push({ ...rest, children: below.children, ...(below.others && { others: below.others }) });
      } else {
        left = {
          count: (left?.count ?? 0) + 1,
          allocated: (left?.allocated ?? 0) + at.entry.allocated,
          apparent: (left?.apparent ?? 0) + at.entry.apparent,
        };
      }
    }
    return { children: kept, others: left };
  };
  return rebuild(undefined, others);
}

type ShownUsage = Omit<DirectoryUsage, 'children' | 'backend'> & { children: readonly ShownEntry[]; others?: Others | undefined };

/**
 * The first line: the totals, said first to be partial when they are (issue
 * 27: a model may read no further), "found so far" while the walk goes on.
 */
function headLine(usage: ShownUsage): string {
  const age = usage.ageMs > 0 ? `; walked ${Math.round(usage.ageMs / 1000)} s ago` : '';
  const walking = !usage.complete && usage.unfinished.count > 0;
  const totals =
    `${humanSize(usage.allocated)} on disk${walking ? ' found so far' : ''}, ${humanSize(usage.apparent)} apparent, ` +
    `${counted(usage.files, 'file')}, ${counted(usage.directories, 'directory', 'directories')} (walk ${(usage.elapsedMs / 1000).toFixed(1)} s${age})`;
  if (usage.complete) return `${usage.path}: ${totals}.`;
  return `Partial: ${usage.path}: ${totals}; ${walking ? 'still walking, call again for the whole answer' : 'not every directory could be read'}.`;
}

/** The answer's text: the totals, the largest subtrees with their share, the largest files, what failed, and whether it is whole. */
function describeUsage(usage: ShownUsage, apparent: boolean): string {
  const size = (entry: { allocated: number; apparent: number }): number => (apparent ? entry.apparent : entry.allocated);
  const lines: string[] = [headLine(usage)];
  const children = (entries: readonly ShownEntry[], others: Others | undefined, parent: number, indent: string): void => {
    for (const child of entries) {
      lines.push(`${indent}${humanSize(size(child))}  ${share(size(child), parent)}  ${child.name}${child.complete ? '' : ' (incomplete)'}`);
      children(child.children, child.others, size(child), `${indent}  `);
    }
    if (others !== undefined) {
      lines.push(`${indent}${humanSize(size(others))}  ${share(size(others), parent)}  (${counted(others.count, 'more directory', 'more directories')})`);
    }
  };
  if (usage.children.length > 0) {
    lines.push(`Largest subtrees (${apparent ? 'apparent size' : 'on disk'}, share of ${usage.path}):`);
    children(usage.children, usage.others, size(usage), '  ');
  }
  if (usage.largestFiles.length > 0) {
    lines.push('Largest files:');
    for (const file of usage.largestFiles) lines.push(`  ${humanSize(size(file))}  ${file.path}`);
  }
  if (usage.errors.count > 0) {
    const first = usage.errors.first.map((error) => error.message).join('; ');
    lines.push(`Could not read ${counted(usage.errors.count, 'entry', 'entries')} (not counted), first: ${first}`);
  }
  if (usage.skipped.length > 0) lines.push(`Not entered, mounts that do not respond: ${usage.skipped.join(', ')}`);
  // What is left to walk, and where: kept at the end, whatever the budget cuts before it.
  const closing =
    !usage.complete && usage.unfinished.count > 0
      ? `Incomplete: still walking, ${counted(usage.unfinished.count, 'directory', 'directories')} to go ` +
        `(${usage.unfinished.first.slice(0, 3).join(', ')}…): call again for the whole answer.`
      : undefined;
  return fitText(lines, closing);
}

/** Whole lines up to TEXT_BUDGET bytes with a note of what was left out, then `closing`, which is always kept. */
function fitText(lines: readonly string[], closing: string | undefined): string {
  const last = closing === undefined ? '' : `${closing}\n`;
  const room = TEXT_BUDGET - 200 - Buffer.byteLength(last);
  let text = '';
  for (let i = 0; i < lines.length; i++) {
    const next = `${lines[i]}\n`;
    if (Buffer.byteLength(text) + Buffer.byteLength(next) > room) {
      const left = counted(lines.length - i, 'more line', 'more lines');
      return `${text}(${left} left out; ask with a smaller depth or top, or a deeper path)\n${last}`.trimEnd();
    }
    text += next;
  }
  return `${text}${last}`.trimEnd();
}

async function call(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const path = args.path as string;
  const { roots } = context;
  // By name first: a path outside the roots is never walked.
  if (!roots.allowsByName(path)) return { text: roots.refusal(path), isError: true };
  const apparent = args.apparent === true;
  const top = (args.top as number | undefined) ?? 10;
  let usage: DirectoryUsage;
  try {
    usage = (await directoryUsageWithin(path, context.walkBudgetMs, {
      depth: (args.depth as number | undefined) ?? 1,
      top,
      oneFileSystem: args.one_file_system !== false,
      fresh: args.fresh === true,
      apparent,
      signal: context.signal,
      // A directory that does not answer is given --probe-timeout, as a probe of it is.
      stallTimeout: context.probeTimeout,
      onProgress: ({ entries, allocated }) =>
        context.progress(entries, undefined, `walked ${counted(entries, 'entry', 'entries')}, ${humanSize(allocated)} so far`),
    })) as DirectoryUsage;
  } catch (error) {
    if ((error as Error | null)?.name === 'AbortError') throw error;
    return roots.allowsFailed(path, error) ? probeFailure(path, error, context.probeTimeout) : { text: roots.refusal(path), isError: true };
  }
  // Where it really is (a symlink on the way): judged once it has answered.
  if (!roots.allows(path)) return { text: roots.refusal(path), isError: true };
  const { backend: _backend, ...whole } = usage;
  // Each level's largest `top` subtrees, and what the others add up to: an answer of bounded size whatever the tree.
  const picked = shown(whole.children, top);
  // What is left of the budget once the rest of the answer (largest files, errors…) is counted.
  const rest = Buffer.byteLength(JSON.stringify({ ...whole, children: [] }));
  const { children, others } = withinBudget(picked.children, picked.others, Math.max(1024, TEXT_BUDGET - rest - 512), apparent);
  const structured = { ...whole, children, ...(others && { others }) };
  const text = describeUsage(structured, apparent);
  // A whole file system walked: when its files fall well short of df's Used, say where to look.
  if (usage.complete && args.one_file_system !== false) {
    const fs = await diskUsage(usage.path, { timeout: context.probeTimeout, signal: context.signal }).catch(() => undefined);
    const gap = fs?.mountPoint === usage.path ? dfGapNote(fs.used, usage.allocated, usage.path) : undefined;
    if (gap !== undefined) return { text: `${text}\n${gap}`, structured };
  }
  return { text, structured };
}

export const directoryUsageTool: Tool = {
  name: 'directory_usage',
  title: 'What fills a directory',
  view: DIRECTORY_VIEW,
  reportsProgress: true,
  description:
    'What takes the space inside a directory, as du and ncdu show it: bytes on disk and apparent, files and directories, ' +
    'its largest subtrees (subdirectories by everything below them) with their share, and the largest files anywhere below; ' +
    'structuredContent also lists the directories holding the most (by the files directly in them). Exact, each file counted once, symlinks not followed. ' +
    'A large tree takes a while: past the call budget the answer says so and the walk goes on; call again for the rest. ' +
    'Asking about a directory inside one walked before answers at once from that walk (fresh: true walks again).',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Absolute path of the directory, for example / or /var', pattern: ABSOLUTE_PATH_PATTERN },
      depth: { type: 'integer', minimum: 0, maximum: MAX_DEPTH, description: `Levels of subdirectories to list, 0 to ${MAX_DEPTH} (default 1)` },
      top: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_TOP,
        description: `How many largest subtrees (on each level), directories holding the most and largest files to list, 0 to ${MAX_TOP} (default 10)`,
      },
      apparent: { type: 'boolean', description: 'Rank by apparent size (bytes of content) rather than bytes on disk (default false)' },
      one_file_system: { type: 'boolean', description: 'Stay on the file system of the path, as du -x (default true)' },
      fresh: { type: 'boolean', description: 'Walk again even if a recent walk holds the directory (default false)' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: OUTPUT_SCHEMA,
  hints: { path: 'use an absolute path, such as "/" or "/var"' },
  call,
};
