// MCP logging: the client picks a level with logging/setLevel, and events at
// or above it go out as notifications/message (server/utilities/logging.mdx).

/** RFC 5424 severities, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

export class McpLogger {
  private threshold: number;

  constructor(
    level: LogLevel,
    private readonly send: (notification: { method: 'notifications/message'; params: { level: LogLevel; logger: string; data: unknown } }) => void,
  ) {
    this.threshold = LOG_LEVELS.indexOf(level);
  }

  setLevel(level: LogLevel): void {
    this.threshold = LOG_LEVELS.indexOf(level);
  }

  log(level: LogLevel, data: unknown, logger = 'diskprobe'): void {
    if (LOG_LEVELS.indexOf(level) >= this.threshold) this.send({ method: 'notifications/message', params: { level, logger, data } });
  }
}
