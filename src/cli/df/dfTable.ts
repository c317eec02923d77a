// The df command's table: for each row, the cells of the columns asked for,
// as get_dev in coreutils 9.1's df.c fills them, then --total's row, laid out
// as print_table lays them out (table.ts). Pure: rows in, text out.

import { dfPercentCell, knownValue } from '../../format/dfPercent.js';
import { longDoublePrecision } from '../../format/extendedFloat.js';
import { HUMAN_1024, humanReadable } from '../../format/humanReadable.js';
import { humanSize } from '../../format/humanSize.js';
import type { DiskUsage } from '../../probe/types.js';
import { type DfColumn, type DfNumbers, FIELD_DATA } from './dfFields.js';
import { countsOf, type FieldValues, type FsCounts, fieldValues, GrandTotal, UNKNOWN_COUNTS } from './dfValues.js';
import { type Cell, type Column, type Row, renderTable } from './table.js';

/** What each row names: its device, type, mount point and the path asked about ("-" for none). */
interface RowNames {
  readonly source: string;
  readonly fstype: string;
  readonly target: string;
  readonly file: string;
}

/**
 * One line of the table: a file system's usage; one whose counts df shows as
 * unknown ("-": -a's unreadable and over-mounted mounts); or a mount that did
 * not answer in time.
 */
export type DfRow =
  | (RowNames & { readonly kind: 'usage'; readonly usage: DiskUsage<bigint> })
  | (RowNames & { readonly kind: 'unknown' })
  | (RowNames & { readonly kind: 'notResponding' });

export interface DfTableOptions {
  readonly columns: readonly DfColumn[];
  readonly numbers: DfNumbers;
  /** Add df's "total" row. */
  readonly total: boolean;
  /** A bar drawing Use% after the percentage; for terminals only, as it is not df's output. */
  readonly usageBar: boolean;
  /** Bits of C's long double (extendedFloat.ts); this machine's by default. */
  readonly precision?: number;
}

const BAR_CELLS = 10;
const NOT_RESPONDING = 'not responding';
const TWO_64 = 1n << 64n;

