// What a tool, a resource read or a completion gets to work with: the
// request's cancellation, the server's limits, and progress that goes out
// only when the request asked for it (basic/utilities/progress.mdx; in
// 2026-07-28, basic/patterns/progress.mdx), increasing, and never after
// the response.

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
 * A ToolContext for one request; `done()` once its response is decided, so
 * no progress follows it. `withProgress: false` sends none at all (resources
 * and completions report no progress).
 */
export function toolContext(scope: RequestScope, limits: ServerLimits, withProgress = true): ToolContext & { done(): void } {
  const { signal, rules } = scope;
  const token = withProgress ? scope.progressToken : undefined;
  let answered = false;
  let last = -Infinity;
  return {
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
    },
    done() {
      answered = true;
    },
  };
}
