import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vitest/config';

import { privateMountsPool } from '../privateMountsPool.js';

// A vitest run of its own for holdsMounts.fixture.ts, through the suite's pool,
// which interrupted.test.ts starts and interrupts.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/privateMounts/holdsMounts.fixture.ts'],
    pool: privateMountsPool(),
    setupFiles: ['test/setup.ts'],
    testTimeout: 120_000,
  },
});
