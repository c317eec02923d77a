// What a tool is: data the model sees, plus the handler that runs it.
// Business failures come back as results with isError; protocol failures
// are thrown as RpcError by the session, never by a tool.

import type { AppView } from '../../apps/appViews.js';
import type { CancelSignal } from '../../probe/types.js';
import type { ObjectSchema } from './inputValidation.js';
import type { LogLevel } from './logging.js';
import type { RootPolicy } from './roots.js';

export interface ToolContext {
  /** Aborts when the client cancels the call. */
  readonly signal: CancelSignal;
  /** Milliseconds a file system has to answer (--probe-timeout). */
  readonly probeTimeout: number;
  /** The --root allowlist. */
  readonly roots: RootPolicy;
  /** Milliseconds a directory walk may take within one call before it answers with what it has (--walk-budget). */
  readonly walkBudgetMs: number;
  /** Reports progress when the client asked for it (a no-op otherwise). */
  progress(progress: number, total?: number, message?: string): void;
  log(level: LogLevel, data: unknown): void;
}

export interface ToolResult {
  /** What the model reads. */
  readonly text: string;
  /** The same, as data matching the tool's outputSchema (sent from 2025-06-18). */
  readonly structured?: Record<string, unknown>;
  readonly isError?: boolean;
}

export interface Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: ObjectSchema;
  readonly outputSchema?: Record<string, unknown>;
  /** Advice added to a pattern failure of the named argument. */
  readonly hints?: Readonly<Record<string, string>>;
  /** It reaches beyond this machine (the fleet tools ask Prometheus): its openWorldHint. */
  readonly openWorld?: boolean;
  /** A sentence added to the server's instructions while the tool is offered (the optional ones say when to use them). */
  readonly instruction?: string;
  /** The MCP Apps view that draws its structuredContent, for hosts that render them. */
  readonly view?: AppView;
  /**
   * It calls context.progress as it works. A call that asks for progress then
   * hears progress 0 as the tool starts, and its result follows its last
   * progress by PROGRESS_LEAD_MS at least (toolContext.ts, issue 27).
   */
  readonly reportsProgress?: true;
  call(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}
