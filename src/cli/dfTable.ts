// The df command's table: which columns, and what goes in each cell. Laid
// out column for column like `df -hT` (bytes) and `df -hiT` (inodes), so the
// two can be compared line by line. Pure: rows in, text out.

import { humanSize } from '../format/humanSize.js';
import type { DiskUsage } from '../index.js';
import { type Column, type Row, renderTable } from './table.js';

/** One line of the table: a file system's usage, or a mount that did not answer in time. */
export type DfRow =
  | {
      readonly kind: 'usage';
      readonly filesystem: string;
      readonly type: string;
      readonly mountedOn: string;
      readonly usage: DiskUsage<bigint>;
    }
  | {
      readonly kind: 'notResponding';
      readonly filesystem: string;
      readonly type: string;
      readonly mountedOn: string;
    };

export interface DfTableOptions {
  /** Inode counts (df -hiT's columns) instead of bytes (df -hT's). */
  readonly inodes: boolean;
  /** A bar drawing Use% after the percentage; for terminals only, as it is not df's output. */
  readonly usageBar: boolean;
}

const BAR_CELLS = 10;
const NOT_RESPONDING = 'not responding';

// Minimum widths are df's own (field_data in coreutils' df.c); without them
// narrow tables come out a few spaces off from df's.
const LEFT_COLUMNS: readonly Column[] = [
  { header: 'Filesystem', align: 'left', minWidth: 14 },
  { header: 'Type', align: 'left', minWidth: 4 },
];
const BYTE_COLUMNS: readonly Column[] = [
  { header: 'Size', align: 'right', minWidth: 5 },
  { header: 'Used', align: 'right', minWidth: 5 },
  { header: 'Avail', align: 'right', minWidth: 5 },
  { header: 'Use%', align: 'right', minWidth: 4 },
];
const INODE_COLUMNS: readonly Column[] = [
  { header: 'Inodes', align: 'right', minWidth: 5 },
  { header: 'IUsed', align: 'right', minWidth: 5 },
  { header: 'IFree', align: 'right', minWidth: 5 },
  { header: 'IUse%', align: 'right', minWidth: 4 },
];
const BAR_COLUMN: Column = { header: '', align: 'left', minWidth: 0 };
const MOUNTED_ON: Column = { header: 'Mounted on', align: 'left', minWidth: 0 };

/** df's Use%: the percentage rounded up, or "-" when there is nothing to divide (used + available = 0). */
function percentCell(usedPercent: number, hasSpace: boolean): string {
  return hasSpace ? `${Math.ceil(usedPercent)}%` : '-';
}

function usageBar(usedPercent: number, hasSpace: boolean): string {
  if (!hasSpace) return '';
  const filled = Math.min(BAR_CELLS, Math.max(0, Math.round(usedPercent / (100 / BAR_CELLS))));
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}]`;
}

/**
 * Appends the four number cells (size, used, available, percent) for bytes
 * or inodes, and the bar when asked for.
 */
function pushNumberCells(cells: string[], usage: DiskUsage<bigint>, options: DfTableOptions): void {
  let percent = usage.usedPercent;
  let hasSpace: boolean;
  if (!options.inodes) {
    hasSpace = usage.used + usage.available !== 0n;
    cells.push(humanSize(usage.total), humanSize(usage.used), humanSize(usage.available), percentCell(percent, hasSpace));
  } else if (usage.inodes === null) {
    // No inodes (btrfs, vfat, ramfs, ... report none): df shows 0 0 0 -.
    percent = 0;
    hasSpace = false;
    cells.push('0', '0', '0', '-');
  } else {
    const counts = usage.inodes;
    // IFree is f_ffree, as df prints it (get_field_values in df.c), not f_favail.
    percent = counts.usedPercent;
    hasSpace = counts.used + counts.free !== 0n;
    cells.push(humanSize(counts.total), humanSize(counts.used), humanSize(counts.free), percentCell(percent, hasSpace));
  }
  if (options.usageBar) cells.push(usageBar(percent, hasSpace));
}

// df turns control characters into '?' (replace_control_chars in df.c), so a
// mount point with a newline in its name cannot break the table into lines.
function printable(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return text.replace(/\p{Cc}/gu, '?');
  }
  return text;
}

function toRow(row: DfRow, options: DfTableOptions): Row {
  const filesystem = printable(row.filesystem);
  const type = printable(row.type);
  const mountedOn = printable(row.mountedOn);
  if (row.kind === 'notResponding') {
    return [filesystem, type, { text: NOT_RESPONDING, span: BYTE_COLUMNS.length + (options.usageBar ? 1 : 0) }, mountedOn];
  }
  const cells = [filesystem, type];
  pushNumberCells(cells, row.usage, options);
  cells.push(mountedOn);
  return cells;
}

/** The table df prints, header included. */
export function renderDfTable(rows: readonly DfRow[], options: DfTableOptions): string {
  const columns = [...LEFT_COLUMNS, ...(options.inodes ? INODE_COLUMNS : BYTE_COLUMNS), ...(options.usageBar ? [BAR_COLUMN] : []), MOUNTED_ON];
  return renderTable(
    columns,
    rows.map((row) => toRow(row, options)),
  );
}
