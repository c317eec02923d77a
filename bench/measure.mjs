// Timing for the bench scripts: batches of calls, calibrated to a wall-clock
// length, run in interleaved rounds so machine noise lands on every contender.
//
// A contender is { name, measure(calls) → ns per call, fixedCalls? }.
// `measure` runs one batch of `calls` calls and returns the batch's mean.

/** Whatever a timed call returned, kept so no call can be optimized away. */
export let sink;

/** Times `calls` synchronous calls of `probe`. */
export function timeSync(probe, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink = probe();
  return Number(process.hrtime.bigint() - start) / calls;
}

/** Times `calls` calls of `probe`, each awaited before the next starts: per-call latency. */
export async function timeSequential(probe, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink = await probe();
  return Number(process.hrtime.bigint() - start) / calls;
}

/** Times `calls` calls of `probe` with `inFlight` of them outstanding at a time: per-call cost under load. */
export async function timeConcurrent(probe, calls, inFlight) {
  let started = 0;
  async function worker() {
    while (started < calls) {
      started++;
      sink = await probe();
    }
  }
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(inFlight, calls) }, worker));
  return Number(process.hrtime.bigint() - start) / calls;
}

/**
 * Warms `contender` up for at least `warmupMs`, growing the batch until one
 * batch lasts `batchMs`; returns that batch size. A contender with
 * `fixedCalls` is slow enough that it is only warmed up once at that size.
 */
export async function calibrate(contender, { warmupMs, batchMs }) {
  if (contender.fixedCalls !== undefined) {
    await contender.measure(contender.fixedCalls);
    return contender.fixedCalls;
  }
  const warmupEnds = performance.now() + warmupMs;
  let calls = 16;
  for (;;) {
    const batchNs = (await contender.measure(calls)) * calls;
    if (batchNs >= batchMs * 1e6) {
      if (performance.now() >= warmupEnds) return calls;
      continue;  // long enough, but not yet warm: repeat at this size
    }
    // Aim straight for the target length, growing at most 16× a step so one
    // slow first batch (JIT, page faults) cannot overshoot by orders of magnitude.
    calls = Math.ceil(calls * Math.min(16, Math.max(2, (batchMs * 1e6) / Math.max(batchNs, 1))));
  }
}

/**
 * Runs `rounds` rounds; in each, every contender runs one batch of its
 * `calls`. The starting contender rotates each round so none always runs
 * first (right after the slow, noisy ones, or at the round's start).
 * Returns, per contender name, the ns-per-call mean of each batch.
 */
export async function runRounds(contenders, rounds, onRound = () => {}) {
  const samples = new Map(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length];
      samples.get(contender.name).push(await contender.measure(contender.calls));
    }
    onRound(round + 1);
  }
  return samples;
}

/** The q-quantile (0–1) of `values`, interpolating between neighbours. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

export const median = (values) => quantile(values, 0.5);
