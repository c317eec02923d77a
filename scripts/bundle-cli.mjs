// `npm run compile:bundle`: the diskprobe command bundled from tsc's output:
// dist/bin/diskprobe.js (the bin) and dist/bin/isolatedWorker.js (the child
// that `diskprobe df` and `diskprobe metrics` start when a mount may block),
// with the chunks of code they share beside them. The bin itself is a tiny
// entry (src/cli/diskprobe.ts): it handles SIGTERM and SIGINT, then imports
// the command (main.ts) dynamically, so Node reads a few KB, not the
// command, before the signals are handled (issue 27).
//
// Why: loading the command's two dozen modules one by one cost 25-30 ms of
// every start (resolving, reading and linking each), a fifth of a
// `diskprobe df` and of the server's cold start; a bundle costs a few.
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

const common = {
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
};

/** What Node reads before the signals are handled: the entry and what it imports statically, which must stay a few KB. */
const ENTRY_LIMIT_BYTES = 4096;

rmSync(join(dist, 'bin'), { recursive: true, force: true });
let metafile;
try {
  // The command and its df worker, split into chunks (issue 27): a command
  // loads the code it runs and no other. As one file, every start compiled
  // all of it (half a megabyte, the MCP server's and the HTTP transport's
  // included) and loaded node:http, node:crypto and node:child_process:
  // 13 ms of each `diskprobe df`, a sixth of it on a few mounts. The chunks
  // are named by content and sit beside the bin, one directory below dist/
  // as the rest of dist/ is (see above).
  // stopSignals.ts, which the entry and main.ts both import, becomes a chunk
  // of its own, loaded once: one module, one state, no copy.
  ({ metafile } = await build({
    ...common,
    entryPoints: { diskprobe: join(dist, 'cli', 'diskprobe.js'), isolatedWorker: join(dist, 'cli', 'isolatedWorker.js') },
    splitting: true,
    chunkNames: '[name]-[hash]',
    metafile: true,
  }));
  // The helper processes, each in one file of its own: a helper knows it was
  // started as one by its own file's name (isMain), which a chunk shared
  // with the command would not have.
  await build({
    ...common,
    entryPoints: { fallbackWalker: join(dist, 'scan', 'fallbackWalker.js'), statfsHelper: join(dist, 'probe', 'statfsHelper.js') },
  });
} catch (error) {
  // esbuild has printed each problem with its file and line.
  console.error(`compile:bundle: bundling dist/cli/ failed (${error.message.split('\n')[0]}); run \`npm run compile:ts\` first if dist/ is missing.`);
  process.exit(1);
}
const outputs = metafile.outputs;
const entry = Object.keys(outputs).find((file) => outputs[file].entryPoint?.endsWith('cli/diskprobe.js'));
const readFirst = [entry, ...outputs[entry].imports.filter(({ kind, external }) => kind === 'import-statement' && !external).map(({ path }) => path)];
const entryBytes = readFirst.reduce((sum, file) => sum + statSync(join(root, file)).size, 0);
if (entryBytes > ENTRY_LIMIT_BYTES) {
  console.error(
    `compile:bundle: the bin and what it imports statically (${readFirst.join(', ')}) come to ${entryBytes} bytes, over ${ENTRY_LIMIT_BYTES}: Node parses them before SIGTERM is handled, so import the rest of the command dynamically, from main.js (src/cli/diskprobe.ts).`,
  );
  process.exit(1);
}
