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

function displayWidth(text: string): number {
  // Printable ASCII, nearly every cell: one column a character, no regex.
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) {
    const code = text.charCodeAt(i);
    ascii = code >= 0x20 && code < 0x7f;
  }
  if (ascii) return text.length;
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : DOUBLE_WIDTH.test(char) ? 2 : 1;
  return width;
}

const cellText = (cell: Cell): string => (typeof cell === 'string' ? cell : cell.text);
const cellSpan = (cell: Cell): number => (typeof cell === 'string' ? 1 : Math.max(1, cell.span));

/**
 * Each column's width: its widest one-column cell, at least its minimum; a
 * spanning cell wider than the columns it covers widens the last of them.
 */
function columnWidths(columns: readonly Column[], rows: readonly Row[]): number[] {
  const widths = columns.map((column) => Math.max(column.minWidth, displayWidth(column.header)));
  const spanning: Row[] = [];
  for (const row of rows) {
    let column = 0;
    let spans = false;
    for (const cell of row) {
      if (typeof cell !== 'string') {
        spans = true;
        column += cellSpan(cell);
        continue;
      }
      if (column < widths.length) {
        const width = displayWidth(cell);
        if (width > widths[column]!) widths[column] = width;
      }
      column++;
    }
    if (spans) spanning.push(row);
  }
  for (const row of spanning) {
    let column = 0;
    for (const cell of row) {
      const span = cellSpan(cell);
      if (span > 1) {
        const last = Math.min(column + span, widths.length) - 1;
        let room = span - 1;
        for (let index = column; index <= last; index++) room += widths[index]!;
        if (last >= 0) widths[last]! += Math.max(0, displayWidth(cellText(cell)) - room);
      }
      column += span;
    }
  }
  return widths;
}

function renderRow(columns: readonly Column[], widths: readonly number[], row: Row): string {
  let line = '';
  let column = 0;
  for (let index = 0; index < row.length; index++) {
    const cell = row[index]!;
    const text = cellText(cell);
    const span = cellSpan(cell);
    let width = span - 1;
    for (let covered = column; covered < column + span; covered++) width += widths[covered] ?? 0;
    const textWidth = displayWidth(text);
    const fill = width > textWidth ? ' '.repeat(width - textWidth) : '';
    if (index > 0) line += ' ';
    if (span === 1 && columns[column]?.align === 'right') line += fill + text;
    else line += index === row.length - 1 ? text : text + fill;
    column += span;
  }
  return line;
}

/**
 * The table as text, a header line and one line per row, each ending in a
 * newline. Two passes over the cells and nothing built per cell but its
 * text: a df of thousands of mounts lays out tens of thousands of cells,
 * mostly before V8 has compiled this code.
 */
export function renderTable(columns: readonly Column[], rows: readonly Row[]): string {
  const widths = columnWidths(columns, rows);
  const lines = [
    renderRow(
      columns,
      widths,
      columns.map((column) => column.header),
    ),
  ];
  for (const row of rows) lines.push(renderRow(columns, widths, row));
  lines.push('');
  return lines.join('\n');
}
