// What `diskprobe df` makes of its probes: which of them df would show
// (the filters, the errors it keeps quiet about), the lines on stderr, the
// exit status, and the table or the JSON on stdout.

import { realpathSync } from 'node:fs';

import { displayPath } from '../../format/displayPath.js';
import { failureReason } from '../../format/failureReason.js';
import { quoteName } from '../../format/quoteName.js';
import type { Backend, DiskUsage, Mount } from '../../probe/types.js';
import { stringifyExact } from '../exactJson.js';
import type { DfOptions } from './dfCommandLine.js';
import { type DfJsonEntry, failedEntry, usageEntry } from './dfJson.js';
import { hasUuidSuffix, isRemoteMount, mountSelected, typeSelected } from './dfSelection.js';
import { type DfRow, renderDfTable } from './dfTable.js';

/** What was asked about: a path as given (`file`), or a mount from the table (`file` "-"). */
export interface DfTarget {
  /** The path probed: the argument as given, or the mount point. */
  readonly path: string;
  /** What df's "file" column shows: the argument as given, or "-". */
  readonly file: string;
  /** The mount it names, when known before probing (a listed mount, a device node's mount). */
  readonly mount: Mount | undefined;
}

export type DfOutcome = { readonly target: DfTarget; readonly usage: DiskUsage<bigint> } | { readonly target: DfTarget; readonly error: unknown };

/** The probes of one run, and what is known around them. */
export interface DfListing {
  readonly outcomes: readonly DfOutcome[];
  /** No paths were given: every mount was listed. */
  readonly listingAll: boolean;
  /** -a: which listed mounts show another device's file system (see overMounted). */
  readonly overMounted: readonly boolean[];
  /** The mount table's mounts by mount point (the last at each), for naming what a path's probe found. */
  readonly byPoint: ReadonlyMap<string, Mount>;
  readonly backend: Backend;
}

export interface DfOutput {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
}

/** The error code df -a's "-" rows get in the JSON for a mount point that shows another device. */
const OVERMOUNTED = 'EOVERMOUNTED';

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** Where a stuck probe was stuck: the mount the guard named. */
function stuckMount(error: unknown, byPoint: ReadonlyMap<string, Mount>): { point: string | undefined; mount: Mount | undefined } {
  const point = (error as { mountPoint?: unknown }).mountPoint;
  return typeof point === 'string' ? { point, mount: byPoint.get(point) } : { point: undefined, mount: undefined };
}

/** The device name df shows; listing every mount, a UUID-named symlink under /dev is shown as what it points to. */
function deviceName(device: string, listingAll: boolean): string {
  if (!listingAll || !device.startsWith('/dev/') || !hasUuidSuffix(device)) return device;
  try {
    return realpathSync(device);
  } catch {
    return device;
  }
}

/** One thing the command reports on: a row of the table and an entry of the JSON, or only the latter. */
interface Item {
  readonly row: DfRow | undefined;
  /** Made only for --json: a table of thousands of mounts has no use for them. */
  readonly entry: DfJsonEntry | undefined;
  /** What goes to stderr ("diskprobe: <path>: <reason>"), if anything. */
  readonly complaint: string | undefined;
}

function usageItem(outcome: { target: DfTarget; usage: DiskUsage<bigint> }, listing: DfListing, options: DfOptions, hidden: boolean): Item | undefined {
  const { target, usage } = outcome;
  const mount = target.mount ?? (usage.mountPoint === null ? undefined : listing.byPoint.get(usage.mountPoint));
  // Listing, df names a mount by its table entry; given a path, by the mount holding it.
  const fsType = listing.listingAll ? (mount?.fsType ?? usage.fsType) : (usage.fsType ?? mount?.fsType ?? null);
  if (!typeSelected(fsType, options) || (options.local && mount !== undefined && isRemoteMount(mount.device, mount.fsType))) return undefined;
  // Names as locals, the row built field by field: one object for each of thousands of rows, not two.
  const source = mount === undefined ? '-' : deviceName(mount.device, listing.listingAll);
  const fstype = hidden ? '-' : (fsType ?? '-');
  const shownTarget = target.mount?.mountPoint ?? usage.mountPoint ?? '-';
  if (hidden) {
    const error = { code: OVERMOUNTED, message: 'over-mounted by another device' };
    const entry = options.json ? failedEntry(target.path, mount, shownTarget, error, listing.backend) : undefined;
    return { row: { kind: 'unknown', source, fstype, target: shownTarget, file: target.file }, entry, complaint: undefined };
  }
  const row: DfRow = { kind: 'usage', source, fstype, target: shownTarget, file: target.file, usage };
  return { row, entry: options.json ? usageEntry(usage, mount) : undefined, complaint: undefined };
}

