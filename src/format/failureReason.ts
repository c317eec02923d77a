// Why a probe failed, in words for people: what the df command says after
// "diskprobe: <path>: ", and what MCP tool results say after "<code>: <path>: ".
// The library's messages are fs-style ("ENOENT: no such file or directory,
// statvfs '/x'"); the path is already at the start of the line, so the code
// and the syscall clause are dropped, as df drops them ("df: /x: No such
// file or directory").

interface ErrorFields {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly timeout?: unknown;
}

/** The reason a probe failed, for the line `diskprobe: <path>: <reason>`. */
export function failureReason(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  const { code, syscall, timeout } = error as Error & ErrorFields;
  if (code === 'ETIMEDOUT') {
    // The same words whether this probe waited or failed fast on a mount an
    // earlier probe found stuck: either way it had `timeout` ms to answer.
    return `not responding after ${typeof timeout === 'number' ? timeout : timeoutMs} ms`;
  }
  let reason = error.message;
  if (typeof code === 'string' && reason.startsWith(`${code}: `)) reason = reason.slice(code.length + 2);
  if (typeof syscall === 'string') {
    const clause = reason.lastIndexOf(`, ${syscall} '`);
    if (clause > 0 && reason.endsWith("'")) reason = reason.slice(0, clause);
  }
  return reason;
}
