// The limits the library and the command line share. Nothing here has a
// side effect, so the CLI can parse its options without loading the probe.

/** The largest signed 32-bit integer: setTimeout's ceiling, and so the largest finite timeout. */
export const INT32_MAX = 2 ** 31 - 1;

/** Milliseconds a file system has to answer when the caller names no timeout. */
export const DEFAULT_TIMEOUT_MS = 5000;

/** The largest finite timeout, in milliseconds. */
export const MAX_TIMEOUT_MS = INT32_MAX;

/** Milliseconds the MCP tool directory_usage walks within one call before it answers with what it has (serve --walk-budget). */
export const DEFAULT_WALK_BUDGET_MS = 20_000;
