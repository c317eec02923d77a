// Loads the fs.statfs fallback, only when it is needed (a millisecond or two
// of every start-up otherwise), and synchronously (require of an ES module):
// a top-level await would keep CommonJS callers from require()-ing
// diskprobe. The bundled command (scripts/bundle-cli.mjs) swaps this file
// for fallbackLoader.bundled.ts, so that it uses its own copy of the
// fallback rather than loading a second copy of the probe from dist/.
import { createRequire } from 'node:module';

export const loadFallback = (): typeof import('./statfsBackend.js') =>
  createRequire(import.meta.url)('./statfsBackend.js') as typeof import('./statfsBackend.js');
