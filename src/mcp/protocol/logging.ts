// MCP logging (server/utilities/logging.mdx): notifications/message at or
// above a level the client chose. Legacy sessions choose it once for the
// session, with logging/setLevel; a 2026-07-28 request chooses it for itself
// in _meta, and gets no log messages at all when it does not.

/** RFC 5424 severities, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** Whether a message at `level` goes to a client that asked for `least` and above. */
export function isAtLeast(level: LogLevel, least: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(least);
}

export interface LogMessage {
  readonly method: 'notifications/message';
  readonly params: { readonly level: LogLevel; readonly logger: string; readonly data: unknown };
}

export function logMessage(level: LogLevel, data: unknown, logger = 'diskprobe'): LogMessage {
  return { method: 'notifications/message', params: { level, logger, data } };
}

/** A level that can change (logging/setLevel), and where messages at or above it go. */
export class McpLogger {
  constructor(
    private level: LogLevel,
    private readonly send: (message: LogMessage) => void,
  ) {}

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  log(level: LogLevel, data: unknown): void {
    if (isAtLeast(level, this.level)) this.send(logMessage(level, data));
  }
}
