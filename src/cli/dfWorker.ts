// The process that runs `diskprobe df` for dfIsolated.ts. Its output goes to
// the parent over the IPC channel, in order, followed by the exit status, so
// the parent can print, exit, and leave this process behind if a probe of a
// dead mount holds one of its threads.
import type { DfOptions } from './df.js';

/** What the parent sends to start the work. */
export interface DfRequest {
  readonly options: DfOptions;
  readonly isTTY: boolean;
}

/** What the worker sends back: output in order, then the status. */
export type DfMessage = { readonly stream: 'stdout' | 'stderr'; readonly text: string } | { readonly status: number };

function send(message: DfMessage): void {
  process.send?.(message);
}

process.once('message', (request: DfRequest) => {
  const output = {
    stdout: { isTTY: request.isTTY, write: (text: string) => send({ stream: 'stdout', text }) },
    stderr: { write: (text: string) => send({ stream: 'stderr', text }) },
  };
  // Imported here, so that a probe that refuses to load (DISKPROBE_BACKEND=native
  // without the addon) is reported as one clear line, like any other error.
  import('./df.js')
    .then(({ runDf }) => runDf(request.options, output))
    .catch((error: unknown) => {
      send({ stream: 'stderr', text: `diskprobe: ${error instanceof Error ? error.message : String(error)}\n` });
      return 1;
    })
    .then((status) => {
      // Flushed before the channel closes; a stuck probe thread then delays
      // only this process's end, which nobody waits for.
      process.send?.({ status } satisfies DfMessage, () => process.disconnect());
    });
});
