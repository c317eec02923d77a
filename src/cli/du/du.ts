// `diskprobe du`: walks each operand in turn, on the walk's own threads
// (src/scan/), and prints what GNU du prints (duListing.ts), the largest
// directories and files (--top, duTop.ts), or exact JSON (--json).
//
// It never hangs: a walk that makes no progress for 5 s (a dead mount) or
// passes --timeout is stopped, and what it did not finish is named. And it
// exits on time: it walks in this process only when no mount under the
// operands may hang (runDuHere); otherwise in the worker process, which the
// command can leave behind (isolated.ts), as `diskprobe df` does.
import { resolve } from 'node:path';

import { counted } from '../../format/counted.js';
import { longDoublePrecision } from '../../format/extendedFloat.js';
import { HUMAN_1024 } from '../../format/humanReadable.js';
import { backend } from '../../probe/runtime.js';
import { mountsFor, runWalk, startWalk } from '../../scan/runWalk.js';
import type { DirectoryUsage } from '../../scan/types.js';
import { STALL_MS } from '../../scan/walk.js';
import { stringifyExact } from '../exactJson.js';
import type { DuOptions } from './duCommandLine.js';
import { ftsEntryRanks } from './duFtsOrder.js';
import { failedEntry, jsonEntry } from './duJson.js';
import { listTree, type UnfinishedReasons } from './duListing.js';
import { type DuOutput, DuWriter, duSizeText, quoteAlways } from './duOutput.js';
import { type DuStart, mayBlock, startAnywhere, startHere } from './duStart.js';
import { topReport } from './duTop.js';

export type { DuOptions } from './duCommandLine.js';
export type { DuOutput } from './duOutput.js';

/** Errors a walk keeps with their names: each is a line du prints. */
const MAX_ERRORS = 1_000_000;
/** Directories named as unfinished per operand; the rest are counted in one line. */
const UNFINISHED_NAMED = 20;
/** --json's depth without -d, as directoryUsage()'s. */
const JSON_DEPTH = 1;
/** How many directories holding the most and largest files --json lists without --top, as directoryUsage(). */
const JSON_TOP = 10;

type Resolved = DuStart | { readonly operand: string; readonly reason: string };
type Resolver = (operand: string, remainingMs: number) => Promise<Resolved>;

/** Why a walk left what it did not finish, in the words after "cannot read directory 'x': ". */
function reasonsFor(stalled: boolean, timeout: number | null): UnfinishedReasons {
  const cut = timeout === null ? 'the walk stopped' : `not finished within the --timeout of ${timeout} ms`;
  return {
    busy: stalled ? `not responding after ${STALL_MS} ms` : cut,
    waiting: stalled ? 'not read: the walk stopped at a directory that does not answer' : cut,
    skipped: 'not responding (a dead mount, skipped)',
  };
}

/**
 * Runs the command in this process if no mount under any operand may hang
 * and every operand resolves without blocking; else resolves to undefined,
 * having written nothing, and the worker runs it (runIsolated, isolated.ts).
 */
export async function runDuHere(options: DuOptions, output: DuOutput): Promise<number | undefined> {
  const operands = options.paths.length === 0 ? ['.'] : options.paths;
  const starts = new Map<string, DuStart>();
  for (const operand of operands) {
    if (operand === '' || starts.has(operand)) continue;
    const start = startHere(operand);
    if (start === undefined || mayBlock(start)) return undefined;
    starts.set(operand, start);
  }
  return run(options, output, async (operand) => starts.get(operand)!);
}

/** Least time given to resolve an operand, even past the deadline: a healthy one takes well under a millisecond. */
const RESOLVE_GRACE_MS = 100;

/** Runs the command wherever it is (the worker): resolving an operand may wait on a dead mount, and is given up in time. */
export function runDu(options: DuOptions, output: DuOutput): Promise<number> {
  return run(options, output, (operand, remainingMs) =>
    remainingMs < STALL_MS
      ? startAnywhere(operand, Math.max(remainingMs, RESOLVE_GRACE_MS), reasonsFor(false, options.timeout).busy)
      : startAnywhere(operand, STALL_MS, reasonsFor(true, options.timeout).busy),
  );
}

