// Why the fs.statfs fallback answers, and what to do about it. The package
// has no install script (npm 12 blocks them by default, and npm 11.16+ warns
// of each), so where no prebuild matches nothing was built at install: the
// fallback answers, and its first probe says once, on stderr, how to build
// the addon (issue 17). DISKPROBE_BACKEND=statfs chose the fallback on
// purpose, and hears nothing.
import type { ProbeBackend } from './backend.js';

/** The command that builds the addon inside an installed diskprobe; docs/platforms.md shows it too. */
export const BUILD_COMMAND = 'npm explore diskprobe -- npx --yes node-gyp@12 rebuild';

/** Why the fallback answers: chosen (DISKPROBE_BACKEND=statfs), or the addon did not load (with the loader's reason). */
export type FallbackCause = { readonly kind: 'chosen' } | { readonly kind: 'notLoaded'; readonly reason: string };

/** One line for a log or a client: why sizes come from fs.statfs, and what that costs. */
export function describeFallback(cause: FallbackCause): string {
  const why =
    cause.kind === 'chosen'
      ? 'DISKPROBE_BACKEND=statfs chose the fs.statfs fallback'
      : `the native addon did not load for ${process.platform}-${process.arch} (${firstLine(cause.reason)}), so the fs.statfs fallback answers`;
  return `${why}; sizes are inexact where f_bsize differs from f_frsize (FUSE, virtiofs, ZFS, CephFS)`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/**
 * `fallback`, which says once, at its first probe, why it answers and how
 * to build the addon: as a process warning (stderr, unless the application
 * listens for 'warning' or runs with --no-warnings), code DISKPROBE_NO_ADDON.
 */
export function announcedAtFirstProbe(fallback: ProbeBackend, cause: FallbackCause): ProbeBackend {
  if (cause.kind === 'chosen') return fallback;
  let told = false;
  const tell = (): void => {
    if (told) return;
    told = true;
    process.emitWarning(describeFallback(cause), {
      code: 'DISKPROBE_NO_ADDON',
      detail: `To build the addon (a C++ compiler, make and Python are needed), run: ${BUILD_COMMAND}\nWith a global install: npm explore -g diskprobe -- npx --yes node-gyp@12 rebuild`,
    });
  };
  return {
    name: fallback.name,
    sync(osPath, path, bigint) {
      tell();
      return fallback.sync(osPath, path, bigint);
    },
    syncWithTimeout(target, bigint, timeout) {
      tell();
      return fallback.syncWithTimeout(target, bigint, timeout);
    },
    async(target, bigint, timeout, signal) {
      tell();
      return fallback.async(target, bigint, timeout, signal);
    },
  };
}
