// Timing for the bench scripts: batches of calls, calibrated to a wall-clock
// length, run in interleaved rounds so machine noise lands on every contender.
//
// A contender is { name, measure(calls) → Timing, fixedCalls? }: `measure`
// runs one batch of `calls` calls and returns the batch's means.

/**
 * @typedef {object} Timing
 * @property {number} wallNs  ns of elapsed time per call
 * @property {number | undefined} cpuNs  ns of this process's CPU time per call, all
 *   threads, user + system; undefined where the work runs in another process.
 *   Unlike wall time, it leaves out time spent idle, waiting for a thread to
 *   wake; the kernel's work to wake it is still counted.
 */

/** Whatever a timed call returned, kept so no call can be optimized away. */
export let sink;

/** Starts a clock; calling the result gives the Timing of `calls` calls since. */
function startClock() {
  const wallStart = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  return (calls) => {
    const wallNs = Number(process.hrtime.bigint() - wallStart) / calls;
    const cpu = process.cpuUsage(cpuStart);
    return { wallNs, cpuNs: ((cpu.user + cpu.system) * 1000) / calls };
  };
}

/** Times `calls` synchronous calls of `probe`. */
export function timeSync(probe, calls) {
  const stop = startClock();
  for (let i = 0; i < calls; i++) sink = probe();
  return stop(calls);
}

/** Times `calls` calls of `probe`, each awaited before the next starts: per-call latency. */
export async function timeSequential(probe, calls) {
  const stop = startClock();
  for (let i = 0; i < calls; i++) sink = await probe();
  return stop(calls);
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
  const stop = startClock();
  await Promise.all(Array.from({ length: Math.min(inFlight, calls) }, worker));
  return stop(calls);
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
    const batchNs = (await contender.measure(calls)).wallNs * calls;
    if (batchNs >= batchMs * 1e6) {
      if (performance.now() >= warmupEnds) return calls;
      continue; // long enough, but not yet warm: repeat at this size
    }
    // Aim straight for the target length, growing at most 16× a step so one
    // slow first batch (JIT, page faults) cannot overshoot by orders of magnitude.
    calls = Math.ceil(calls * Math.min(16, Math.max(2, (batchMs * 1e6) / Math.max(batchNs, 1))));
  }
}

/**
 * Runs `rounds` rounds; in each, every contender runs one batch of its
 * `calls`, in a fresh random order. Not a fixed rotation: a contender that
 * always follows the same one inherits its after-effects (on a small VM a
 * thread hop runs at a different speed right after another contender's
 * burst of thread hops), and that bias would not average out.
 * Returns, per contender name, the Timing of each batch.
 */
export async function runRounds(contenders, rounds, onRound = () => {}) {
  const samples = new Map(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const contender of shuffled(contenders)) {
      samples.get(contender.name).push(await contender.measure(contender.calls));
    }
    onRound(round + 1);
  }
  return samples;
}

/** A copy of `items` in random order (Fisher–Yates). */
export function shuffled(items) {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
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
