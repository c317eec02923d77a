// What a handler knows of the request it answers: the protocol version's
// rules, the client's capabilities, where its progress and log messages go.
// Made once per request, at the edge, by the legacy session or from the
// request's own _meta (server.ts); handlers read it and never ask which era
// the request belongs to.

import type { RequestId } from '../../jsonrpc/messages.js';
import type { RequestSignal } from '../../jsonrpc/requestSignal.js';
import type { LogLevel } from './logging.js';
import type { ProtocolVersion, VersionRules } from './versions.js';

/** A message from server to client that is not a response. */
export interface Notification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface RequestScope {
  readonly id: RequestId;
  /** Aborted when the client cancels the request. */
  readonly signal: RequestSignal;
  readonly version: ProtocolVersion;
  readonly rules: VersionRules;
  /** What the client said it can do: per request (2026-07-28), or at initialize. */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The request's `_meta.progressToken`, when it asked for progress. */
  readonly progressToken: RequestId | undefined;
  /** Sends a notification that belongs to this request (its progress, its log messages, a subscription's events). */
  notify(notification: Notification): void;
  /**
   * Logs for this request: legacy, at or above the session's level;
   * 2026-07-28, at or above the level its _meta asked for, and not at all
   * when it asked for none (server/utilities/logging.mdx).
   */
  log(level: LogLevel, data: unknown): void;
}

/** The reserved `_meta` keys this server reads or writes (basic/index.mdx, "_meta"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** `params._meta` as an object, or undefined when there is none (or it is not an object). */
export function metaOf(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}
