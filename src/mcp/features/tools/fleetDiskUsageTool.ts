// fleet_disk_usage: every machine's file systems, from the Prometheus that
// scrapes them (node_exporter or diskprobe metrics --listen), ranked. One
// instant query reads every node_filesystem family at once; a page of the
// ranking fits TEXT_BUDGET, with a cursor to the rest, as list_mounts.
import { type FleetFilesystem, familiesSelector, fsName, joinFilesystems } from '../../../fleet/filesystems.js';
import { counted, grouped } from '../../../format/counted.js';
import { humanSize } from '../../../format/humanSize.js';
import { usePercent } from '../../../format/usePercent.js';
import { usedPercent } from '../../../probe/percent.js';
import type { Tool, ToolResult } from '../../protocol/tool.js';
import {
  FILESYSTEM_FIELDS,
  FILTER_LABELS,
  type Fleet,
  filesystemFields,
  filterMatchers,
  filterSchema,
  fleetFailure,
  fleetMatchers,
  noSeries,
  nullable,
} from './fleetQuery.js';
import { fitPage, TEXT_BUDGET } from './pageBudget.js';
import { decodeCursor, encodeCursor } from './pageCursor.js';

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 500;

const SORTS = ['used_percent', 'avail', 'size'] as const;
type Sort = (typeof SORTS)[number];
const SORT_WORDS: Record<Sort, string> = { used_percent: 'fullest first', avail: 'least space available first', size: 'largest first' };

interface Ranked {
  readonly fs: FleetFilesystem;
  /** Percent used as df counts it, unrounded; null without a size. */
  readonly usedPercent: number | null;
  readonly line: string;
  readonly entry: Record<string, unknown>;
}

const FILESYSTEM_SCHEMA = {
  type: 'object',
  properties: {
    ...FILESYSTEM_FIELDS,
    sizeBytes: nullable('integer', 'Size in bytes; null when the exporter could not read it'),
    availBytes: nullable('integer', 'Bytes an unprivileged user may still write; null when not read'),
    usedPercent: nullable('number', "100 * used / (used + available), unrounded; rounded up it is df's Use%. null when not read"),
  },
  required: ['instance', 'job', 'mountpoint', 'fstype', 'device', 'sizeBytes', 'availBytes', 'usedPercent', 'readonly', 'deviceError'],
} as const;

function rank(fs: FleetFilesystem): Ranked {
  const { sizeBytes, availBytes, freeBytes } = fs;
  const known = sizeBytes !== null && availBytes !== null && freeBytes !== null && fs.deviceError === null;
  const percent = known ? usedPercent(Math.max(0, sizeBytes - freeBytes), availBytes) : null;
  const state =
    fs.deviceError !== null
      ? `not answering: ${fs.deviceError}`
      : percent === null
        ? 'no size reported'
        : `${usePercent(percent)} used, ${humanSize(Math.max(0, Math.round(availBytes!)))} available of ${humanSize(Math.max(0, Math.round(sizeBytes!)))}`;
  return {
    fs,
    usedPercent: percent,
    line: `${fsName(fs)}: ${state}${fs.readonly ? ', read-only' : ''}`,
    entry: {
      ...filesystemFields(fs),
      sizeBytes: known ? sizeBytes : null,
      availBytes: known ? availBytes : null,
      usedPercent: percent,
    },
  };
}

/** Those not answering first in every order but size (they may be full, and they are the news); ties by instance, then mount point. */
function order(ranked: Ranked[], sort: Sort): Ranked[] {
  const unread = (r: Ranked): number => (r.usedPercent === null ? 0 : 1);
  const by: Record<Sort, (a: Ranked, b: Ranked) => number> = {
    used_percent: (a, b) => unread(a) - unread(b) || (b.usedPercent ?? 0) - (a.usedPercent ?? 0),
    avail: (a, b) => unread(a) - unread(b) || (a.fs.availBytes ?? 0) - (b.fs.availBytes ?? 0),
    size: (a, b) => unread(b) - unread(a) || (b.fs.sizeBytes ?? 0) - (a.fs.sizeBytes ?? 0),
  };
  const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return ranked.sort((a, b) => by[sort](a, b) || text(a.fs.instance, b.fs.instance) || text(a.fs.mountpoint, b.fs.mountpoint) || text(a.fs.key, b.fs.key));
}

