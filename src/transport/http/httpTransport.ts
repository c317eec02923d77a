// MCP over Streamable HTTP, both eras on one endpoint, /mcp
// (basic/transports/streamable-http.mdx for 2026-07-28,
// 2025-11-25/basic/transports.mdx for the handshake era). The era of each
// POST is decided here, once: a body whose _meta carries the per-request
// fields is served statelessly by the shared server, with the headers
// checked against it; initialize opens a legacy session; anything else must
// name one. Before any of that: the Host and Origin checks against DNS
// rebinding, the bearer token, and the limits a slow or hostile client cannot
// get around (body size, header and request time, connections, requests in
// flight). node:http alone, no framework.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

import { Dispatcher } from '../../jsonrpc/dispatcher.js';
import { RpcError } from '../../jsonrpc/errors.js';
import { classify } from '../../jsonrpc/messages.js';
import { checkAccess } from './access.js';
import { serveMetadata } from './auth/protectedResource.js';
import { Exchange } from './exchange.js';
import { modernStatus, refuse, transportError } from './httpErrors.js';
import { LegacySessions } from './legacySessions.js';
import { listenOn, stopAccepting } from './listening.js';
import { checkModernHeaders } from './modernHeaders.js';
import { readBody } from './requestBody.js';
import { DEFAULT_HTTP_LIMITS, DEFAULT_SESSION_LIMITS, type HttpLimits, type HttpTransportOptions } from './transportOptions.js';

const ENDPOINT = '/mcp';
const ALLOW = 'GET, POST, DELETE';

