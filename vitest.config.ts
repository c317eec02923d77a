import { defineConfig } from 'vitest/config';

// Tests run against the compiled package in dist/ (npm test compiles first),
// so they exercise what ships, helper process and addon loading included.
// The probe and walk suites run twice, once per backend: the backend is chosen when
// dist/index.js is imported, from DISKPROBE_BACKEND, and each test file runs
// in its own process (pool: forks).
export default defineConfig({
  test: {
    pool: 'forks',
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
