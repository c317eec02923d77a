// What passes between a short-lived command and the child it runs in
// (isolated.ts, isolatedWorker.ts): the job, the request that starts it,
// and the messages that come back. Both import it; neither imports the other.
import type { CommandOutput } from './commandOutput.js';
import type { DfOptions } from './df/dfCommandLine.js';
import type { DuOptions } from './du/duCommandLine.js';
import type { MetricsOnceOptions } from './metrics/metricsOnce.js';

/** A command the worker can run, with options that survive JSON. */
export type IsolatedJob =
  | { readonly command: 'df'; readonly options: DfOptions }
  | { readonly command: 'du'; readonly options: DuOptions }
  | { readonly command: 'metrics'; readonly options: MetricsOnceOptions };

/** Where the worker's output goes. */
export type IsolatedOutput = CommandOutput;

/** What the parent sends to start the work. */
export interface IsolatedRequest {
  readonly job: IsolatedJob;
  /** The parent's stdout is a terminal. */
  readonly isTTY: boolean;
  /** The parent's stderr is a terminal (du's progress line). */
  readonly stderrIsTTY: boolean;
}

/** What the worker sends back: output in order (text, or raw bytes in base64), then the status. */
export type IsolatedMessage =
  | { readonly stream: 'stdout' | 'stderr'; readonly text: string }
  | { readonly stream: 'stdout' | 'stderr'; readonly bytes: string }
  | { readonly status: number };
