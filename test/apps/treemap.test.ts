// The squarified layout of the directory view (views/treemap.ts): every
// tile's area is its share of the rectangle, the tiles fill it without
// overlapping, and they are as square as the algorithm makes them.
import { describe, expect, it } from 'vitest';

import { squarify } from '../../views/treemap.js';

const bounds = { x: 0, y: 0, width: 160, height: 90 };

/** Sizes from a fixed seed: the same on every run, spread over six orders of magnitude. */
function sizes(count: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.round(10 ** (1 + (6 * state) / 2 ** 31));
  });
}

describe('squarify', () => {
  it.for([1, 2, 7, 40, 500])('gives each of %i items an area in proportion to its size, and fills the rectangle', (count) => {
    const items = sizes(count, count).map((size, index) => ({ item: index, size }));
    const total = items.reduce((sum, entry) => sum + entry.size, 0);
    const tiles = squarify(items, bounds);
    expect(tiles).toHaveLength(count);
    const area = bounds.width * bounds.height;
    for (const tile of tiles) {
      expect(tile.width * tile.height).toBeCloseTo((area * items[tile.item]!.size) / total, 6);
      expect(tile.x).toBeGreaterThanOrEqual(-1e-9);
      expect(tile.y).toBeGreaterThanOrEqual(-1e-9);
      expect(tile.x + tile.width).toBeLessThanOrEqual(bounds.width + 1e-9);
      expect(tile.y + tile.height).toBeLessThanOrEqual(bounds.height + 1e-9);
    }
    expect(tiles.reduce((sum, tile) => sum + tile.width * tile.height, 0)).toBeCloseTo(area, 6);
    // No two overlap (sampled pairs when there are many).
    for (let a = 0; a < tiles.length; a += Math.ceil(tiles.length / 50)) {
      for (let b = a + 1; b < tiles.length; b++) {
        const [p, q] = [tiles[a]!, tiles[b]!];
        const overlap =
          Math.max(0, Math.min(p.x + p.width, q.x + q.width) - Math.max(p.x, q.x)) * Math.max(0, Math.min(p.y + p.height, q.y + q.height) - Math.max(p.y, q.y));
        expect(overlap, `${p.item} and ${q.item}`).toBeLessThan(1e-6);
      }
    }
  });

  it('lays equal sizes out as near-squares, largest first, and leaves out what takes no space', () => {
    const tiles = squarify([...Array.from({ length: 16 }, (_, index) => ({ item: index, size: 100 })), { item: 99, size: 0 }], {
      x: 0,
      y: 0,
      width: 100,
      height: 100,
    });
    expect(tiles).toHaveLength(16);
    for (const tile of tiles) expect(Math.max(tile.width / tile.height, tile.height / tile.width)).toBeLessThan(1.5);
    const ordered = squarify(
      [5, 50, 20].map((size) => ({ item: size, size })),
      bounds,
    );
    expect(ordered.map((tile) => tile.item)).toEqual([50, 20, 5]);
  });

  it('gives nothing for nothing: no items, all empty, or a rectangle without area', () => {
    expect(squarify([], bounds)).toEqual([]);
    expect(squarify([{ item: 1, size: 0 }], bounds)).toEqual([]);
    expect(squarify([{ item: 1, size: 5 }], { x: 0, y: 0, width: 0, height: 10 })).toEqual([]);
  });
});
