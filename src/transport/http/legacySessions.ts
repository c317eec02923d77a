// The handshake era over Streamable HTTP (2025-03-26 to 2025-11-25,
// basic/transports.mdx, "Session Management"): initialize opens a session
// with a cryptographically random Mcp-Session-Id, every later request names
// it, GET opens the session's own SSE stream, DELETE ends it, and an unknown
// or ended session is 404. Each session has its own MCP server (its own
// lifecycle and log level) and dispatcher. Sessions are bounded in number
// and end after a time idle.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { Dispatcher, type DispatcherHandlers, type OutgoingNotification } from '../../jsonrpc/dispatcher.js';
import type { RequestId, Response } from '../../jsonrpc/messages.js';
import { Exchange } from './exchange.js';
import { legacyStatus } from './httpErrors.js';

/** What the CLI opens for each session: an MCP server whose notifications go where `notify` says. */
export interface SessionServer {
  readonly handlers: DispatcherHandlers;
  /** The version initialize agreed, once it has. */
  version(): string | undefined;
  /** Ends what only the server can end (streams), then frees it. */
  close(): void;
}

/** Opens a session's server: `notify` takes its notifications, `cancel` its client's notifications/cancelled. */
export type OpenSession = (
  notify: (notification: OutgoingNotification, related?: RequestId) => void,
  cancel: (id: RequestId, reason?: string) => void,
) => SessionServer;

export interface SessionLimits {
  /** Sessions open at once; initialize beyond it is refused with 503. */
  readonly maxSessions: number;
  /** A session with nothing in flight and no request for this long is ended. */
  readonly idleMs: number;
}

export class LegacySession {
  /** 32 hex digits from 16 random bytes: visible ASCII, unguessable (security_best_practices.mdx, "Session Hijacking"). */
  readonly id = randomBytes(16).toString('hex');
  lastActive = performance.now();
  private readonly server: SessionServer;
  private readonly dispatcher: Dispatcher;
  /** The POSTs waiting for their answers, by request id. */
  private readonly exchanges = new Map<RequestId, Exchange>();
  /** The request ids of each batch in flight, so that its one answer frees them all. */
  private readonly batchIds = new Map<Exchange, readonly RequestId[]>();
  /** The GET stream: the session's notifications that belong to no request. */
  private stream: Exchange | undefined;
  private closed = false;

  /**
   * @param owner who opened it (the token's issuer and subject), or undefined
   *   without authorization: only its owner may use it (2026-07-28
   *   basic/authorization/security-considerations.mdx: a session id is never
   *   authentication, and is bound to the user).
   */
  constructor(
    open: OpenSession,
    readonly owner: string | undefined,
  ) {
    this.server = open(
      (notification, related) => this.route(notification, related),
      (id, reason) => this.dispatcher.cancel(id, reason),
    );
    this.dispatcher = new Dispatcher(this.server.handlers, (response) => this.deliver(response));
  }

  get version(): string | undefined {
    return this.server.version();
  }

  /** Whether anything is in flight or open: such a session is never idle. */
  get busy(): boolean {
    return this.exchanges.size > 0 || (this.stream !== undefined && !this.stream.done);
  }

  /** Whether request `id` is in flight: a second request with it is refused at the door. */
  has(id: RequestId): boolean {
    return this.exchanges.has(id);
  }

  /** A request: answered on `res`, as JSON or as an SSE stream if notifications come first. */
  request(value: unknown, length: number, id: RequestId, res: ServerResponse, initialize: boolean): void {
    this.lastActive = performance.now();
    const exchange = new Exchange(res, legacyStatus, initialize ? { 'mcp-session-id': this.id } : {});
    // Closing the stream is no cancellation in this era (basic/transports.mdx): the answer just has nowhere to go.
    exchange.onAbandoned = () => this.exchanges.delete(id);
    this.exchanges.set(id, exchange);
    this.dispatcher.handleParsed(value, length);
  }