export function fleetDiskUsageTool(fleet: Fleet): Tool {
  return {
    name: 'fleet_disk_usage',
    openWorld: true,
    title: "The fleet's file systems",
    instruction:
      'For other machines than this one, ask Prometheus: fleet_disk_usage ranks the file systems of every machine it scrapes and names the stuck ones, ' +
      'and disk_fill_forecast says which are filling and when they will be full.',
    description:
      'Disk usage across every machine Prometheus scrapes (node_exporter or diskprobe exporters): each file system with its instance, mount point, ' +
      'size, available space and percentage used, the fullest first, and those that are stuck or unreadable named first of all. ' +
      'Filter by instance, job, mountpoint or fstype (exact values) or min_used_percent; page with limit and cursor.',
    inputSchema: {
      type: 'object',
      properties: {
        sort: {
          type: 'string',
          enum: [...SORTS],
          description:
            '"used_percent" fullest first (the default), "avail" least space available first, "size" largest first. Stuck file systems come first, except by size.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          description: `How many to show at most (default ${DEFAULT_LIMIT}); an answer also stops at ${TEXT_BUDGET / 1024} KiB of text`,
        },
        cursor: { type: 'string', description: 'The nextCursor of the previous answer, with the same sort and filters, for the next page' },
        instance: filterSchema('instance', 'db-1:9100'),
        job: filterSchema('job', 'node'),
        mountpoint: filterSchema('mountpoint', '/var'),
        fstype: filterSchema('fstype', 'ext4'),
        min_used_percent: {
          type: 'number',
          minimum: 0,
          maximum: 100,
          description: 'Only file systems at least this full, in percent (as df rounds it), e.g. 90; stuck ones are kept, as they may be full',
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        filesystems: { type: 'array', description: 'This page of the ranking', items: FILESYSTEM_SCHEMA },
        total: { type: 'integer', minimum: 0, description: 'How many file systems match, on every page' },
        nextCursor: { type: 'string', description: 'Pass it as cursor, with the same arguments, for the next page; absent on the last page' },
      },
      required: ['filesystems', 'total'],
    },

    async call(args, context) {
      const filters = filterMatchers(args);
      const sort = (args.sort as Sort | undefined) ?? 'used_percent';
      const minPercent = args.min_used_percent as number | undefined;
      const listing = [sort, ...FILTER_LABELS.map((label) => args[label] ?? null), minPercent ?? null];
      let offset = 0;
      if (typeof args.cursor === 'string') {
        const decoded = decodeCursor(args.cursor, listing, 'fleet_disk_usage', 'sort and filters');
        if (typeof decoded === 'string') return { text: `invalid cursor: ${decoded}`, isError: true };
        offset = decoded;
      }
      try {
        const { series } = await fleet.client.queryAll({ series: familiesSelector(fleetMatchers(fleet, filters)) }, context.signal);
        const all = joinFilesystems(series);
        if (all.length === 0) return await noSeries(fleet, filters, context.signal);
        const matching = order(
          all.map(rank).filter((r) => minPercent === undefined || r.usedPercent === null || Math.ceil(r.usedPercent) >= minPercent),
          sort,
        );
        if (offset > matching.length) return { text: 'invalid cursor: it points past the end of the list; start again without a cursor', isError: true };
        return present(all.length, matching, offset, (args.limit as number | undefined) ?? DEFAULT_LIMIT, sort, listing);
      } catch (error) {
        return fleetFailure(error);
      }
    },
  };
}

function present(found: number, matching: readonly Ranked[], offset: number, limit: number, sort: Sort, listing: unknown[]): ToolResult {
  const page = fitPage(
    matching,
    offset,
    limit,
    (r) => r.line,
    (r) => r.entry,
  );
  const next = offset + page.length;
  const instances = new Set(matching.map((r) => r.fs.instance)).size;
  const stuck = matching.filter((r) => r.fs.deviceError !== null).length;
  const filtered = matching.length !== found ? ` (of ${grouped(found)})` : '';
  const head =
    matching.length === 0
      ? `No file system is that full (of ${counted(found, 'file system')}).`
      : `${counted(matching.length, 'file system')}${filtered} on ${counted(instances, 'instance')}` +
        `${stuck > 0 ? `, ${grouped(stuck)} not answering` : ''}. ` +
        (page.length === matching.length ? `All shown, ${SORT_WORDS[sort]}.` : `Showing ${grouped(offset + 1)}–${grouped(next)}, ${SORT_WORDS[sort]}.`);
  const cursor = next < matching.length ? encodeCursor(next, listing) : undefined;
  const tail = cursor === undefined ? [] : [`${grouped(matching.length - next)} more: pass cursor "${cursor}" with the same arguments for the next page.`];
  return {
    text: [head, ...page.map((r) => r.line), ...tail].join('\n'),
    structured: { filesystems: page.map((r) => r.entry), total: matching.length, ...(cursor !== undefined && { nextCursor: cursor }) },
  };
}
