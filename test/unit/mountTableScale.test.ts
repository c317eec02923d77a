// The mount table's answers at any size: the indexed lookups (which mount
// holds a path, which mount a hidden one shows) agree on random tables with
// their definitions, written here the slow, obvious way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MountEntry } from '../../dist/probe/mountEntry.js';
import { parseMountInfo } from '../../dist/probe/mountInfo.js';
import { MountTable } from '../../dist/probe/mountTable.js';

const isWithin = (path: string, dir: string): boolean => path.startsWith(dir) && (path.length === dir.length || dir.endsWith('/') || path[dir.length] === '/');

/** The deepest visible mount whose point `path` is within: every mount looked at. */
function lexicalByDefinition(entries: readonly MountEntry[], path: string): string | undefined {
  const visible = new Map<string, MountEntry>();
  for (const entry of entries) visible.set(entry.mountPoint, entry);
  let best: MountEntry | undefined;
  for (const entry of visible.values()) if (isWithin(path, entry.mountPoint) && (!best || entry.mountPoint.length > best.mountPoint.length)) best = entry;
  return best?.mountPoint;
}

/** The mount `entry`'s point shows: the deepest later mount over it or above it that it is not itself mounted on. */
function shownByDefinition(entries: readonly MountEntry[], entry: MountEntry): MountEntry {
  const byId = new Map(entries.map((e) => [e.mountId, e]));
  const beneath = new Set<number>();
  for (let at = byId.get(entry.parentId); at !== undefined && !beneath.has(at.mountId); at = byId.get(at.parentId)) beneath.add(at.mountId);
  let shown = entry;
  for (const candidate of entries) {
    if (candidate === entry || beneath.has(candidate.mountId) || !isWithin(entry.mountPoint, candidate.mountPoint)) continue;
    if (shown === entry || candidate.mountPoint.length >= shown.mountPoint.length) shown = candidate;
  }
  return shown;
}

/** The df set by its definition: the same rules as MountTable.dfCandidates, with shownByDefinition. */
function dfByDefinition(entries: readonly MountEntry[]): string[] {
  const probe = new MountTable(entries.map((entry) => ({ ...entry, deviceKey: shownByDefinition(entries, entry).deviceKey, parentId: Number.NaN })));
  return probe.dfCandidates().map((entry) => `${entry.mountId}`);
}

// Random tables: mounts on a few directories, stacked and nested, each mounted
// on the mount that held its point when it was made (as the kernel does).
const table = fc
  .array(
    fc.record({
      dir: fc.constantFrom('/', '/a', '/a/b', '/a/b/c', '/ab', '/d', '/d/e', '/a/bc'),
      type: fc.constantFrom('ext4', 'tmpfs', 'nfs4', 'proc'),
      device: fc.integer({ min: 1, max: 6 }),
    }),
    {
      minLength: 1,
      maxLength: 40,
    },
  )
  .map((mounts) => {
    const lines = ['1 0 8:1 / / rw - ext4 /dev/root rw'];
    const made: Array<{ id: number; dir: string }> = [{ id: 1, dir: '/' }];
    mounts.forEach(({ dir, type, device }, index) => {
      const id = index + 2;
      // The parent: the last mount made at the deepest directory at or above `dir`.
      let parent = made[0]!;
      for (const mount of made) if (isWithin(dir, mount.dir) && mount.dir.length >= parent.dir.length) parent = mount;
      made.push({ id, dir });
      const source = type === 'nfs4' ? `server:/export${device}` : `/dev/sd${device}`;
      lines.push(`${id} ${parent.id} 0:${device} / ${dir} rw - ${type} ${source} rw`);
    });
    return parseMountInfo(lines.join('\n'));
  });

describe('MountTable at any size', () => {
  it('finds the mount holding a path as its definition does, on random tables', () => {
    fc.assert(
      fc.property(table, fc.constantFrom('/', '/a', '/a/b/c/x', '/ab/x', '/a/bcd', '/d/e/f', '/zz', '/a/b'), (entries, path) => {
        expect(new MountTable(entries).lexical(path)?.mountPoint).toBe(lexicalByDefinition(entries, path));
      }),
      { numRuns: 300 },
    );
  });

  it('lists the df set as its definition does, hidden mounts included, on random tables', () => {
    fc.assert(
      fc.property(table, (entries) => {
        expect(new MountTable(entries).dfCandidates().map((entry) => `${entry.mountId}`)).toEqual(dfByDefinition(entries));
      }),
      { numRuns: 300 },
    );
  });

  it('answers for 20,000 mounts in well under a second: nothing is quadratic', () => {
    const lines = ['1 0 8:1 / / rw - ext4 /dev/root rw', '2 1 0:2 / /m rw - tmpfs t rw'];
    for (let i = 0; i < 20_000; i++) lines.push(`${i + 3} 2 0:${i + 3} / /m/d${i} rw - tmpfs tmpfs rw`);
    // And 2,000 more stacked on one point, the deepest case for "which mount hides which".
    for (let i = 0; i < 2_000; i++) lines.push(`${i + 30_000} ${i === 0 ? 2 : i + 29_999} 0:${i + 30_000} / /m/stack rw - tmpfs tmpfs rw`);
    const started = performance.now();
    const parsed = new MountTable(parseMountInfo(lines.join('\n')));
    const listed = parsed.dfCandidates();
    for (let i = 0; i < 20_000; i += 97) parsed.lexical(`/m/d${i}/file`);
    const took = performance.now() - started;
    expect(listed.length).toBe(20_000 + 3);
    // A quadratic step takes minutes here (the old "which mount hides which" took 475 ms at 2,000).
    expect(took).toBeLessThan(5_000);
  });
});