function usageBar(percent: number | undefined): string {
  if (percent === undefined) return '';
  const filled = Math.min(BAR_CELLS, Math.max(0, Math.round(percent / (100 / BAR_CELLS))));
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}]`;
}

/**
 * \p{Cc} (U+0000-U+001F, U+007F-U+009F) as what it is not: a property
 * escape would cost ICU a table at every start.
 */
const CONTROL = /[^\u0020-\u007e\u00a0-\uffff]/;

// df turns control characters into '?' (replace_control_chars in df.c), so a
// mount point with a newline in its name cannot break the table into lines.
// Nearly no name has one: one regular expression tells, compiled however
// cold this code is, where a loop over the characters would run interpreted.
function printable(text: string): string {
  return CONTROL.test(text) ? text.replace(/\p{Cc}/gu, '?') : text;
}

/** Formats counts as the options say (df_readable). */
class NumberFormat {
  private readonly humanOptions: number;
  private readonly blockSize: bigint;
  /** df -h's numbers (diskprobe df's default): byte counts straight from the probe, as humanSize prints them. */
  readonly humanBytes: boolean;

  constructor(
    numbers: DfNumbers,
    private readonly precision: number,
  ) {
    this.humanOptions = numbers.humanOptions;
    this.blockSize = BigInt(numbers.blockSize);
    this.humanBytes = this.humanOptions === HUMAN_1024 && this.blockSize === 1n;
  }

  /** `count` units of `inputUnits` bytes; `outputUnits` is the block size, or 1 for inodes. */
  readable(count: bigint, negative: boolean, inputUnits: bigint, outputUnits: bigint): string {
    if (!knownValue(count) && !negative) return '-';
    const magnitude = negative ? TWO_64 - count : count;
    // df -h, every cell of diskprobe's default table: humanSize is the same digits, faster.
    const text =
      this.humanOptions === HUMAN_1024 && outputUnits === 1n && magnitude * inputUnits < TWO_64
        ? humanSize(magnitude * inputUnits)
        : humanReadable(magnitude, this.humanOptions, inputUnits, outputUnits, this.precision);
    return negative ? `-${text}` : text;
  }

  cell(field: DfColumn['field'], blocks: FieldValues, inodes: FieldValues): string {
    const kind = FIELD_DATA[field].kind;
    const values = kind === 'block' ? blocks : inodes;
    const outputUnits = kind === 'block' ? this.blockSize : 1n;
    switch (field) {
      case 'size':
      case 'itotal':
        return this.readable(values.total, false, values.inputUnits, outputUnits);
      case 'used':
      case 'iused':
        return this.readable(values.used, values.negateUsed, values.inputUnits, outputUnits);
      case 'avail':
      case 'iavail':
        return this.readable(values.available, false, values.inputUnits, outputUnits);
      default:
        return dfPercentCell(values.used, values.available, values.negateUsed);
    }
  }
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A block cell of df -h from the probe's bytes, the cheap way, for the
 * tables of thousands of mounts: the same digits as NumberFormat.cell (the
 * byte count is blocks × block size, and usedPercent rounds up to df's Use%
 * exactly), without rebuilding df's counts. For usages that bytesFit;
 * undefined for the fields it does not cover.
 */
function humanBytesCell(field: DfColumn['field'], usage: DiskUsage<bigint>): string | undefined {
  switch (field) {
    case 'size':
      return humanSize(usage.total);
    case 'used':
      return humanSize(usage.used);
    case 'avail':
      return humanSize(usage.available);
    case 'pcent':
      return usage.used + usage.available === 0n ? '-' : `${Math.ceil(usage.usedPercent)}%`;
    default:
      return undefined;
  }
}

/** Whether humanBytesCell holds for `usage`: counts below 2^53, no more free than in total. */
const bytesFit = (usage: DiskUsage<bigint>): boolean => usage.total <= SAFE && usage.free <= usage.total;

/** The Use% the bar draws, unrounded; undefined where df shows "-". */
function barPercent(blocks: FieldValues): number | undefined {
  if (!knownValue(blocks.used) || blocks.negateUsed || blocks.used + blocks.available === 0n) return undefined;
  return (Number(blocks.used) * 100) / Number(blocks.used + blocks.available);
}

/** A column as laid out: a field, or the usage bar after Use%. */
type Slot = DfColumn['field'] | 'bar';

const isNumber = (slot: Slot): boolean => slot === 'bar' || FIELD_DATA[slot].kind !== 'other';

/** What a row's numbers come from: the probe's usage, or df's counts (unknown ones, the total); undefined when it did not answer. */
type RowNumbers = { readonly usage: DiskUsage<bigint> } | { readonly counts: FsCounts } | undefined;

function cellsOf(names: RowNames, numbers: RowNumbers, slots: readonly Slot[], format: NumberFormat): Row {
  const cells: Cell[] = [];
  if (numbers === undefined) {
    // Not responding: the words take the place of the first run of numbers; any later number is unknown.
    let spanned = false;
    for (let index = 0; index < slots.length; index++) {
      const slot = slots[index]!;
      if (!isNumber(slot)) {
        cells.push(printable(names[slot as keyof RowNames]));
        continue;
      }
      if (spanned) {
        cells.push(slot === 'bar' ? '' : '-');
        continue;
      }
      let span = 1;
      while (index + span < slots.length && isNumber(slots[index + span]!)) span++;
      // One column: an ordinary cell, which widens its column as any other would.
      cells.push(span === 1 ? NOT_RESPONDING : { text: NOT_RESPONDING, span });
      spanned = true;
      index += span - 1;
    }
    return cells;
  }
  const usage = 'usage' in numbers ? numbers.usage : undefined;
  const bytes = usage !== undefined && format.humanBytes && bytesFit(usage) ? usage : undefined;
  let values: ReturnType<typeof fieldValues> | undefined;
  for (let index = 0; index < slots.length; index++) {
    const slot = slots[index]!;
    if (slot !== 'bar' && FIELD_DATA[slot].kind === 'other') {
      cells.push(printable(names[slot as keyof RowNames]));
      continue;
    }
    const fast = bytes !== undefined && slot !== 'bar' ? humanBytesCell(slot, bytes) : undefined;
    if (fast !== undefined) {
      cells.push(fast);
      continue;
    }
    values ??= fieldValues(usage !== undefined ? countsOf(usage) : (numbers as { counts: FsCounts }).counts);
    cells.push(slot === 'bar' ? usageBar(barPercent(values.blocks)) : format.cell(slot, values.blocks, values.inodes));
  }
  return cells;
}

/** The table df prints, header included, and the total row when asked for. */
export function renderDfTable(rows: readonly DfRow[], options: DfTableOptions): string {
  const format = new NumberFormat(options.numbers, options.precision ?? longDoublePrecision());
  const bar = options.usageBar && options.columns.some((column) => column.field === 'pcent');
  const columns: Column[] = [];
  const slots: Slot[] = [];
  for (const { field, header } of options.columns) {
    const { align, minWidth } = FIELD_DATA[field];
    columns.push({ header: printable(header), align, minWidth });
    slots.push(field);
    if (bar && field === 'pcent') {
      columns.push({ header: '', align: 'left', minWidth: 0 });
      slots.push('bar');
    }
  }
  const total = new GrandTotal();
  const cells = rows.map((row) => {
    const numbers: RowNumbers = row.kind === 'usage' ? { usage: row.usage } : row.kind === 'unknown' ? { counts: UNKNOWN_COUNTS } : undefined;
    if (options.total && row.kind === 'usage') total.add(countsOf(row.usage));
    return cellsOf(row, numbers, slots, format);
  });
  if (options.total) {
    // The total's own names (get_dev("total", …) in df.c's main): its mount point reads "total" when no column says so already.
    const target = options.columns.some((column) => column.field === 'source') ? '-' : 'total';
    cells.push(cellsOf({ source: 'total', fstype: '-', target, file: '-' }, { counts: total.counts() }, slots, format));
  }
  return renderTable(columns, cells);
}
