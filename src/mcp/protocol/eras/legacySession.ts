// The legacy era, 2024-11-05 to 2025-11-25: one session per stdio process,
// opened by initialize, which fixes the version and the client's
// capabilities for every later request (basic/lifecycle.mdx). The one place
// the lifecycle is checked: awaitingInitialize → awaitingInitialized → ready.
// It gives each request of the session its scope; the handlers never see it.
import type { RequestContext } from '../../../jsonrpc/dispatcher.js';
import { RpcError } from '../../../jsonrpc/errors.js';
import { isRequestId, type RequestId } from '../../../jsonrpc/messages.js';
import { isLogLevel, LOG_LEVELS, type LogLevel, type LogMessage, McpLogger } from '../logging.js';
import { metaOf, type Notification, type RequestScope } from '../requestScope.js';
import { LATEST_LEGACY_VERSION, type LegacyVersion, negotiateLegacyVersion, VERSION_RULES, type VersionRules } from '../versions.js';

export type SessionState = 'awaitingInitialize' | 'awaitingInitialized' | 'ready';

export interface LegacySessionOptions {
  /** The least severe notifications/message sent until logging/setLevel (--log-level). */
  readonly logLevel: LogLevel;
  /** Sends a notification; `related` names the request it belongs to, if any. */
  readonly notify: (notification: Notification, related?: RequestId) => void;
  /** The client sent notifications/initialized: the session is ready. */
  readonly onReady: (logger: McpLogger) => void;
}

export class LegacySession {
  private current: SessionState = 'awaitingInitialize';
  private negotiated: LegacyVersion = LATEST_LEGACY_VERSION;
  private capabilities: Readonly<Record<string, unknown>> = {};
  /** The initialize request's id while it is in flight: a cancel of it is ignored (basic/utilities/cancellation.mdx). */
  private initializeId: RequestId | undefined;
  /** Session-wide log messages: the server's own events, and what tools log. */
  readonly logger: McpLogger;

  constructor(private readonly options: LegacySessionOptions) {
    this.logger = new McpLogger(options.logLevel, (message: LogMessage) => {
      // Nothing but responses goes out before the client says it is ready.
      if (this.current === 'ready') options.notify(message);
    });
  }

  get state(): SessionState {
    return this.current;
  }

  get version(): LegacyVersion {
    return this.negotiated;
  }

  /** Whether a JSON array of messages is accepted now: only once a version that has batches is agreed. */
  acceptsBatch(): boolean {
    return this.current !== 'awaitingInitialize' && VERSION_RULES[this.negotiated].batches;
  }

  /**
   * The scope of a request of this session, or the lifecycle's refusal:
   * before initialize, only initialize and ping; then only ping until
   * notifications/initialized (strict, as docs/baseline.md §2 describes).
   */
  scope(method: string, params: Record<string, unknown> | undefined, context: RequestContext): RequestScope {
    if (method === 'initialize') {
      if (this.current !== 'awaitingInitialize') throw RpcError.invalidRequest('initialize was already received; a session is initialized once');
      // Ignored while initialize is in flight: a cancel read in the same turn
      // as it. Once it is answered the id is free, and a later request may use it.
      this.initializeId = context.id;
      queueMicrotask(() => {
        this.initializeId = undefined;
      });
    } else if (method !== 'ping') {
      if (this.current === 'awaitingInitialize') throw RpcError.invalidRequest(`the session is not initialized: send initialize before ${method}`);
      if (this.current === 'awaitingInitialized') {
        throw RpcError.invalidRequest(`send notifications/initialized first: until then the server answers only ping (got ${method})`);
      }
    }
    const token = metaOf(params)?.progressToken;
    return new LegacyScope(this, context, isRequestId(token) ? token : undefined);
  }

  /** Sends a notification that belongs to request `related` (for LegacyScope). */
  notifyFor(notification: Notification, related: RequestId): void {
    this.options.notify(notification, related);
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> {
    return this.capabilities;
  }

  /** Answers initialize: the version both sides will speak, and this server's half of the offer. */
  initialize(params: Record<string, unknown>, offer: (version: LegacyVersion) => Record<string, unknown>): Record<string, unknown> {
    if (typeof params.protocolVersion !== 'string') {
      throw RpcError.invalidParams(`initialize needs params.protocolVersion, the protocol version the client wants (e.g. "${LATEST_LEGACY_VERSION}")`);
    }
    this.negotiated = negotiateLegacyVersion(params.protocolVersion);
    const capabilities = params.capabilities;
    this.capabilities =
      typeof capabilities === 'object' && capabilities !== null && !Array.isArray(capabilities) ? (capabilities as Record<string, unknown>) : {};
    this.current = 'awaitingInitialized';
    return { protocolVersion: this.negotiated, ...offer(this.negotiated) };
  }

  /** notifications/initialized: from now on, every method of the version answers. */
  initialized(): void {
    if (this.current !== 'awaitingInitialized') return;
    this.current = 'ready';
    this.options.onReady(this.logger);
  }

  setLogLevel(params: Record<string, unknown>): Record<string, never> {
    if (!isLogLevel(params.level)) throw RpcError.invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(params.level)}`);
    this.logger.setLevel(params.level);
    return {};
  }

  /** Whether a cancel of `id` must be ignored: the initialize request, while in flight, may not be cancelled. */
  ignoresCancelOf(id: RequestId): boolean {
    return id === this.initializeId;
  }
}

/**
 * A legacy request's scope: the session's version, capabilities and log
 * level as they are when the request arrives. A class rather than an
 * object of closures: one allocation a request on the hot path (bench:server).
 */
class LegacyScope implements RequestScope {
  readonly id: RequestId;
  readonly signal: RequestContext['signal'];
  readonly version: LegacyVersion;
  readonly rules: VersionRules;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;

  constructor(
    private readonly session: LegacySession,
    context: RequestContext,
    readonly progressToken: RequestId | undefined,
  ) {
    this.id = context.id;
    this.signal = context.signal;
    this.version = session.version;
    this.rules = VERSION_RULES[session.version];
    this.clientCapabilities = session.clientCapabilities;
  }

  notify(notification: Notification): void {
    this.session.notifyFor(notification, this.id);
  }

  log(level: LogLevel, data: unknown): void {
    this.session.logger.log(level, data);
  }
}
