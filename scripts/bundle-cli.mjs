// `npm run compile:bundle`: the diskprobe command as two self-contained files,
// dist/bin/diskprobe.js (the bin) and dist/bin/isolatedWorker.js (the child
// that `diskprobe df` and `diskprobe metrics` start when a mount may block),
// bundled from tsc's output.
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
import { rmSync } from 'node:fs';
import { join } from 'node:path';
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

rmSync(join(dist, 'bin'), { recursive: true, force: true });
try {
  await build({
    entryPoints: {
      diskprobe: join(dist, 'cli', 'main.js'),
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
    plugins: [bundledFallback],
    legalComments: 'none',
    logLevel: 'warning',
  });
} catch (error) {
  // esbuild has printed each problem with its file and line.
  console.error(`compile:bundle: bundling dist/cli/ failed (${error.message.split('\n')[0]}); run \`npm run compile:ts\` first if dist/ is missing.`);
  process.exit(1);
}
