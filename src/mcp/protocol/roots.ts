// --root: the directories the server may report on. A path counts by where it
// really is (symlinks resolved), so a link out of a root is refused, and a
// refusal reads the same whether the path exists or not.
//
// The real path is read only after the path's mount has answered a probe:
// realpath on a dead mount would block (and in libuv's pool, starve it).
//
// A real path that is not valid UTF-8 is refused: as a string it would hold
// U+FFFD, which could equal the name of a root.
//
// realpath does not see through bind mounts. A path on a mount that holds a
// root is the root's own. On a mount inside a root it must show a directory
// from inside a root of the same device, or one whose every other name (the
// source of a bind mount, another mount of the device) lies under a root: a
// bind mount of an outside directory is refused like a symlink out of it.
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { displayPath } from '../../format/displayPath.js';
import { mountAliases, mountSource } from '../../probe/runtime.js';

/** Errors that say the path itself is unusable (NUL byte, lone surrogate, too long): judged by name, without touching the file system. */
const INVALID_PATH = new Set(['ERR_INVALID_ARG_VALUE', 'ERR_INVALID_ARG_TYPE', 'ENAMETOOLONG']);

function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Thrown by realpathExact: the real path's bytes are not UTF-8, so no string names it faithfully. */
class NotUtf8 extends Error {}

/** realpath, refusing a result that is not valid UTF-8 (a string would carry U+FFFD, which could match another name). */
function realpathExact(path: string): string {
  const bytes = realpathSync.native(path, { encoding: 'buffer' });
  try {
    return utf8.decode(bytes);
  } catch {
    throw new NotUtf8();
  }
}

/**
 * The real path of `path`, or for one that does not exist, its nearest
 * existing ancestor's real path joined to the rest; undefined when the real
 * path is not valid UTF-8.
 */
function realLocation(path: string): string | undefined {
  let missing = '';
  let current = resolve(path);
  for (;;) {
    try {
      return missing === '' ? realpathExact(current) : join(realpathExact(current), missing);
    } catch (error) {
      if (error instanceof NotUtf8) return undefined;
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

  /**
   * Throws with a message naming the root when one does not exist.
   * `mounts` tells where a real path lies and its other names (tests replace it).
   */
  constructor(
    roots: readonly string[],
    private readonly mounts: { source: typeof mountSource; aliases: typeof mountAliases } = { source: mountSource, aliases: mountAliases },
  ) {
    this.roots = roots.map((root) => {
      try {
        return realpathExact(resolve(root));
      } catch (error) {
        if (error instanceof NotUtf8) throw new Error(`--root ${root}: its real path is not valid UTF-8, so no request could name what is under it`);
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
    if (real === undefined || !this.roots.some((root) => within(real, root))) return false;
    const source = this.mounts.source(real);
    // No mount table (not Linux), or the path's mount holds a root: the root's own content.
    if (source === undefined || this.roots.some((root) => within(real, root) && within(root, source.mountPoint))) return true;
    // A mount inside a root. It shows the root's own content if that
    // directory lies inside a root on the same device (a bind of a
    // directory of the root)...
    for (const root of this.roots) {
      const rootSource = this.mounts.source(root);
      if (rootSource?.deviceKey === source.deviceKey && within(source.inDevice, rootSource.inDevice)) return true;
    }
    // ...or if every other name its directory has lies under a root, or under
    // another name of one (a root that is a bind mount); none at all when the
    // device is mounted nowhere else (a file system of its own, a volume).
    const aliases = this.mounts.aliases(real);
    const rootNames = this.roots.flatMap((root) => [root, ...this.mounts.aliases(root)]);
    return aliases.every((alias) => rootNames.some((root) => within(alias, root)));
  }

  /**
   * Whether to report a failed probe of `path`, or refuse it as outside the
   * roots. A mount that does not answer, and a path that is unusable as
   * such, are judged by name: their real paths cannot, or need not, be read.
   */
  allowsFailed(path: string, error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'ETIMEDOUT' || INVALID_PATH.has(code as string) ? this.allowsByName(path) : this.allows(path);
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
    return `EACCES: ${displayPath(path)}: outside the allowed roots (${this.roots.join(', ')}); ask about a path under one of them`;
  }
}
