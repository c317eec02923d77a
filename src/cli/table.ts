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
export interface SpanningCell {
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

interface Placed {
  readonly text: string;
  /** Its display width, measured once. */
  readonly width: number;
  readonly column: number;
  readonly span: number;
}

/** The cells of a row with the column each starts in. */
function place(row: Row): Placed[] {
  const placed: Placed[] = [];
  let column = 0;
  for (const cell of row) {
    const span = typeof cell === 'string' ? 1 : Math.max(1, cell.span);
    const text = typeof cell === 'string' ? cell : cell.text;
    placed.push({ text, width: displayWidth(text), column, span });
    column += span;
  }
  return placed;
}

function columnWidths(columns: readonly Column[], rows: readonly Placed[][]): number[] {
  const widths = columns.map((column) => Math.max(column.minWidth, displayWidth(column.header)));
  for (const row of rows) {
    for (const cell of row) {
      if (cell.span === 1 && cell.column < widths.length) widths[cell.column] = Math.max(widths[cell.column]!, cell.width);
    }
  }
  // A spanning cell wider than the columns it covers widens the last of them.
  for (const row of rows) {
    for (const cell of row) {
      if (cell.span === 1) continue;
      const last = Math.min(cell.column + cell.span, widths.length) - 1;
      let room = cell.span - 1;
      for (let index = cell.column; index <= last; index++) room += widths[index]!;
      if (last >= 0) widths[last]! += Math.max(0, cell.width - room);
    }
  }
  return widths;
}

/**
 * The table as text, a header line and one line per row, each ending in a
 * newline. Built in one pass with each width measured once: a df of
 * thousands of mounts lays out tens of thousands of cells.
 */
export function renderTable(columns: readonly Column[], rows: readonly Row[]): string {
  const header = place(columns.map((column) => column.header));
  const placedRows = [header, ...rows.map(place)];
  const widths = columnWidths(columns, placedRows);
  let text = '';
  for (const row of placedRows) {
    for (let index = 0; index < row.length; index++) {
      const cell = row[index]!;
      let width = cell.span - 1;
      for (let column = cell.column; column < cell.column + cell.span; column++) width += widths[column] ?? 0;
      const fill = width > cell.width ? ' '.repeat(width - cell.width) : '';
      if (index > 0) text += ' ';
      if (cell.span === 1 && columns[cell.column]?.align === 'right') text += fill + cell.text;
      else text += index === row.length - 1 ? cell.text : cell.text + fill;
    }
    text += '\n';
  }
  return text;
}
