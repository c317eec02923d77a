// list_mounts as a model reads it, from thousands of mounts: one page within
// the budget, a summary of all, and a cursor that pages through every mount
// exactly once, whatever the sort and filters.
import { describe, expect, it } from 'vitest';
import { listMountsTool, presentMounts } from '../../dist/mcp/features/tools/listMountsTool.js';
import { type ListedMount, listedMount } from '../../dist/mcp/features/tools/mountListing.js';
import { TEXT_BUDGET } from '../../dist/mcp/features/tools/pageBudget.js';
import { validateArguments } from '../../dist/mcp/protocol/inputValidation.js';

const TIMEOUT = 5000;
const GiB = 2 ** 30;

/** `count` mounts of the given types in turns, with usage spread over 0-100 %, and every 97th not answering. */
function mounts(count: number, types = ['tmpfs', 'ext4', 'nfs4', 'overlay'], pointLength = 0): ListedMount[] {
  return Array.from({ length: count }, (_, i) => {
    const fsType = types[i % types.length]!;
    const mountPoint = pointLength > 0 ? `/m/${String(i).padStart(5, '0')}${'x'.repeat(pointLength)}` : `/mnt/d${i}`;
    const mount = { mountPoint, device: `dev${i}`, fsType, readOnly: false, pseudo: false };
    if (i % 97 === 5) {
      const error = Object.assign(new Error('not responding'), { code: 'ETIMEDOUT', mountPoint });
      return listedMount({ mount, error }, TIMEOUT);
    }
    const total = ((i % 13) + 1) * GiB;
    const used = Math.floor((total * ((i * 37) % 101)) / 100);
    const usage = {
      path: mountPoint,
      mountPoint,
      fsType,
      total,
      free: total - used,
      available: total - used,
      used,
      usedPercent: (100 * used) / total,
      blockSize: 4096,
      inodes: null,
      backend: 'native' as const,
    };
    return listedMount({ mount, usage }, TIMEOUT);
  });
}

const bytes = (text: string): number => Buffer.byteLength(text);
type Page = ReturnType<typeof presentMounts> & { structured: { mounts: Array<{ mountPoint: string }>; total: number; nextCursor?: string } };
const present = (all: ListedMount[], args: Record<string, unknown> = {}) => presentMounts(all, args) as Page;

/** Every page from the first, following nextCursor. */
function allPages(all: ListedMount[], args: Record<string, unknown>): Page[] {
  const pages = [present(all, args)];
  while (pages.at(-1)!.structured.nextCursor !== undefined) {
    pages.push(present(all, { ...args, cursor: pages.at(-1)!.structured.nextCursor }));
    expect(pages.length).toBeLessThan(5000);
  }
  return pages;
}

