// list_mounts: the mounted file systems with their usage, as df shows them,
// for a model to read: a host may have thousands (a Kubernetes node, a build
// farm), so an answer holds one page of them, the fullest first by default,
// within TEXT_BUDGET bytes of text and as many of structuredContent, with a
// summary of all and a cursor to the rest. A dead mount is reported as not
// responding once --probe-timeout passes, never waited on for longer.
// disk://mounts (resources.ts) gives everything at once, for applications.

import { MOUNTS_VIEW } from '../../../apps/appViews.js';
import { counted, grouped } from '../../../format/counted.js';
import { dfMounts } from '../../../probe/mountProbes.js';
import type { Tool, ToolResult } from '../../protocol/tool.js';
import { ENTRY_SCHEMA, type ListedMount, listedMount } from './mountListing.js';
import { fitPage, TEXT_BUDGET } from './pageBudget.js';
import { decodeCursor, encodeCursor } from './pageCursor.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
/** The types named in the summary at most; the rest are counted together. */
const SUMMARY_TYPES = 12;

const SORTS = ['usage', 'available', 'size', 'mount_point', 'table'] as const;
type Sort = (typeof SORTS)[number];
const SORT_WORDS: Record<Sort, string> = {
  usage: 'fullest first',
  available: 'least space available first',
  size: 'largest first',
  mount_point: 'by mount point',
  table: 'in the order df lists them',
};

interface Query {
  readonly all: boolean;
  readonly sort: Sort;
  readonly types: readonly string[] | undefined;
  readonly prefix: string | undefined;
  readonly minPercent: number | undefined;
}

/** Percent used, with a mount that did not answer above any. */
const fullness = (mount: ListedMount): number => (mount.usedPercent < 0 ? 101 : mount.usedPercent);

/** Stable: ties keep the table's order, so pages never overlap. */
function order(listed: readonly ListedMount[], sort: Sort): ListedMount[] {
  const indexed = listed.map((mount, index) => ({ mount, index }));
  const by: Record<Sort, (a: ListedMount, b: ListedMount) => number> = {
    // Mounts that did not answer first: they may be full, and they are the news.
    usage: (a, b) => fullness(b) - fullness(a),
    available: (a, b) => (a.usedPercent < 0 ? -1 : 0) - (b.usedPercent < 0 ? -1 : 0) || a.available - b.available,
    size: (a, b) => b.total - a.total,
    mount_point: (a, b) => (a.entry.mountPoint < b.entry.mountPoint ? -1 : a.entry.mountPoint > b.entry.mountPoint ? 1 : 0),
    table: () => 0,
  };
  const compare = by[sort];
  return indexed.sort((a, b) => compare(a.mount, b.mount) || a.index - b.index).map(({ mount }) => mount);
}

function matches(mount: ListedMount, query: Query): boolean {
  const { mountPoint, fsType } = mount.entry;
  if (query.types !== undefined && !query.types.includes(fsType)) return false;
  const { prefix } = query;
  if (prefix !== undefined && prefix !== '/' && mountPoint !== prefix && !mountPoint.startsWith(`${prefix.replace(/\/$/, '')}/`)) return false;
  // One whose usage could not be read stays: it may be full.
  // Judged as df's Use% (rounded up), the figure the text shows.
  return query.minPercent === undefined || mount.usedPercent < 0 || Math.ceil(mount.usedPercent) >= query.minPercent;
}

/** The arguments that shape the listing, which a cursor belongs to. */
const listing = (query: Query): unknown[] => [query.all, query.sort, query.types ?? null, query.prefix ?? null, query.minPercent ?? null];

/** "2,006 file systems: 2,001 tmpfs, 4 ext4, 1 overlay" */
function summary(mounts: readonly ListedMount[], what: string): string {
  const byType = new Map<string, number>();
  for (const { entry } of mounts) byType.set(entry.fsType, (byType.get(entry.fsType) ?? 0) + 1);
  const counts = [...byType].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const named = counts.slice(0, SUMMARY_TYPES).map(([type, count]) => `${grouped(count)} ${type}`);
  const others = counts.slice(SUMMARY_TYPES).reduce((sum, [, count]) => sum + count, 0);
  if (others > 0) named.push(`${grouped(others)} of ${counted(counts.length - SUMMARY_TYPES, 'other type')}`);
  return `${counted(mounts.length, what)}${named.length > 0 ? `: ${named.join(', ')}` : ''}`;
}

