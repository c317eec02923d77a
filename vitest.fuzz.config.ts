import { defineConfig } from 'vitest/config';

// npm run test:fuzz: property-based fuzzing of the framing, the dispatcher and
// the whole server process. One seed drives every file of a run; it
// is chosen here, printed, and handed to the test processes as FUZZ_SEED, so
// FUZZ_SEED=N npm run test:fuzz replays a run exactly.
const given = process.env.FUZZ_SEED;
if (given !== undefined && given !== '' && !/^-?\d+$/.test(given)) throw new Error(`FUZZ_SEED must be an integer, not ${JSON.stringify(given)}`);
const seed = given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
// The config is loaded once per run, so this line appears once.
console.log(`fuzz seed: ${seed} (replay with FUZZ_SEED=${seed} npm run test:fuzz)`);

export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.test.ts'],
    // Each file in its own process: a file that spawns servers does not slow
    // the in-process ones, and a crash stays in its file.
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 60_000,
    env: { FUZZ_SEED: String(seed) },
  },
});
