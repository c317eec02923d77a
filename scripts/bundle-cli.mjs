// `npm run compile:bundle`: the diskprobe command as self-contained files,
// bundled from tsc's output: dist/bin/main.js (the command) and
// dist/bin/isolatedWorker.js (the child that `diskprobe df` and `diskprobe
// metrics` start when a mount may block), and the bin, dist/bin/diskprobe.js,
// a tiny entry that handles SIGTERM and SIGINT (dist/bin/stopSignals.js)
// before it loads main.js (src/cli/diskprobe.ts says why). stopSignals.js is
// one file that every bundle imports, so the entry and the command share its
// state; main.js too is left for the entry to import at run time.
//
// Why: loading the command's two dozen modules one by one cost 25-30 ms of
// every start (resolving, reading and linking each), a fifth of a
// `diskprobe df` and of the server's cold start; one file costs a few.
// The library (dist/index.js) stays unbundled: an application's own bundler
// or Node loads only what it imports.
//
// The bundles live one directory below dist/, as dist/cli/ does, so paths the
// code builds from import.meta.url (the package root, package.json) come out
// the same from either. The fallback's helpers (statfsHelper.js,
// fallbackWalker.js) are bundled beside the command, so dist/bin/ needs
// nothing else of dist/ (an MCP Bundle ships dist/bin/ alone). The fallback
// backend is bundled in rather than require()d from dist/probe/, so the
// command never holds two copies of the probe (fallbackLoader.bundled.ts).
import { rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Swaps dist/probe/fallbackLoader.js for its bundled variant. */
const bundledFallback = {
  name: 'bundled-fallback',
  setup(builder) {
    builder.onResolve({ filter: /\/fallbackLoader\.js$/ }, () => ({ path: join(dist, 'probe', 'fallbackLoader.bundled.js') }));
  },
};

/** Modules that are files of their own in dist/bin/, imported at run time by the bundles beside them. */
const ownFiles = new Set([join(dist, 'cli', 'main.js'), join(dist, 'cli', 'stopSignals.js')]);
const sharedFiles = {
  name: 'shared-files',
  setup(builder) {
    builder.onResolve({ filter: /\/(main|stopSignals)\.js$/ }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (args.kind === 'entry-point' || !ownFiles.has(path)) return undefined;
      return { path: `./${basename(path)}`, external: true };
    });
  },
};

/** What Node reads before the signals are handled: the entry and stopSignals.js, which must stay a few KB. */
const ENTRY_LIMIT_BYTES = 4096;

rmSync(join(dist, 'bin'), { recursive: true, force: true });
try {
  await build({
    entryPoints: {
      diskprobe: join(dist, 'cli', 'diskprobe.js'),
      main: join(dist, 'cli', 'main.js'),
      stopSignals: join(dist, 'cli', 'stopSignals.js'),
      isolatedWorker: join(dist, 'cli', 'isolatedWorker.js'),
      fallbackWalker: join(dist, 'scan', 'fallbackWalker.js'),
      statfsHelper: join(dist, 'probe', 'statfsHelper.js'),
    },
    outdir: join(dist, 'bin'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    // node-gyp-build and the addon are found at run time, from the package.
    packages: 'external',
    plugins: [bundledFallback, sharedFiles],
    legalComments: 'none',
    logLevel: 'warning',
  });
} catch (error) {
  // esbuild has printed each problem with its file and line.
  console.error(`compile:bundle: bundling dist/cli/ failed (${error.message.split('\n')[0]}); run \`npm run compile:ts\` first if dist/ is missing.`);
  process.exit(1);
}
const entryBytes = ['diskprobe.js', 'stopSignals.js'].reduce((sum, file) => sum + statSync(join(dist, 'bin', file)).size, 0);
if (entryBytes > ENTRY_LIMIT_BYTES) {
  console.error(
    `compile:bundle: dist/bin/diskprobe.js and stopSignals.js come to ${entryBytes} bytes, over ${ENTRY_LIMIT_BYTES}: Node parses them before SIGTERM is handled, so import the rest of the command dynamically, from main.js (src/cli/diskprobe.ts).`,
  );
  process.exit(1);
}
