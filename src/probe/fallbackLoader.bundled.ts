// fallbackLoader.ts as the bundled command has it: the fallback is part of
// the bundle, one module among the others, and costs nothing until called.
import * as fallback from './statfsBackend.js';

export const loadFallback = (): typeof import('./statfsBackend.js') => fallback;
