// What a tool, a resource read or a completion gets to work with: the
// request's cancellation, the server's limits, and progress that goes out
// only when the request asked for it (basic/utilities/progress.mdx; in
// 2026-07-28, basic/patterns/progress.mdx), increasing, and never after
// the response. A tool that reports progress is heard of at once, and its
// result leaves a while after its last progress, so that the official SDK
// clients see the progress at all (issue 27).

import type { RequestScope } from './requestScope.js';
import type { RootPolicy } from './roots.js';
import type { ToolContext } from './tool.js';

export interface ServerLimits {
  /** Milliseconds a file system has to answer (--probe-timeout). */
  readonly probeTimeout: number;
  /** The --root allowlist. */
  readonly roots: RootPolicy;
  /** Milliseconds a directory walk may take within one call before it answers with what it has (--walk-budget). */
  readonly walkBudgetMs: number;
}

/**
 * Milliseconds a call's result waits after its last progress notification.
 * The official SDK clients (v1 1.32 and v2) hand a notification to its
 * handler a microtask after reading it, but settle a response, and drop the
 * request's onprogress, at once: progress read in the same chunk as its
 * result is lost, reported on onerror as an unknown token. In one write, it
 * always is; in two writes a millisecond apart (list_mounts's work), still
 * often, when the client reads late. Over stdio on 2 CPUs at load 6-9,
 * list_mounts calls whose onprogress heard nothing: 57-68% a millisecond
 * apart; 5 ms, 1-3%; 10 ms, 0.4-1%; 15 ms, 2 of 10,600; 20 ms no better,
 * 1 of 5,600 (a client stalled that long). Over HTTP, every call heard:
 * their HTTP transports dispatch each SSE event after an await.
 * @internal exported for the tests
 */
export const PROGRESS_LEAD_MS = 15;

/** What the server itself does with a request's ToolContext, beyond what the tool sees. */
export interface RequestToolContext extends ToolContext {
  /** Called before a tool that reports progress: progress 0 as it starts, if the request asked for progress. */
  begin(): void;
  /**
   * Its response is decided: no progress follows. Returns what its response
   * has to wait for: PROGRESS_LEAD_MS after the last progress was written;
   * undefined if none was sent, or long enough ago.
   */
  done(): Promise<void> | undefined;
}

/**
 * When a request's last progress left: a turn after it was sent, by which
 * time every transport has written it (stdio writes what a turn sent once the
 * turn is done, stdioTransport.ts send(); HTTP writes at once). Timed from
 * the send, a turn that ran long (a cold start: 12 ms) ate into the lead.
 */
class ProgressLead {
  private writtenAt: number | undefined;
  /** Until the end of the turn that sent progress. */
  private writing: Promise<void> | undefined;

  sent(): void {
    this.writing ??= new Promise((resolve) =>
      setImmediate(() => {
        this.writing = undefined;
        this.writtenAt = performance.now();
        resolve();
      }),
    );
  }

  /** Resolves PROGRESS_LEAD_MS after the last progress was written; undefined when that is past. */
  wait(): Promise<void> | undefined {
    if (this.writing !== undefined) return this.writing.then(() => sleep(PROGRESS_LEAD_MS));
    const left = this.writtenAt! + PROGRESS_LEAD_MS - performance.now();
    return left > 0 ? sleep(left) : undefined;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A ToolContext for one request; `done()` once its response is decided, so
 * no progress follows it. `withProgress: false` sends none at all (resources
 * and completions report no progress).
 */
export function toolContext(scope: RequestScope, limits: ServerLimits, withProgress = true): RequestToolContext {
  const { signal, rules } = scope;
  const token = withProgress ? scope.progressToken : undefined;
  let answered = false;
  let last = -Infinity;
  /** Made with the first progress sent: most calls send none. */
  let lead: ProgressLead | undefined;
  const context: RequestToolContext = {
    signal,
    probeTimeout: limits.probeTimeout,
    roots: limits.roots,
    walkBudgetMs: limits.walkBudgetMs,
    log: (level, data) => scope.log(level, data),
    progress(progress, total, message) {
      if (token === undefined || answered || progress <= last || signal.aborted) return;
      last = progress;
      scope.notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total !== undefined && { total }),
          ...(message !== undefined && rules.progressMessage && { message }),
        },
      });
      lead ??= new ProgressLead();
      lead.sent();
    },
    begin() {
      // A microtask later, as dfMounts tells its first probes: a cancel read
      // in the same turn as the call has aborted it by then, and it hears nothing.
      if (token !== undefined) queueMicrotask(() => context.progress(0));
    },
    done() {
      answered = true;
      return lead?.wait();
    },
  };
  return context;
}
