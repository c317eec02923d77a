// Run before every test file (vitest.config.ts, setupFiles).
import { afterAll } from 'vitest';

import { removeTempDirs } from './helpers/system.js';

// Registered first, so it runs after the file's own afterAll hooks (which unmount what they mounted).
afterAll(removeTempDirs);
