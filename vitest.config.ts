import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

import { privateMountsPool } from './test/privateMountsPool.js';

// Tests run against the compiled package in dist/ (npm test compiles first),
// so they exercise what ships, helper process and addon loading included.
// The probe and walk suites run twice, once per backend: the backend is chosen when
// dist/index.js is imported, from DISKPROBE_BACKEND, and each test file runs
// in its own process: vitest's forks pool, each process in a mount namespace
// of its own (test/privateMountsPool.ts), so that what a file mounts is seen
// by nothing outside it and goes with it, even on Ctrl-C (issue 27).
export default defineConfig({
  test: {
    pool: privateMountsPool(),
    // One file per core at once. vitest's default leaves a core free (one
    // worker on a 2-core machine), but most files wait on processes, mounts
    // and timers rather than compute; each file owns its mounts
    // (privateMountsPool), so two at once do not see each other's. On the
    // 2-core CI machine: 5.6 minutes where one worker took 11.
    maxWorkers: Math.max(2, availableParallelism()),
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'native', include: ['test/probe/**/*.test.ts', 'test/scan/**/*.test.ts'], env: { DISKPROBE_BACKEND: 'native' } },
      },
      {
        extends: true,
        // Inline probes are the native backend's alone.
        test: {
          name: 'statfs',
          include: ['test/probe/**/*.test.ts', 'test/scan/**/*.test.ts'],
          exclude: ['test/probe/inline.test.ts'],
          env: { DISKPROBE_BACKEND: 'statfs' },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/probe/**', 'test/scan/**', 'test/fuzz/**', 'test/.fixtures/**', '**/node_modules/**'],
        },
      },
    ],
  },
});
