// What an HttpTransport is made with: where it listens, who may call, the
// servers of both eras, and the limits a slow or hostile client cannot get
// around.
import type { DispatcherHandlers } from '../../jsonrpc/dispatcher.js';
import type { AccessPolicy } from './access.js';
import type { ResourceServer } from './auth/resourceServer.js';
import type { OpenSession, SessionLimits } from './legacySessions.js';

export interface HttpTransportOptions {
  readonly host: string;
  readonly port: number;
  /** PEM certificate and key: HTTPS instead of HTTP. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly access: AccessPolicy;
  /** OAuth: every request to /mcp needs an access token it accepts; its metadata is served at the well-known URLs. */
  readonly auth?: ResourceServer | undefined;
  /** Longest request body, in bytes (--max-message-bytes): 413 beyond it. */
  readonly maxMessageBytes: number;
  /** The shared server for 2026-07-28 requests: stateless, so one serves every client. */
  readonly modern: DispatcherHandlers & { shutdown(): void };
  /** Whether a parsed request claims the 2026-07-28 era (the MCP layer's rule). */
  readonly isModern: (params: Record<string, unknown> | undefined) => boolean;
  /** The versions served per request: an MCP-Protocol-Version header naming one marks a request without _meta as a malformed modern one. */
  readonly modernVersions: readonly string[];
  readonly openSession: OpenSession;
  readonly sessions?: Partial<SessionLimits>;
  readonly limits?: Partial<HttpLimits>;
  /** The transport's own events (a refusal of note, shutdown), as lines for stderr. */
  readonly log?: (line: string) => void;
}

export interface HttpLimits {
  /** Connections open at once; the server drops any beyond (node:http maxConnections). */
  readonly maxConnections: number;
  /** Requests being answered at once, SSE streams included: 503 beyond. */
  readonly maxInFlight: number;
  /** Milliseconds a client has to send all its headers (slowloris). */
  readonly headersTimeoutMs: number;
  /** Milliseconds a client has to send its whole request, body included. */
  readonly requestTimeoutMs: number;
  /** Milliseconds an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxConnections: 512,
  maxInFlight: 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};
export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 256, idleMs: 10 * 60_000 };