  /** Whether the agreed version takes batches (2025-03-26). */
  acceptsBatch(): boolean {
    return this.server.handlers.acceptsBatch();
  }

  /** A batch whose requests have `ids`: answered with one array on `res`, or 202 if it holds no request. */
  batch(value: unknown[], length: number, ids: readonly RequestId[], res: ServerResponse): void {
    this.lastActive = performance.now();
    const exchange = new Exchange(res, legacyStatus);
    if (ids.length === 0) {
      this.dispatcher.handleParsed(value, length);
      exchange.accepted();
      return;
    }
    exchange.onAbandoned = () => {
      for (const id of ids) this.exchanges.delete(id);
    };
    for (const id of ids) this.exchanges.set(id, exchange);
    this.batchIds.set(exchange, ids);
    this.dispatcher.handleParsed(value, length);
  }

  /** A notification or a response: taken, 202. */
  accept(value: unknown, length: number, res: ServerResponse): void {
    this.lastActive = performance.now();
    this.dispatcher.handleParsed(value, length);
    new Exchange(res, legacyStatus).accepted();
  }

  /** GET: the session's own stream. Returns false if one is open already (one at a time). */
  openStream(res: ServerResponse): boolean {
    if (this.stream !== undefined && !this.stream.done) return false;
    this.lastActive = performance.now();
    this.stream = new Exchange(res, legacyStatus);
    this.stream.startStream();
    return true;
  }

  /** Ends the session: its server, its stream, and the answers still owed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.close();
    this.stream?.end();
    for (const exchange of this.exchanges.values()) exchange.end();
    this.exchanges.clear();
  }

  /** Resolves once every request received so far is answered. */
  idle(): Promise<void> {
    return this.dispatcher.idle();
  }

  private route(notification: OutgoingNotification, related: RequestId | undefined): void {
    const exchange = related === undefined ? undefined : this.exchanges.get(related);
    if (exchange !== undefined) exchange.notify(notification);
    else this.stream?.notify(notification);
  }

  private deliver(response: Response | Response[]): void {
    const known = (Array.isArray(response) ? response : [response]).find((item) => item.id !== null && this.exchanges.has(item.id));
    if (known === undefined) return; // its client went away
    const exchange = this.exchanges.get(known.id!)!;
    for (const id of this.batchIds.get(exchange) ?? [known.id!]) this.exchanges.delete(id);
    this.batchIds.delete(exchange);
    this.lastActive = performance.now();
    exchange.respond(response);
  }
}

/** The open sessions, by id: bounded in number, and swept of idle ones. */
export class LegacySessions {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly open: OpenSession,
    private readonly limits: SessionLimits,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(limits.idleMs, 30_000)).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The session `id`, if `owner` opened it: another's session is as unknown as one that never was. */
  get(id: string, owner: string | undefined): LegacySession | undefined {
    const session = this.sessions.get(id);
    return session?.owner === owner ? session : undefined;
  }

  /** A new session for `owner`, or undefined when the limit is reached even after ending the idle ones. */
  create(owner: string | undefined): LegacySession | undefined {
    if (this.sessions.size >= this.limits.maxSessions) this.sweep();
    if (this.sessions.size >= this.limits.maxSessions) return undefined;
    const session = new LegacySession(this.open, owner);
    this.sessions.set(session.id, session);
    return session;
  }

  end(id: string, owner: string | undefined): boolean {
    const session = this.get(id, owner);
    if (session === undefined) return false;
    this.sessions.delete(id);
    session.close();
    return true;
  }

  /** Resolves once every session's requests are answered. */
  async idle(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.idle()));
  }

  closeAll(): void {
    clearInterval(this.sweeper);
    for (const [id, session] of [...this.sessions]) this.end(id, session.owner);
  }

  private sweep(): void {
    const now = performance.now();
    for (const [id, session] of this.sessions) {
      if (!session.busy && now - session.lastActive > this.limits.idleMs) this.end(id, session.owner);
    }
  }
}
