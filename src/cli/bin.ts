#!/usr/bin/env node
// The bin as bundled (dist/bin/diskprobe.js, scripts/bundle-cli.mjs): the
// stop signals' handlers first, the command after. The bundle is split into
// chunks, and esbuild does not keep the order of a module's imports across
// chunks: main.ts imports stopSignals.ts first, but its chunk would be
// evaluated after others. Here nothing else is imported before it.
import './stopSignals.js';

await import('./main.js');
