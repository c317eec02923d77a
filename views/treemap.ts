// The squarified treemap layout (Bruls, Huizing and van Wijk, "Squarified
// Treemaps", 2000): items, largest first, fill rows along the shorter side
// of what is left, a row growing while that makes its worst aspect ratio
// better. Each tile's area is its share of the rectangle, exactly.

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Tile<T> extends Rect {
  readonly item: T;
}

/** Lays out `items` (size > 0 each, any order) in `bounds`; largest first in the result. */
export function squarify<T>(items: ReadonlyArray<{ readonly item: T; readonly size: number }>, bounds: Rect): Tile<T>[] {
  const sorted = items.filter((entry) => entry.size > 0).sort((a, b) => b.size - a.size);
  const total = sorted.reduce((sum, entry) => sum + entry.size, 0);
  if (total === 0 || bounds.width <= 0 || bounds.height <= 0) return [];
  const scale = (bounds.width * bounds.height) / total;
  const areas = sorted.map((entry) => entry.size * scale);
  const tiles: Tile<T>[] = [];
  let free = bounds;
  let start = 0;
  while (start < areas.length) {
    const side = Math.min(free.width, free.height);
    let end = start + 1;
    let worst = worstRatio(areas, start, end, side);
    while (end < areas.length) {
      const next = worstRatio(areas, start, end + 1, side);
      if (next > worst) break;
      worst = next;
      end++;
    }
    free = placeRow(areas, start, end, free, sorted, tiles);
    start = end;
  }
  return tiles;
}

/** The worst aspect ratio of areas[start..end) laid in one row along a side of length `side`. */
function worstRatio(areas: readonly number[], start: number, end: number, side: number): number {
  let sum = 0;
  let largest = 0;
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = start; i < end; i++) {
    const area = areas[i]!;
    sum += area;
    largest = Math.max(largest, area);
    smallest = Math.min(smallest, area);
  }
  const sideSquared = side * side;
  const sumSquared = sum * sum;
  return Math.max((sideSquared * largest) / sumSquared, sumSquared / (sideSquared * smallest));
}

/** Lays areas[start..end) as one row along the shorter side of `free`; returns what is left. */
function placeRow<T>(areas: readonly number[], start: number, end: number, free: Rect, sorted: ReadonlyArray<{ readonly item: T }>, tiles: Tile<T>[]): Rect {
  let sum = 0;
  for (let i = start; i < end; i++) sum += areas[i]!;
  const across = free.width >= free.height;
  // A row along the left edge when the free space is wide, along the top when it is tall.
  const thickness = across ? sum / free.height : sum / free.width;
  let offset = 0;
  for (let i = start; i < end; i++) {
    const length = areas[i]! / thickness;
    tiles.push(
      across
        ? { item: sorted[i]!.item, x: free.x, y: free.y + offset, width: thickness, height: length }
        : { item: sorted[i]!.item, x: free.x + offset, y: free.y, width: length, height: thickness },
    );
    offset += length;
  }
  return across
    ? { x: free.x + thickness, y: free.y, width: free.width - thickness, height: free.height }
    : { x: free.x, y: free.y + thickness, width: free.width, height: free.height - thickness };
}