export class HttpTransport {
  private readonly server: Server;
  private readonly sessions: LegacySessions;
  private readonly limits: HttpLimits;
  /** Answers in progress (POSTs and streams): the in-flight bound, and what shutdown waits for. */
  private inFlight = 0;
  private readonly waiting = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly options: HttpTransportOptions) {
    this.limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
    this.sessions = new LegacySessions(options.openSession, { ...DEFAULT_SESSION_LIMITS, ...options.sessions });
    const handle = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);
    // Node checks the header and request timeouts every connectionsCheckingInterval (30 s by default): often enough to hold them.
    const timing = {
      headersTimeout: this.limits.headersTimeoutMs,
      requestTimeout: Math.max(this.limits.requestTimeoutMs, this.limits.headersTimeoutMs + 1000),
      connectionsCheckingInterval: Math.max(100, Math.min(1000, this.limits.headersTimeoutMs / 4)),
    };
    this.server = options.tls ? createHttpsServer({ ...timing, cert: options.tls.cert, key: options.tls.key }, handle) : createHttpServer(timing, handle);
    this.server.keepAliveTimeout = this.limits.keepAliveTimeoutMs;
    this.server.maxConnections = this.limits.maxConnections;
    this.server.maxHeadersCount = 100;
  }

  /** Listens; resolves with the address, or rejects with the reason it cannot (EADDRINUSE, EACCES). */
  listen(): Promise<AddressInfo> {
    return listenOn(this.server, this.options.host, this.options.port);
  }

  /**
   * Stops accepting connections, lets the modern server end its listen
   * streams with their graceful results, answers what is in flight, ends
   * the sessions and their streams, and closes every connection.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    const closed = stopAccepting(this.server);
    this.options.modern.shutdown();
    await Promise.all([...this.waiting, this.sessions.idle()]);
    this.sessions.closeAll();
    this.server.closeAllConnections();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0]!;
    const { auth } = this.options;
    if (auth !== undefined && serveMetadata(req, res, path, ENDPOINT, () => auth.describe())) return;
    if (path !== ENDPOINT) {
      refuse(res, 404, transportError(`no MCP endpoint at ${path}: it is ${ENDPOINT}`));
      return;
    }
    const denied = checkAccess(req, this.options.access);
    if (denied !== undefined) {
      refuse(res, denied.status, transportError(denied.detail), null, denied.headers);
      return;
    }
    if (auth === undefined) {
      this.route(req, res, undefined);
      return;
    }
    auth.authorize(req).then(
      (verdict) => {
        if (verdict.ok) this.route(req, res, verdict.principal);
        else refuse(res, verdict.status, transportError(verdict.detail), null, verdict.headers);
      },
      (error: unknown) => {
        this.options.log?.(`diskprobe: internal error while authorizing: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        refuse(res, 500, RpcError.internal());
      },
    );
  }

  /** A request that may be served, from `owner` (the token's principal; undefined without OAuth). */
  private route(req: IncomingMessage, res: ServerResponse, owner: string | undefined): void {
    if (this.stopping) {
      refuse(res, 503, transportError('the server is shutting down'), null, { connection: 'close' });
      return;
    }
    switch (req.method) {
      case 'POST': {
        this.admit(res, () => this.post(req, res, owner));
        return;
      }
      case 'GET': {
        this.admit(res, () => this.get(req, res, owner));
        return;
      }
      case 'DELETE': {
        this.delete(req, res, owner);
        return;
      }
      default: {
        refuse(res, 405, transportError(`${req.method} is not served at ${ENDPOINT}: use POST (or, in a 2025-11-25 session, GET and DELETE)`), null, {
          allow: ALLOW,
        });
        return;
      }
    }
  }

  /** Runs `work` within the bound of requests in flight, tracking it until its response ends. */
  private admit(res: ServerResponse, work: () => Promise<void> | void): void {
    if (this.inFlight >= this.limits.maxInFlight) {
      refuse(res, 503, transportError(`${this.inFlight} requests are in flight, the most this server answers at once: retry shortly`), null, {
        'retry-after': '1',
      });
      return;
    }
    this.inFlight++;
    const finished = new Promise<void>((resolve) => res.once('close', resolve));
    this.waiting.add(finished);
    void finished.then(() => {
      this.inFlight--;
      this.waiting.delete(finished);
    });
    void Promise.resolve()
      .then(work)
      .catch((error: unknown) => {
        this.options.log?.(`diskprobe: internal error in the HTTP transport: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        refuse(res, 500, RpcError.internal());
      });
  }

  private async post(req: IncomingMessage, res: ServerResponse, owner: string | undefined): Promise<void> {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      refuse(res, 415, transportError(`Content-Type must be application/json, not ${type || 'absent'}`));
      return;
    }
    const accept = req.headers.accept ?? '';
    if (!(/application\/json|\*\/\*|application\/\*/i.test(accept) && /text\/event-stream|\*\/\*|text\/\*/i.test(accept))) {
      refuse(res, 406, transportError(`Accept must list application/json and text/event-stream, not ${accept || 'absent'}`));
      return;
    }
    const text = await readBody(req, res, this.options.maxMessageBytes);
    if (text === undefined) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      refuse(res, 400, RpcError.parseError((error as Error).message));
      return;
    }
    if (Array.isArray(value)) {
      this.batchPost(req, res, value, text.length, owner);
      return;
    }
    const classified = classify(value);
    if (classified.kind === 'invalid') {
      refuse(res, 400, classified.error, classified.id);
      return;
    }
    const params = classified.kind === 'response' ? undefined : (classified.message.params as Record<string, unknown> | undefined);
    const sessionId = req.headers['mcp-session-id'];
    if (classified.kind !== 'response' && this.options.isModern(params)) {
      this.modernPost(req, res, value, text.length, classified);
      return;
    }
    if (typeof sessionId === 'string') {
      this.sessionPost(req, res, sessionId, owner, value, text.length, classified);
      return;
    }
    const version = req.headers['mcp-protocol-version'];
    if (classified.kind === 'request' && typeof version === 'string' && this.options.modernVersions.includes(version)) {
      // The header says 2026-07-28 but the body lacks its fields: malformed, -32602 with 400 (basic/index.mdx, "_meta").
      const key = 'params._meta["io.modelcontextprotocol/protocolVersion"]';
      refuse(
        res,
        400,
        RpcError.invalidParams(`${key} is required: MCP-Protocol-Version says ${version}, whose requests carry their version and capabilities in _meta`),
        classified.message.id,
      );
      return;
    }
    if (classified.kind === 'request' && classified.message.method === 'initialize') {
      const session = this.sessions.create(owner);
      if (session === undefined) {
        refuse(res, 503, transportError('the most sessions this server keeps are open: end one (DELETE) or retry later'), classified.message.id, {
          'retry-after': '5',
        });
        return;
      }
      session.request(value, text.length, classified.message.id, res, true);
      return;
    }
    refuse(
      res,
      400,
      RpcError.invalidRequest('no Mcp-Session-Id: send initialize first to open a session (2025-11-25), or the per-request _meta fields (2026-07-28)'),
      classified.kind === 'request' ? classified.message.id : null,
    );
    return;
  }

  private modernPost(req: IncomingMessage, res: ServerResponse, value: unknown, length: number, classified: ReturnType<typeof classify>): void {
    if (classified.kind === 'notification') {
      // 2026-07-28 defines no client notifications over HTTP; one is taken and has no effect.
      new Exchange(res, modernStatus).accepted();
      return;
    }
    if (classified.kind !== 'request') return;
    const { id, method, params } = classified.message;
    const mismatch = checkModernHeaders(req.headers, method, params as Record<string, unknown> | undefined);
    if (mismatch !== undefined) {
      refuse(res, 400, mismatch, id);
      return;
    }
    const exchange = new Exchange(res, modernStatus);
    const dispatcher = new Dispatcher(this.options.modern, (response) => exchange.respond(response), undefined, exchange.notify);
    // Closing the response stream cancels the request (streamable-http.mdx, "Cancellation").
    exchange.onAbandoned = () => dispatcher.cancel(id, 'the client closed the response stream');
    dispatcher.handleParsed(value, length);
  }

  private sessionPost(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    owner: string | undefined,
    value: unknown,
    length: number,
    classified: ReturnType<typeof classify>,
  ): void {
    const session = this.sessions.get(sessionId, owner);
    const id = classified.kind === 'request' ? classified.message.id : null;
    if (session === undefined) {
      refuse(res, 404, transportError('no such session: it ended or never was; send initialize again, without Mcp-Session-Id'), id);
      return;
    }
    const header = req.headers['mcp-protocol-version'];
    const version = session.version;
    if (typeof header === 'string' && version !== undefined && header !== version) {
      refuse(res, 400, transportError(`MCP-Protocol-Version ${header} is not this session's: initialize agreed on ${version}`), id);
      return;
    }
    if (classified.kind !== 'request') {
      session.accept(value, length, res);
      return;
    }
    if (session.has(classified.message.id)) {
      refuse(res, 400, RpcError.invalidRequest(`id ${JSON.stringify(classified.message.id)} is already in use by a request in progress`), id);
      return;
    }
    session.request(value, length, classified.message.id, res, false);
  }

  /**
   * A JSON array: a batch, which only a 2025-03-26 session takes (its
   * transport allowed them; 2025-06-18 removed them, and 2026-07-28 has
   * none). The batch's answers come back as one array, on this POST.
   */
  private batchPost(req: IncomingMessage, res: ServerResponse, value: unknown[], length: number, owner: string | undefined): void {
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId, owner) : undefined;
    if (typeof sessionId === 'string' && session === undefined) {
      refuse(res, 404, transportError('no such session: it ended or never was; send initialize again, without Mcp-Session-Id'));
      return;
    }
    if (session === undefined || !session.acceptsBatch() || value.length === 0) {
      const why = value.length === 0 ? 'an empty batch' : 'batches are accepted only in a 2025-03-26 session: send each message in a POST of its own';
      refuse(res, 400, RpcError.invalidRequest(why));
      return;
    }
    const ids = value.map((item) => classify(item)).flatMap((item) => (item.kind === 'request' ? [item.message.id] : []));
    const taken = ids.find((id, index) => session.has(id) || ids.indexOf(id) !== index);
    if (taken !== undefined) {
      refuse(res, 400, RpcError.invalidRequest(`id ${JSON.stringify(taken)} is already in use by a request in progress`));
      return;
    }
    session.batch(value, length, ids, res);
  }

  /**
   * A GET or DELETE the endpoint does not serve, or undefined when it names
   * a session to look up. Each era's rule: a client on 2026-07-28 (its
   * MCP-Protocol-Version says so) gets 405 with `Allow: POST`, the one method
   * that version has (streamable-http.mdx, "Earlier Streamable HTTP
   * Revisions"); any other without Mcp-Session-Id gets 400, as a server that
   * requires sessions answers a request without one (2025-11-25
   * transports.mdx, "Session Management" 2). Not 405 with GET in Allow:
   * the status and the header would disagree.
   */
  private refusedWithoutSession(req: IncomingMessage, res: ServerResponse, what: string): boolean {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && this.options.modernVersions.includes(version)) {
      refuse(res, 405, transportError(`${req.method} is not part of MCP ${version}: every request is a POST`), null, { allow: 'POST' });
      return true;
    }
    if (typeof req.headers['mcp-session-id'] === 'string') return false;
    refuse(res, 400, transportError(`${what} needs the Mcp-Session-Id of a 2025-11-25 session (initialize opens one); a 2026-07-28 client only POSTs`));
    return true;
  }

  private get(req: IncomingMessage, res: ServerResponse, owner: string | undefined): void {
    if (this.refusedWithoutSession(req, res, "GET opens a session's stream, and")) return;
    const sessionId = req.headers['mcp-session-id'] as string;
    const session = this.sessions.get(sessionId, owner);
    if (session === undefined) {
      refuse(res, 404, transportError('no such session: it ended or never was; send initialize again, without Mcp-Session-Id'));
      return;
    }
    if (!/text\/event-stream|\*\/\*/i.test(req.headers.accept ?? '')) {
      refuse(res, 406, transportError('Accept must list text/event-stream for the session stream'));
      return;
    }
    if (!session.openStream(res)) {
      refuse(res, 409, transportError('this session has its stream open already: one at a time'));
      return;
    }
  }

  private delete(req: IncomingMessage, res: ServerResponse, owner: string | undefined): void {
    if (this.refusedWithoutSession(req, res, 'DELETE ends a session, and')) return;
    const sessionId = req.headers['mcp-session-id'] as string;
    if (!this.sessions.end(sessionId, owner)) {
      refuse(res, 404, transportError('no such session: it ended or never was'));
      return;
    }
    res.writeHead(204);
    res.end();
  }
}
