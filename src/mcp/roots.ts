// --root: the directories the server may report on. A path counts by where it
// really is (symlinks resolved), so a link out of a root is refused, and a
// refusal reads the same whether the path exists or not.
//
// The real path is read only after the path's mount has answered a probe:
// realpath on a dead mount would block (and in libuv's pool, starve it).
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
}

/** The real path of `path`, or for one that does not exist, its nearest existing ancestor's real path joined to the rest. */
function realLocation(path: string): string {
  let missing = '';
  let current = resolve(path);
  for (;;) {
    try {
      return missing === '' ? realpathSync.native(current) : join(realpathSync.native(current), missing);
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      missing = missing === '' ? current.slice(parent.length).replace(/^[\\/]/, '') : join(current.slice(parent.length).replace(/^[\\/]/, ''), missing);
      current = parent;
    }
  }
}

export class RootPolicy {
  /** The roots' real paths; empty when every path is allowed. */
  readonly roots: readonly string[];

  /** Throws with a message naming the root when one does not exist. */
  constructor(roots: readonly string[]) {
    this.roots = roots.map((root) => {
      try {
        return realpathSync.native(resolve(root));
      } catch (error) {
        throw new Error(`--root ${root}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message}`);
      }
    });
  }

  get restricted(): boolean {
    return this.roots.length > 0;
  }

  /** Whether `path`, where it really is, lies under a root. Call once its mount has answered. */
  allows(path: string): boolean {
    if (!this.restricted) return true;
    const real = realLocation(path);
    return this.roots.some((root) => within(real, root));
  }

  /** Whether `path` lies under a root by name alone: for a mount that does not answer, whose real paths cannot be read. */
  allowsByName(path: string): boolean {
    return !this.restricted || this.roots.some((root) => within(resolve(path), root));
  }

  /** Whether a mount point matters under these roots: it holds a root, or lies inside one. */
  showsMount(mountPoint: string): boolean {
    return !this.restricted || this.roots.some((root) => within(root, mountPoint) || within(mountPoint, root));
  }

  /** The one answer for every refused path, existing or not. */
  refusal(path: string): string {
    return `EACCES: ${path}: outside the allowed roots (${this.roots.join(', ')}); ask about a path under one of them`;
  }
}
