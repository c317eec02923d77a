// The process that runs a short-lived command for isolated.ts. Its output
// goes to the parent over the IPC channel, in order, followed by the exit
// status, so the parent can print, exit, and leave this process behind if a
// probe of a dead mount holds one of its threads.
import type { IsolatedJob, IsolatedMessage, IsolatedOutput, IsolatedRequest } from './isolatedJob.js';

function send(message: IsolatedMessage): void {
  process.send?.(message);
}

/** Runs the job; the modules are imported here, so a probe that refuses to load (DISKPROBE_BACKEND=native without the addon) is one clear line, like any other error. */
async function run(job: IsolatedJob, output: IsolatedOutput): Promise<number> {
  switch (job.command) {
    case 'df': {
      const { runDf } = await import('./df/df.js');
      return runDf(job.options, output);
    }
    case 'du': {
      const { runDu } = await import('./du/du.js');
      return runDu(job.options, output);
    }
    case 'metrics': {
      const { printMetrics } = await import('./metrics/metricsOnce.js');
      return printMetrics(job.options, output);
    }
  }
}

process.once('message', (request: IsolatedRequest) => {
  const writer =
    (stream: 'stdout' | 'stderr') =>
    (chunk: string | Uint8Array): void =>
      send(
        typeof chunk === 'string'
          ? { stream, text: chunk }
          : { stream, bytes: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64') },
      );
  const output = {
    stdout: { isTTY: request.isTTY, write: writer('stdout') },
    stderr: { isTTY: request.stderrIsTTY, write: writer('stderr') },
  };
  run(request.job, output)
    .catch((error: unknown) => {
      send({ stream: 'stderr', text: `diskprobe: ${error instanceof Error ? error.message : String(error)}\n` });
      return 1;
    })
    .then((status) => {
      // Flushed before the channel closes; a stuck probe thread then delays
      // only this process's end, which nobody waits for.
      process.send?.({ status } satisfies IsolatedMessage, () => process.disconnect());
    });
});
