// Plain-text tables laid out the way coreutils' df lays out its own
// (print_table in df.c): one space between columns, each column as wide as
// its widest cell but never narrower than its minimum, text left-aligned and
// numbers right-aligned, and no padding after the last column.

export interface Column {
  readonly header: string;
  readonly align: 'left' | 'right';
  /** Display cells the column takes at least (df's field_data widths). */
  readonly minWidth: number;
}

/** A cell that covers `span` columns from where it stands, left-aligned: a note in place of several values. */
interface SpanningCell {
  readonly text: string;
  readonly span: number;
}

export type Cell = string | SpanningCell;

/** A row's cells, left to right; a spanning cell stands for as many columns as it spans. */
export type Row = readonly Cell[];

// Terminal columns, as df measures them with mbswidth: combining marks take
// none, East Asian wide and fullwidth characters and emoji take two (the
// ranges of Markus Kuhn's wcwidth), everything else one.
const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200B-\u200F]/u;
const DOUBLE_WIDTH =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}]/u;

/** Anything but printable ASCII. */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

function displayWidth(text: string): number {
  // Printable ASCII, nearly every cell: one column a character. Told by one
  // regular expression, which runs compiled however cold this code is, where
  // a loop over the characters would run interpreted for most of a table.
  if (!NOT_PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : DOUBLE_WIDTH.test(char) ? 2 : 1;
  return width;
}

/** Runs of spaces by length, made once each: a table of thousands of rows pads tens of thousands of cells. */
const padding: string[] = [''];

function spaces(count: number): string {
  while (padding.length <= count) padding.push(`${padding[padding.length - 1]} `);
  return padding[count]!;
}

const cellText = (cell: Cell): string => (typeof cell === 'string' ? cell : cell.text);
const cellSpan = (cell: Cell): number => (typeof cell === 'string' ? 1 : Math.max(1, cell.span));

/** Every cell's display width, header first, row after row, in one array: measured once, used by both passes. */
function textWidthsOf(header: Row, rows: readonly Row[]): Int32Array {
  let count = header.length;
  for (let r = 0; r < rows.length; r++) count += rows[r]!.length;
  const textWidths = new Int32Array(count);
  let at = 0;
  for (let c = 0; c < header.length; c++) textWidths[at++] = displayWidth(cellText(header[c]!));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let c = 0; c < row.length; c++) textWidths[at++] = displayWidth(cellText(row[c]!));
  }
  return textWidths;
}

/**
 * Each column's width: its widest one-column cell, at least its minimum; a
 * spanning cell wider than the columns it covers widens the last of them.
 * The header's widths come first in `textWidths`, then each row's.
 */
function columnWidths(columns: readonly Column[], rows: readonly Row[], textWidths: Int32Array): number[] {
  const widths = columns.map((column, index) => Math.max(column.minWidth, textWidths[index]!));
  const spanning: number[] = [];
  // Indexed loops: an interpreted for-of makes an object per step, and a table may have thousands of rows.
  let at = columns.length;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    let column = 0;
    let spans = false;
    for (let c = 0; c < row.length; c++) {
      const cell = row[c]!;
      if (typeof cell !== 'string') {
        spans = true;
        column += cellSpan(cell);
        continue;
      }
      const width = textWidths[at + c]!;
      if (column < widths.length && width > widths[column]!) widths[column] = width;
      column++;
    }
    if (spans) spanning.push(r, at);
    at += row.length;
  }
  for (let s = 0; s < spanning.length; s += 2) {
    const row = rows[spanning[s]!]!;
    const first = spanning[s + 1]!;
    let column = 0;
    for (let c = 0; c < row.length; c++) {
      const span = cellSpan(row[c]!);
      if (span > 1) {
        const last = Math.min(column + span, widths.length) - 1;
        let room = span - 1;
        for (let index = column; index <= last; index++) room += widths[index]!;
        if (last >= 0) widths[last]! += Math.max(0, textWidths[first + c]! - room);
      }
      column += span;
    }
  }
  return widths;
}

/**
 * `row`'s line, newline included: its texts, and between them the spaces
 * that pad and separate them, one string for each run of spaces, joined in
 * `pieces` (emptied first, and reused from row to row): a flat string a
 * line, where adding cell after cell to a string made one string a step.
 * Its cells' display widths are in `textWidths` from `at` on.
 */
function renderRow(columns: readonly Column[], widths: readonly number[], row: Row, textWidths: Int32Array, at: number, pieces: string[]): string {
  pieces.length = 0;
  /** Spaces owed before the next text: what pads the cell before it, and the one between columns. */
  let owed = 0;
  let column = 0;
  for (let index = 0; index < row.length; index++) {
    const cell = row[index]!;
    const span = cellSpan(cell);
    let width = span - 1;
    for (let covered = column; covered < column + span; covered++) width += widths[covered] ?? 0;
    const textWidth = textWidths[at + index]!;
    const fill = width > textWidth ? width - textWidth : 0;
    if (index > 0) owed++;
    const right = span === 1 && columns[column]?.align === 'right';
    if (right) owed += fill;
    if (owed > 0) pieces.push(spaces(owed));
    pieces.push(cellText(cell));
    // Left-aligned: padded after, unless it ends the line.
    owed = right || index === row.length - 1 ? 0 : fill;
    column += span;
  }
  pieces.push('\n');
  return pieces.join('');
}

/**
 * The table as text, a header line and one line per row, each ending in a
 * newline. Each cell measured once, two passes over the cells, and nothing
 * built per cell: a df of thousands of mounts lays out tens of thousands of
 * cells, mostly before V8 has compiled this code, and its strings are what
 * the collector copies.
 */
export function renderTable(columns: readonly Column[], rows: readonly Row[]): string {
  const header = columns.map((column) => column.header);
  const textWidths = textWidthsOf(header, rows);
  const widths = columnWidths(columns, rows, textWidths);
  const pieces: string[] = [];
  const lines = new Array<string>(rows.length + 1);
  lines[0] = renderRow(columns, widths, header, textWidths, 0, pieces);
  let at = header.length;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    lines[r + 1] = renderRow(columns, widths, row, textWidths, at, pieces);
    at += row.length;
  }
  return lines.join('');
}