function failedItem(outcome: { target: DfTarget; error: unknown }, listing: DfListing, options: DfOptions): Item | undefined {
  const { target, error } = outcome;
  const code = codeOf(error);
  const stuck = stuckMount(error, listing.byPoint);
  // A mount point given as a path that failed is still named by the table.
  const mount = target.mount ?? stuck.mount ?? listing.byPoint.get(target.path);
  if (mount !== undefined && !mountSelected(mount.device, mount.fsType, options)) return undefined;
  // An error with no code of its own gets libuv's name for an unknown one.
  const reason = { code: typeof code === 'string' ? code : 'UNKNOWN', message: failureReason(error, options.timeout) };
  const entry = options.json ? failedEntry(target.path, mount, mount?.mountPoint ?? stuck.point ?? null, reason, listing.backend) : undefined;
  const names = { source: mount?.device ?? '-', fstype: mount?.fsType ?? '-', target: mount?.mountPoint ?? stuck.point ?? '-', file: target.file };
  // Listing every mount, df keeps quiet about one it may not read or that went
  // away after the table was read (EACCES, ENOENT: get_dev in coreutils'
  // df.c), so a user's private FUSE mount is no error for everyone else;
  // with -a it shows it, every count "-".
  if (listing.listingAll && (code === 'EACCES' || code === 'ENOENT')) {
    return options.all ? { row: { kind: 'unknown', ...names, fstype: '-' }, entry, complaint: undefined } : undefined;
  }
  // Quoted as df quotes it: a newline or a terminal escape in a name cannot break or forge a line.
  const complaint = `diskprobe: ${quoteName(displayPath(target.path))}: ${reason.message}\n`;
  return { row: code === 'ETIMEDOUT' ? { kind: 'notResponding', ...names } : undefined, entry, complaint };
}

/** Writes the errors, then the table or the JSON; returns the exit status (1 when anything failed, or nothing was shown). */
export function report(listing: DfListing, options: DfOptions, output: DfOutput): number {
  const items: Item[] = [];
  listing.outcomes.forEach((outcome, index) => {
    const item = 'usage' in outcome ? usageItem(outcome, listing, options, listing.overMounted[index] === true) : failedItem(outcome, listing, options);
    if (item !== undefined) items.push(item);
  });
  let status = 0;
  const rows: DfRow[] = [];
  // Indexed: an interpreted for-of makes an object per step, and there may be thousands.
  for (let index = 0; index < items.length; index++) {
    const { complaint, row } = items[index]!;
    if (row !== undefined) rows.push(row);
    if (complaint === undefined) continue;
    output.stderr.write(complaint);
    status = 1;
  }
  if (options.json) {
    output.stdout.write(`${stringifyExact(items.map((item) => item.entry!))}\n`);
  } else if (rows.length > 0) {
    // As df: no header over nothing.
    const usageBar = options.humanTable && output.stdout.isTTY === true;
    output.stdout.write(renderDfTable(rows, { columns: options.columns, numbers: options.numbers, total: options.total, usageBar }));
  }
  // Said only when nothing else was, as df says it (all filtered out, say).
  if (rows.length === 0 && status === 0) {
    output.stderr.write('diskprobe: no file systems processed\n');
    status = 1;
  }
  return status;
}
