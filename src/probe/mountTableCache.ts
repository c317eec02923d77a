import type { MountTable } from './mountTable.js';

/**
 * Keeps one MountTable and re-reads it when `changed()` says so (Linux: the
 * kernel's poll flag on mountinfo) or, where there is no such signal, when
 * it is older than `maxAgeMs` or does not know a device it is asked about.
 */
export class MountTableCache {
  private table: MountTable | undefined;
  private readAt = 0;
  /** Devices a fresh table did not know either (btrfs subvolumes, say): no re-read for them. */
  private readonly unknown = new Set<number>();

  constructor(
    private readonly read: () => MountTable,
    private readonly changed: (() => boolean) | undefined,
    /** Told which mount points came and went, when a re-read shows any. */
    private readonly onChange: (added: string[], removed: string[]) => void = () => {},
    private readonly maxAgeMs = 1000,
  ) {}

  current(): MountTable {
    if (this.table === undefined) return this.reload();
    if (this.changed ? this.changed() : performance.now() - this.readAt > this.maxAgeMs) return this.reload();
    return this.table;
  }

  /** The current table, re-read first if it may predate the mount of device `key`. */
  knowing(key: number): MountTable {
    const table = this.current();
    // Even with a change signal: it may lag a mount made a moment ago.
    if (table.has(key) || Number.isNaN(key) || this.unknown.has(key)) return table;
    const fresh = this.reload();
    if (!fresh.has(key)) this.unknown.add(key);
    return fresh;
  }

  /** The table as it is now: listing mounts is rare enough to re-read it when no change signal vouches for the cache. */
  fresh(): MountTable {
    return this.changed ? this.current() : this.reload();
  }

  /** The table read again, whatever the signal says: for a walk, whose every answer may depend on a mount made a moment ago. */
  reread(): MountTable {
    return this.reload();
  }

  private reload(): MountTable {
    const before = this.table;
    this.table = this.read();
    // Only the age decides without a change signal; with one, `performance`
    // is not even loaded (its modules cost diskprobe df 2 ms of each start).
    if (this.changed === undefined) this.readAt = performance.now();
    this.unknown.clear();
    if (before !== undefined) {
      const was = new Set(before.entries.map((entry) => entry.mountPoint));
      const now = new Set(this.table.entries.map((entry) => entry.mountPoint));
      const added = [...now].filter((mountPoint) => !was.has(mountPoint));
      const removed = [...was].filter((mountPoint) => !now.has(mountPoint));
      if (added.length > 0 || removed.length > 0) this.onChange(added, removed);
    }
    return this.table;
  }
}
