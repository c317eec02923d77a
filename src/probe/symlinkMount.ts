// Where a path that leads off its mount (a symlink to another one) really
// leads, so that its probe can be held to that mount's lane and fail fast
// while that mount is stuck, like every other probe of it.
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';

import type { MountEntry, MountTable } from './mountTable.js';

/** Symlinks followed before giving up, as Linux's MAXSYMLINKS. */
const MAX_LINKS = 40;

/**
 * The mount that absolute `path` leads to, found by following its symlinks
 * by name (lstat and readlink of each component) as the kernel would, but
 * touching only mounts whose file system answers from memory
 * (MountEntry.answersFromMemory): at the first component on any other mount
 * (NFS, FUSE, ...), which may never answer, it stops and returns that mount,
 * by name. A mount point itself is judged by its own mount before any call.
 * Undefined when it cannot tell: a loop, a component gone or unreadable.
 */
export function mountLedTo(path: string, table: MountTable): MountEntry | undefined {
  let pending = path.split('/').filter((part) => part !== '');
  let current = '/';
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '.') continue;
    // `current` has no symlinks left in it, so its parent by name is its parent.
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    const mount = table.lexical(next);
    if (mount === undefined) return undefined;
    if (!mount.answersFromMemory) return mount;
    try {
      if (!lstatSync(next).isSymbolicLink()) {
        current = next;
        continue;
      }
      if (++links > MAX_LINKS) return undefined;
      const target = readlinkSync(next);
      pending = [...target.split('/').filter((piece) => piece !== ''), ...pending];
      if (target.startsWith('/')) current = '/';
    } catch {
      return undefined;
    }
  }
  return table.lexical(current);
}
