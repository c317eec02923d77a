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
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : DOUBLE_WIDTH.test(char) ? 2 : 1;
  return width;
}

interface Placed {
  readonly text: string;
  readonly column: number;
  readonly span: number;
}

/** The cells of a row with the column each starts in. */
function place(row: Row): Placed[] {
  const placed: Placed[] = [];
  let column = 0;
  for (const cell of row) {
    const span = typeof cell === 'string' ? 1 : Math.max(1, cell.span);
    placed.push({ text: typeof cell === 'string' ? cell : cell.text, column, span });
    column += span;
  }
  return placed;
}

function columnWidths(columns: readonly Column[], rows: readonly Placed[][]): number[] {
  const widths = columns.map((column) => Math.max(column.minWidth, displayWidth(column.header)));
  for (const row of rows) {
    for (const cell of row) {
      if (cell.span === 1 && cell.column < widths.length) widths[cell.column] = Math.max(widths[cell.column]!, displayWidth(cell.text));
    }
  }
  // A spanning cell wider than the columns it covers widens the last of them.
  for (const row of rows) {
    for (const cell of row) {
      if (cell.span === 1) continue;
      const last = Math.min(cell.column + cell.span, widths.length) - 1;
      let room = cell.span - 1;
      for (let index = cell.column; index <= last; index++) room += widths[index]!;
      if (last >= 0) widths[last]! += Math.max(0, displayWidth(cell.text) - room);
    }
  }
  return widths;
}

/** The table as text, a header line and one line per row, each ending in a newline. */
export function renderTable(columns: readonly Column[], rows: readonly Row[]): string {
  const header = columns.map((column, index) => ({ text: column.header, column: index, span: 1 }));
  const placedRows = [header, ...rows.map(place)];
  const widths = columnWidths(columns, placedRows);
  const lines = placedRows.map((row) =>
    row
      .map((cell, index) => {
        let width = cell.span - 1;
        for (let column = cell.column; column < cell.column + cell.span; column++) width += widths[column] ?? 0;
        const fill = ' '.repeat(Math.max(0, width - displayWidth(cell.text)));
        const right = cell.span === 1 && columns[cell.column]?.align === 'right';
        if (right) return fill + cell.text;
        return index === row.length - 1 ? cell.text : cell.text + fill;
      })
      .join(' '),
  );
  return lines.map((line) => `${line}\n`).join('');
}