describe('list_mounts with many mounts', () => {
  const many = mounts(2000);

  it('answers within the budget, text and structuredContent, and says what it left out', () => {
    const page = present(many);
    expect(bytes(page.text)).toBeLessThanOrEqual(TEXT_BUDGET);
    expect(bytes(JSON.stringify(page.structured))).toBeLessThanOrEqual(TEXT_BUDGET);
    const [head, ...lines] = page.text.split('\n');
    expect(head).toBe('2,000 file systems: 500 ext4, 500 nfs4, 500 overlay, 500 tmpfs. Showing 1–50, fullest first.');
    expect(lines.at(-1)).toMatch(/^1,950 more: pass cursor "[\w-]+" with the same arguments for the next page/);
    expect(page.structured).toMatchObject({ total: 2000, offset: 0, byType: { ext4: 500, nfs4: 500, overlay: 500, tmpfs: 500 } });
    // The fullest first, after the ones that did not answer.
    expect(lines[0]).toContain('not responding');
  });

  it.for([['usage'], ['available'], ['size'], ['mount_point'], ['table']] as const)('pages through every mount exactly once, sorted by %s', ([sort]) => {
    const pages = allPages(many, { sort });
    const seen = pages.flatMap((page) => page.structured.mounts.map((mount) => mount.mountPoint));
    expect(seen).toHaveLength(2000);
    expect(new Set(seen).size).toBe(2000);
    for (const page of pages) {
      expect(bytes(page.text)).toBeLessThanOrEqual(TEXT_BUDGET);
      expect(page.structured.total).toBe(2000);
    }
    if (sort === 'table') expect(seen).toEqual(many.map((mount) => mount.entry.mountPoint));
    if (sort === 'mount_point') expect(seen).toEqual([...seen].sort());
    if (sort === 'usage') {
      // Those that did not answer (-1) first, then the fullest.
      const percents = seen.map((point) => many.find((mount) => mount.entry.mountPoint === point)!.usedPercent);
      const failed = percents.filter((percent) => percent < 0).length;
      expect(percents.slice(0, failed).every((percent) => percent < 0)).toBe(true);
      expect(percents.slice(failed)).toEqual([...percents.slice(failed)].sort((a, b) => b - a));
    }
  });

  it('stops at the budget before the limit when lines are long, and still pages through all', () => {
    const long = mounts(300, ['tmpfs'], 3000);
    const first = present(long, { limit: 1000 });
    expect(bytes(first.text)).toBeLessThanOrEqual(TEXT_BUDGET);
    expect(first.structured.mounts.length).toBeLessThan(10);
    const seen = allPages(long, { limit: 1000 }).flatMap((page) => page.structured.mounts.map((mount) => mount.mountPoint));
    expect(new Set(seen).size).toBe(300);
  });

  it('filters by type, mount point and use, and keeps the mounts that did not answer under min_used_percent', () => {
    const nfs = present(many, { fs_type: 'nfs4,ext4', limit: 1000 });
    expect(nfs.structured.total).toBe(1000);
    expect(nfs.text.split('\n')[0]).toMatch(/^1,000 matching file systems: 500 ext4, 500 nfs4 \(of 2,000 in all\)\./);
    // By whole components: /mnt/d19, and not its neighbours /mnt/d190 or /mnt/d1.
    expect(present(many, { mount_prefix: '/mnt/d19', limit: 1000 }).structured.mounts.map((mount) => mount.mountPoint)).toEqual(['/mnt/d19']);
    expect(present(many, { mount_prefix: '/mnt', limit: 1000 }).structured.total).toBe(2000);
    expect(present(many, { mount_prefix: '/mnt/', limit: 1000 }).structured.total).toBe(2000);
    expect(present(many, { mount_prefix: '/mn' }).structured.total).toBe(0);
    const full = allPages(many, { min_used_percent: 90 }).flatMap((page) => page.structured.mounts);
    for (const entry of full as unknown as Array<{ usage: { usedPercent: number } | null; error: string | null }>) {
      if (entry.usage === null) expect(entry.error).toContain('not responding');
      else expect(Math.ceil(entry.usage.usedPercent)).toBeGreaterThanOrEqual(90);
    }
    expect(present(many, { fs_type: 'zfs' }).text).toBe('no file system matches (of 2,000 file systems: 500 ext4, 500 nfs4, 500 overlay, 500 tmpfs)');
  });

  it('refuses a cursor it did not give, or given for other arguments, or past the end, as a result the model can read', () => {
    const cursor = present(many).structured.nextCursor!;
    expect(present(many, { cursor: 'bogus!' })).toMatchObject({ isError: true, text: expect.stringContaining('not a cursor list_mounts gave') });
    expect(present(many, { cursor, sort: 'size' })).toMatchObject({ isError: true, text: expect.stringContaining('other arguments') });
    expect(present(mounts(10), { cursor })).toMatchObject({ isError: true, text: expect.stringContaining('past the end') });
  });

  it('shows a few mounts whole, with no cursor', () => {
    const few = present(mounts(5));
    expect(few.text.split('\n')[0]).toBe('5 file systems: 2 tmpfs, 1 ext4, 1 nfs4, 1 overlay. All shown, fullest first.');
    expect(few.structured).not.toHaveProperty('nextCursor');
    expect(few.structured.mounts).toHaveLength(5);
  });

  it('describes every argument in its inputSchema, and enforces what it says', () => {
    const { properties } = listMountsTool.inputSchema;
    for (const [name, property] of Object.entries(properties)) expect(property.description.length, name).toBeGreaterThan(20);
    expect(Object.keys(properties).sort()).toEqual(['all', 'cursor', 'fs_type', 'limit', 'min_used_percent', 'mount_prefix', 'sort']);
    const schema = listMountsTool.inputSchema;
    expect(validateArguments(schema, { sort: 'random' })).toEqual([expect.stringContaining('"sort" must be one of')]);
    expect(validateArguments(schema, { min_used_percent: 101 })).toEqual(['"min_used_percent" must be at most 100, not 101']);
    expect(validateArguments(schema, { limit: 0 })).toEqual(['"limit" must be at least 1, not 0']);
    expect(validateArguments(schema, { limit: 2.5 })).toEqual([expect.stringContaining('"limit" must be an integer')]);
    expect(validateArguments(schema, { mount_prefix: 'var' }, listMountsTool.hints)).toEqual(['"mount_prefix" is "var": use an absolute path, such as "/var"']);
    expect(validateArguments(schema, { fs_type: 'ext4, xfs' }, listMountsTool.hints)).toHaveLength(1);
    expect(
      validateArguments(schema, { sort: 'size', fs_type: 'ext4,xfs', mount_prefix: '/', min_used_percent: 0, limit: 1000, cursor: 'x', all: true }),
    ).toEqual([]);
  });
});

describe('list_mounts words', () => {
  it('counts the types past the twelve named with the noun in the number it takes', () => {
    const types = Array.from({ length: 13 }, (_, i) => `type${String(i).padStart(2, '0')}`);
    expect(present(mounts(13, types)).text.split('\n')[0]).toMatch(/: 1 type\d\d(, 1 type\d\d){11}, 1 of 1 other type\. All shown/);
    expect(present(mounts(14, [...types, 'type13'])).text.split('\n')[0]).toContain(', 2 of 2 other types. All shown');
    expect(present(mounts(1)).text.split('\n')[0]).toBe('1 file system: 1 tmpfs. All shown, fullest first.');
  });
});
