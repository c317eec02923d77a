// The seed of a fuzz run: FUZZ_SEED (set by vitest.fuzz.config.ts, or by hand
// to replay), else a fresh one. Every property in every file starts from it,
// and every failure message repeats it.
import fc from 'fast-check';

const given = process.env.FUZZ_SEED;

if (given !== undefined && given !== '' && !/^-?\d+$/.test(given)) throw new Error(`FUZZ_SEED must be an integer, not ${JSON.stringify(given)}`);

export const seed: number = given ? Number(given) : Math.floor(Math.random() * 2 ** 31);

export const replay = `fuzz seed: ${seed} (replay with FUZZ_SEED=${seed} npm run test:fuzz)`;

console.log(replay);

/**
 * How long one property may run, shrinking included: under the test timeout
 * (vitest.fuzz.config.ts), so a failure whose shrinking would outlast it is
 * still reported, with the smallest counterexample found by then. A passing
 * property that runs this long fails too: the run is far over its budget.
 */
const TIME_LIMIT_MS = 120_000;

/**
 * fc.assert with the run's seed. `salt` gives each property its own stream
 * of cases from the one seed, so adding a property does not change the others.
 */
export async function check<Ts>(property: fc.IAsyncPropertyWithHooks<Ts> | fc.IPropertyWithHooks<Ts>, numRuns: number, salt: number): Promise<void> {
  try {
    await fc.assert(property as fc.IAsyncPropertyWithHooks<Ts>, {
      seed: seed + salt,
      numRuns,
      plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS, { failOnInterrupt: true })],
    });
  } catch (error) {
    (error as Error).message = `${replay}\n${(error as Error).message}`;
    throw error;
  }
}