export const listMountsTool: Tool = {
  name: 'list_mounts',
  title: 'Mounted file systems',
  view: MOUNTS_VIEW,
  reportsProgress: true,
  description:
    'The mounted file systems with their usage, as df shows them: mount point, device, type, percentage used, used, available and total space. ' +
    'A file system that does not answer is reported as not responding. On a host with many mounts an answer holds one page, ' +
    'the fullest first, with a count of all of them by type and a cursor to the rest; sort, filter and limit to see what matters.',
  inputSchema: {
    type: 'object',
    properties: {
      all: { type: 'boolean', description: 'true to include pseudo file systems (proc, cgroup…), duplicates and empty ones, as df -a does. Default false.' },
      sort: {
        type: 'string',
        enum: [...SORTS],
        description:
          'Order of the list: "usage" fullest first (the default; mounts that do not answer come first), "available" least space available first, ' +
          '"size" largest first, "mount_point" alphabetical, "table" the order df lists them.',
      },
      fs_type: {
        type: 'string',
        pattern: '^[^,\\s]+(,[^,\\s]+)*$',
        description: 'Only file systems of these types, comma-separated, e.g. "ext4" or "nfs4,cifs"',
      },
      mount_prefix: {
        type: 'string',
        pattern: '^/',
        description: 'Only file systems mounted at this absolute path or below it, e.g. "/var" or "/mnt/data"',
      },
      min_used_percent: {
        type: 'number',
        minimum: 0,
        maximum: 100,
        description: 'Only file systems at least this full, in percent, e.g. 90; those that do not answer are kept, as they may be full',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LIMIT,
        description: `How many file systems to show at most (default ${DEFAULT_LIMIT}); an answer also stops at ${TEXT_BUDGET / 1024} KiB of text`,
      },
      cursor: {
        type: 'string',
        description: 'The nextCursor of the previous answer, with the same all, sort and filters, to see the next page',
      },
    },
    additionalProperties: false,
  },
  hints: {
    fs_type: 'use type names separated by commas, without spaces, such as "ext4,xfs"',
    mount_prefix: 'use an absolute path, such as "/var"',
  },
  outputSchema: {
    type: 'object',
    properties: {
      mounts: { type: 'array', description: 'This page of the file systems, in the order asked for', items: ENTRY_SCHEMA },
      total: { type: 'integer', minimum: 0, description: 'How many file systems match the filters, on every page' },
      offset: { type: 'integer', minimum: 0, description: 'How many of them came before this page' },
      byType: { type: 'object', description: 'How many of the matching file systems there are of each type', additionalProperties: { type: 'integer' } },
      nextCursor: { type: 'string', description: 'Pass it as cursor, with the same arguments, for the next page; absent on the last page' },
    },
    required: ['mounts', 'total', 'offset', 'byType'],
  },

  async call(args, context) {
    const { probeTimeout: timeout, signal } = context;
    // Progress as probes settle, twenty steps at most whatever the count (the
    // ones answered on this thread count together, at once).
    let reported = -1;
    let probed = 0;
    const onProgress = (done: number, total: number): void => {
      probed = total;
      if (done !== total && done - reported < total / 20) return;
      reported = done;
      context.progress(done, total, `probed ${grouped(done)} of ${counted(total, 'file system')}`);
    };
    // Each mount probed once: for df's set, the probe that found it not empty is the one shown.
    const listed = await dfMounts({ all: args.all === true, timeout, signal, include: (mountPoint) => context.roots.showsMount(mountPoint), onProgress });
    if (signal.aborted) throw signal.reason;
    // A client that asked for progress hears the total before the result,
    // however the probes came back (issue 17); with none to probe (every
    // mount outside --root), only the progress 0 every call starts with (issue 27).
    if (reported !== probed || reported === -1) context.progress(probed, probed, `probed ${grouped(probed)} of ${counted(probed, 'file system')}`);
    return presentMounts(
      listed.map((outcome) => listedMount(outcome, timeout)),
      args,
    );
  },
};

/**
 * One answer of list_mounts from all the mounts listed: the page the
 * arguments (already checked against the inputSchema) ask for, within the
 * budget, with the summary and the cursor to the rest.
 * @internal exported for the tests
 */
export function presentMounts(all: readonly ListedMount[], args: Record<string, unknown>): ToolResult {
  const query: Query = {
    all: args.all === true,
    sort: (args.sort as Sort | undefined) ?? 'usage',
    types: typeof args.fs_type === 'string' ? args.fs_type.split(',') : undefined,
    prefix: args.mount_prefix as string | undefined,
    minPercent: args.min_used_percent as number | undefined,
  };
  const limit = (args.limit as number | undefined) ?? DEFAULT_LIMIT;
  let offset = 0;
  if (typeof args.cursor === 'string') {
    const decoded = decodeCursor(args.cursor, listing(query), 'list_mounts', 'all, sort and filters');
    if (typeof decoded === 'string') return { text: `invalid cursor: ${decoded}`, isError: true };
    offset = decoded;
  }
  const matching = order(
    all.filter((mount) => matches(mount, query)),
    query.sort,
  );
  if (offset > matching.length) return { text: 'invalid cursor: it points past the end of the list; start again without a cursor', isError: true };

  const page = fitPage(
    matching,
    offset,
    limit,
    (mount) => mount.line,
    (mount) => mount.entry,
  );
  const next = offset + page.length;
  const rest = matching.length - next;
  const byType: Record<string, number> = {};
  for (const { entry } of matching) byType[entry.fsType] = (byType[entry.fsType] ?? 0) + 1;

  const filtered = matching.length !== all.length;
  const head =
    matching.length === 0
      ? filtered
        ? `no file system matches (of ${summary(all, 'file system')})`
        : 'no file systems'
      : `${summary(matching, filtered ? 'matching file system' : 'file system')}${filtered ? ` (of ${grouped(all.length)} in all)` : ''}.` +
        (page.length === matching.length
          ? ` All shown, ${SORT_WORDS[query.sort]}.`
          : ` Showing ${grouped(offset + 1)}–${grouped(next)}, ${SORT_WORDS[query.sort]}.`);
  const cursor = rest > 0 ? encodeCursor(next, listing(query)) : undefined;
  const tail =
    cursor === undefined
      ? []
      : [`${grouped(rest)} more: pass cursor "${cursor}" with the same arguments for the next page, or narrow with fs_type, mount_prefix or min_used_percent.`];
  return {
    text: [head, ...page.map((mount) => mount.line), ...tail].join('\n'),
    structured: {
      mounts: page.map((mount) => mount.entry),
      total: matching.length,
      offset,
      byType,
      ...(cursor !== undefined && { nextCursor: cursor }),
    },
  };
}
