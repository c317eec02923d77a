// Runs a short-lived command (`diskprobe df`, `diskprobe metrics` once) in a
// child process and relays its output, when some probe it needs could block
// (each command first tries on its own thread: runDfHere in df.ts,
// printMetricsHere in metricsOnce.ts).
//
// Why: a probe of a dead FUSE mount whose daemon has taken the request holds
// its thread in an uninterruptible wait, and the kernel does not let a
// process finish exiting while one of its threads is in one, whatever that
// thread is. The library lives with that (it never blocks on it, and NFS's
// waits are killable); a command cannot, because its caller waits for it to
// exit (a cron job writing a textfile every minute would pile up processes
// that cannot even be killed). So the probing happens in a child that the
// command can leave behind: the command prints, exits with the child's
// status, and never waits for it. The price is one more Node start-up,
// about 40-100 ms.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { IsolatedJob, IsolatedMessage, IsolatedOutput, IsolatedRequest } from './isolatedJob.js';

const workerPath = fileURLToPath(new URL('./isolatedWorker.js', import.meta.url));

/** Runs `job` in the worker, writing what it prints to `output`; resolves to its exit status once it has said it, not once it exits. */
export function runIsolated(job: IsolatedJob, output: IsolatedOutput): Promise<number> {
  return new Promise((resolve) => {
    // None of our stdio: a child stuck at exit must not hold a pipe that
    // whoever reads our output (`out=$(diskprobe df 2>&1)`) waits to see
    // closed. What it writes to stderr itself (a warning from Node) comes
    // through a pipe of its own, relayed until we finish.
    const child = fork(workerPath, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    child.stderr!.on('data', (chunk: Buffer) => output.stderr.write(chunk.toString()));
    let settled = false;
    const finish = (status: number): void => {
      if (settled) return;
      settled = true;
      if (child.connected) child.disconnect();
      child.stderr!.destroy();
      child.unref();
      resolve(status);
    };
    child.on('message', (message: IsolatedMessage) => {
      if ('status' in message) finish(message.status);
      else if ('bytes' in message) output[message.stream].write(Buffer.from(message.bytes, 'base64'));
      else output[message.stream].write(message.text);
    });
    child.once('exit', (code, signal) => {
      if (settled) return;
      output.stderr.write(`diskprobe: the ${job.command} worker ended unexpectedly (${signal ?? `exit status ${code}`})\n`);
      finish(1);
    });
    child.send({ job, isTTY: output.stdout.isTTY === true, stderrIsTTY: output.stderr.isTTY === true } satisfies IsolatedRequest);
  });
}
