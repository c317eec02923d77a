// The server's own events, from the probe: a probe timing out, a mount
// answering again, the mount table changing. Each is one log message; the
// server sends it to stderr, to a ready legacy session at its level, and to
// the 2026-07-28 requests in flight that asked for log messages at that
// level. A request that asked for none gets none (server/utilities/logging.mdx).
import type { MountEvent } from '../../index.js';
import type { LogLevel } from './logging.js';

export interface EventLog {
  readonly level: LogLevel;
  readonly data: Record<string, unknown>;
}

export function describeMountEvent(event: MountEvent): EventLog {
  switch (event.type) {
    case 'stuck':
      return { level: 'warning', data: { event: 'probe timed out', mountPoint: event.mountPoint, path: event.path, timeoutMs: event.timeout } };
    case 'recovered':
      return { level: 'info', data: { event: 'mount answers again', mountPoint: event.mountPoint, stuckForMs: Math.round(event.stuckForMs) } };
    case 'mounts-changed':
      return { level: 'info', data: { event: 'mount table changed', added: event.added, removed: event.removed } };
  }
}

/** One line for stderr: `diskprobe: warning: probe timed out {"mountPoint":…}`. */
export function eventLine({ level, data }: EventLog): string {
  const { event, ...rest } = data;
  return `diskprobe: ${level}: ${String(event)} ${JSON.stringify(rest)}`;
}