async function run(options: DuOptions, output: DuOutput, resolveStart: Resolver): Promise<number> {
  const blockSize = BigInt(options.numbers.blockSize);
  const sizeText = duSizeText(options.numbers.humanOptions, blockSize, longDoublePrecision());
  const writer = new DuWriter(output, sizeText, options.nul ? 0 : 0x0a, quoteAlways(options.utf8));
  // Counted from the command's start, not this process's: the worker starts a moment later.
  const deadline = options.timeout === null ? Infinity : performance.now() + (options.startedAt ?? Date.now()) + options.timeout - Date.now();
  const size = options.apparent ? 1 : 0;
  const maxDepth = options.maxDepth ?? Infinity;
  const listing = options.json || options.top !== null ? 'quiet' : 'lines';
  const topSizeText = options.sizesAsked ? sizeText : duSizeText(HUMAN_1024, 1n, longDoublePrecision());
  const json: DirectoryUsage<bigint>[] = [];
  let grandTotal = 0n;
  let seen = { entries: 0, allocated: 0 };
  let firstTop = true;

  for (const operand of options.paths.length === 0 ? ['.'] : options.paths) {
    if (operand === '') {
      writer.message('invalid zero-length file name');
      continue;
    }
    const start = await resolveStart(operand, deadline - performance.now());
    if ('reason' in start) {
      writer.complain('cannot access', Buffer.from(operand), start.reason);
      if (options.json) json.push(failedEntry(resolve(operand), 'ETIMEDOUT', start.reason, backend));
      continue;
    }
    const mounts = mountsFor(start.walkPath);
    const walk = await startWalk(start.walkPath, {
      threads: options.threads ?? undefined,
      oneFileSystem: options.oneFileSystem,
      keepFiles: listing === 'lines' && options.all && maxDepth >= 1,
      topFiles: options.top ?? (options.json ? JSON_TOP : 0),
      maxErrors: MAX_ERRORS,
      mounts,
    });
    try {
      const before = seen;
      const outcome = await runWalk(walk, {
        timeoutMs: Math.max(0, deadline - performance.now()),
        onProgress: (progress) => {
          seen = { entries: before.entries + progress.entries, allocated: before.allocated + progress.allocated };
          writer.progress(seen.entries, seen.allocated);
        },
      });
      const { tree } = outcome;
      const ranks = listing === 'lines' ? await ftsEntryRanks(tree, options.all && maxDepth >= 1) : undefined;
      const listed = listTree(
        tree,
        start.display,
        {
          all: options.all,
          maxDepth,
          apparent: options.apparent,
          lines: listing === 'lines',
          unfinishedNamed: UNFINISHED_NAMED,
          mountPoints: new Set(mounts.map(([mountPoint]) => mountPoint)),
          ...(ranks !== undefined && { ranks }),
        },
        reasonsFor(outcome.stalled, options.timeout),
        writer,
      );
      if (listed.unfinished > UNFINISHED_NAMED) {
        writer.message(
          `${counted(listed.unfinished - UNFINISHED_NAMED, 'more directory', 'more directories')} under ${quoteAlways(options.utf8)(start.display)} not finished`,
        );
      }
      if (tree.data.errorCount > tree.data.errors.length) {
        writer.message(
          `${counted(tree.data.errorCount - tree.data.errors.length, 'more entry', 'more entries')} under ${quoteAlways(options.utf8)(start.display)} could not be read`,
        );
      }
      if (!listed.missing) grandTotal += tree.totals(0)[size];
      if (options.json) {
        json.push(
          jsonEntry(tree, start.walkPath, start.absolute, { depth: options.maxDepth ?? JSON_DEPTH, top: options.top ?? JSON_TOP, apparent: options.apparent }),
        );
      } else if (options.top !== null && !listed.missing) {
        // A blank line between operands' blocks.
        if (!firstTop) writer.text('\n');
        firstTop = false;
        writer.text(topReport(tree, start.display, { count: options.top, apparent: options.apparent, sizeText: topSizeText }));
      }
    } finally {
      walk.release();
    }
  }

  if (options.json) {
    writer.text(`${stringifyExact(json)}\n`);
  } else if (options.total && options.top !== null) {
    writer.text(`${topSizeText(grandTotal)}\ttotal\n`);
  } else if (options.total) {
    writer.line(grandTotal, Buffer.from('total'));
  }
  writer.flush();
  return writer.complained ? 1 : 0;
}
