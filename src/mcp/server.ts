// The MCP server, dual-era (basic/versioning.mdx, "Backward Compatibility
// with Initialization-Based Versions"). Each request's era is decided once,
// here at the edge: a request whose _meta carries the per-request protocol
// fields is served statelessly under 2026-07-28; any other belongs to the
// legacy session that initialize opened, and to its lifecycle. Either way it
// gets a RequestScope, and the method table's handlers read only that.
import type { DispatcherHandlers, RequestContext } from '../jsonrpc/dispatcher.js';
import { RpcError } from '../jsonrpc/errors.js';
import { isRequestId, type RequestId } from '../jsonrpc/messages.js';
import { DEFAULT_WALK_BUDGET_MS } from '../probe/limits.js';
import { onMountEvent, watchMountTable } from '../probe/runtime.js';
import { complete } from './features/completion.js';
import { getPrompt, listPrompts } from './features/prompts.js';
import { listResources, listResourceTemplates, MOUNTS_URI, readResource } from './features/resources.js';
import { CACHE_HINTS } from './protocol/caching.js';
import { LegacySession } from './protocol/eras/legacySession.js';
import { claimsModernEra, readRequestMeta } from './protocol/eras/requestMeta.js';
import { isAtLeast, type LogLevel, logMessage } from './protocol/logging.js';
import { capabilities, fallbackWarning, instructionsFor } from './protocol/offer.js';
import { META, metaOf, type Notification, type RequestScope } from './protocol/requestScope.js';
import type { RootPolicy } from './protocol/roots.js';
import { describeMountEvent, eventLine } from './protocol/serverEvents.js';
import { Subscriptions } from './protocol/subscriptions.js';
import type { Tool } from './protocol/tool.js';
import { callTool, listTools } from './protocol/toolCall.js';
import { type ServerLimits, toolContext } from './protocol/toolContext.js';
import { ALL_METHODS, MODERN_VERSIONS, type ProtocolVersion, VERSION_RULES, type VersionRules } from './protocol/versions.js';

export interface ServerOptions {
  readonly serverVersion: string;
  readonly tools: readonly Tool[];
  /** Milliseconds a file system has to answer. */
  readonly probeTimeout: number;
  /** Milliseconds a directory walk may take within one call (default DEFAULT_WALK_BUDGET_MS). */
  readonly walkBudgetMs?: number;
  /** The --root allowlist (no roots: every path). */
  readonly roots: RootPolicy;
  /** The legacy session's log level until logging/setLevel (--log-level). */
  readonly logLevel: LogLevel;
  /** Sends a notification; `related` is the request it belongs to (absent: the legacy session's own). */
  readonly notify: (notification: Notification, related?: RequestId) => void;
  /** Cancels an in-flight request (the dispatcher's). */
  readonly cancel: (id: RequestId, reason?: string) => void;
  /** Reports a bug to stderr. */
  readonly reportBug: (message: string) => void;
  /** Takes the server's own events as lines of text (stderr, in `diskprobe serve`). */
  readonly logLine?: (line: string) => void;
}

type Params = Record<string, unknown>;
type Handler = (params: Params, scope: RequestScope) => unknown;

/** The methods whose requests may carry inputResponses and requestState (basic/patterns/mrtr.mdx, "Supported Requests"). */
const MULTI_ROUND_TRIP = new Set(['tools/call', 'resources/read', 'prompts/get']);

export class McpServer implements DispatcherHandlers {
  /** The legacy era's session: the lifecycle, and the version initialize agreed. */
  readonly legacy: LegacySession;
  private readonly subscriptions = new Subscriptions(() => watchMountTable(), MOUNTS_URI);
  private readonly methods: ReadonlyMap<string, Handler>;
  /** complete() for each method, made once: an async result is completed without a closure made per request. */
  private readonly completers: ReadonlyMap<string, (result: unknown) => unknown>;
  private readonly serverInfo: { readonly name: string; readonly version: string };
  private readonly instructions: string;
  /** The `_meta` of a 2026-07-28 result that has none of its own: shared, never changed. */
  private readonly resultMeta: Readonly<Record<string, unknown>>;
  private readonly limits: ServerLimits;
  /** 2026-07-28 requests in flight that asked for log messages: the server's own events go to them too. */
  private readonly listening = new Set<RequestScope>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: ServerOptions) {
    this.serverInfo = { name: 'diskprobe', version: options.serverVersion };
    this.instructions = instructionsFor(options.tools);
    // Not frozen: JSON.stringify takes a slower path for frozen objects (0.4 µs a result).
    this.resultMeta = { [META.serverInfo]: this.serverInfo };
    this.limits = { probeTimeout: options.probeTimeout, roots: options.roots, walkBudgetMs: options.walkBudgetMs ?? DEFAULT_WALK_BUDGET_MS };
    this.legacy = new LegacySession({
      logLevel: options.logLevel,
      notify: options.notify,
      onReady: (logger) => {
        const warning = fallbackWarning();
        if (warning) logger.log('warning', warning);
      },
    });
    const warning = fallbackWarning();
    if (warning) options.logLine?.(eventLine({ level: 'warning', data: warning }));
    this.unsubscribe = onMountEvent((event) => {
      const { level, data } = describeMountEvent(event);
      options.logLine?.(eventLine({ level, data }));
      this.legacy.logger.log(level, data);
      for (const scope of this.listening) scope.log(level, data);
      if (event.type === 'mounts-changed') this.subscriptions.mountsChanged();
    });
    const { tools } = options;
    const limits = this.limits;
    // A Map, so "__proto__" or "constructor" is just an unknown method.
    this.methods = new Map<string, Handler>([
      ['initialize', (params) => this.legacy.initialize(params, (version) => this.offer(VERSION_RULES[version], this.legacy.clientCapabilities))],
      ['ping', () => ({})],
      ['logging/setLevel', (params) => this.legacy.setLogLevel(params)],
      ['server/discover', (_params, scope) => this.discover(scope)],
      ['subscriptions/listen', (params, scope) => this.subscriptions.listen(params, scope, (meta) => this.complete('subscriptions/listen', { _meta: meta }))],
      ['tools/list', (params, scope) => listTools(tools, params, scope)],
      ['tools/call', (params, scope) => callTool(tools, params, scope, limits)],
      ['resources/list', (params, scope) => listResources(params, scope, toolContext(scope, limits, false))],
      ['resources/templates/list', (_params, scope) => listResourceTemplates(scope.rules)],
      ['resources/read', (params, scope) => readResource(params, scope.rules, toolContext(scope, limits, false))],
      ['prompts/list', (_params, scope) => listPrompts(scope.rules)],
      ['prompts/get', (params) => getPrompt(params)],
      ['completion/complete', (params, scope) => complete(params, limits.roots, limits.probeTimeout, scope.signal)],
    ]);
    this.completers = new Map([...this.methods.keys()].map((method) => [method, (result: unknown) => this.complete(method, result)]));
  }

  acceptsBatch(): boolean {
    return this.legacy.acceptsBatch();
  }

  request(method: string, params: Params | undefined, context: RequestContext): unknown {
    const meta = metaOf(params);
    const scope = claimsModernEra(meta) ? this.modernScope(method, params, meta, context) : this.legacyScope(method, params, context);
    if (params !== undefined && Array.isArray(params)) throw RpcError.invalidParams('params must be an object');
    const handler = this.methods.get(method)!;
    if (!scope.rules.resultMeta) return handler(params ?? {}, scope);
    // A 2026-07-28 request: its result gets that version's fields.
    if (!this.listening.has(scope)) {
      const result = handler(params ?? {}, scope);
      return result instanceof Promise ? result.then(this.completers.get(method)) : this.complete(method, result);
    }
    // One that asked for log messages also stops hearing the server's events once answered.
    const done = (): boolean => this.listening.delete(scope);
    let result: unknown;
    try {
      result = handler(params ?? {}, scope);
    } catch (error) {
      done();
      throw error;
    }
    if (!(result instanceof Promise)) {
      done();
      return this.complete(method, result);
    }
    return result.then(
      (value) => {
        done();
        return this.complete(method, value);
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
  }

  notification(method: string, params: Params | undefined): void {
    if (method === 'notifications/initialized') {
      this.legacy.initialized();
    } else if (method === 'notifications/cancelled') {
      const id = params?.requestId;
      // Unknown and finished ids are ignored (basic/utilities/cancellation.mdx); so is a cancel of initialize.
      if (isRequestId(id) && !this.legacy.ignoresCancelOf(id)) this.options.cancel(id, typeof params?.reason === 'string' ? params.reason : undefined);
    }
    // Others need nothing from this server: notifications/roots/list_changed
    // among them (roots are never asked for; 2026-07-28 removed it).
  }

  internalError(error: unknown, method: string): void {
    this.options.reportBug(`diskprobe: internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  /** Ends what only the server can end (subscriptions/listen streams) with their graceful-close results: at EOF and on SIGTERM. */
  shutdown(): void {
    this.subscriptions.closeAll();
  }

  close(): void {
    this.unsubscribe();
  }

  /** A request without the per-request fields: the legacy session's, checked against its lifecycle. */
  private legacyScope(method: string, params: Params | undefined, context: RequestContext): RequestScope {
    if (!ALL_METHODS.has(method)) throw RpcError.methodNotFound(method);
    // Once a version is agreed, a method it lacks does not exist (docs/baseline.md §3).
    if (this.legacy.state !== 'awaitingInitialize' && !VERSION_RULES[this.legacy.version].methods.has(method)) throw RpcError.methodNotFound(method);
    return this.legacy.scope(method, params, context);
  }

  /** A 2026-07-28 request: everything it needs is in its own _meta (basic/index.mdx, "Statelessness"). */
  private modernScope(method: string, params: Params | undefined, meta: Record<string, unknown>, context: RequestContext): RequestScope {
    const { version, clientCapabilities, logLevel } = readRequestMeta(meta);
    const rules = VERSION_RULES[version];
    if (context.batched) throw RpcError.invalidRequest(`a batch may not carry a ${version} request: send it on a line of its own`);
    if (!rules.methods.has(method)) {
      const detail = method === 'initialize' ? 'to open a legacy session, send initialize without the per-request _meta fields' : `not a method of ${version}`;
      throw RpcError.methodNotFound(method, detail);
    }
    if (MULTI_ROUND_TRIP.has(method)) checkRoundTripFields(params);
    const token = meta.progressToken;
    // A subscriptions/listen stream carries only the notifications it subscribed to: never log
    // messages, which belong to "the response stream of [the] request" that asked (logging.mdx).
    const logs = method === 'subscriptions/listen' ? undefined : logLevel;
    const scope = new ModernScope(context, version, rules, clientCapabilities, isRequestId(token) ? token : undefined, logs, this.options.notify);
    if (logs !== undefined) this.listening.add(scope);
    return scope;
  }

  /**
   * A 2026-07-28 result: resultType, the caching hints of cacheable methods,
   * and serverInfo in _meta. Handlers return a fresh object each time, so it
   * is completed in place: a copy by spread costs about 2 µs a request here,
   * a tenth of a whole tools/call (bench:server).
   */
  private complete(method: string, result: unknown): Record<string, unknown> | undefined {
    if (result === undefined) return undefined; // a cancelled subscription: never sent
    const fields = result as Record<string, unknown>;
    const hint = CACHE_HINTS.get(method);
    if (hint !== undefined) {
      fields.ttlMs = hint.ttlMs;
      fields.cacheScope = hint.cacheScope;
    }
    fields.resultType = 'complete';
    const meta = fields._meta as Record<string, unknown> | undefined;
    fields._meta = meta === undefined ? this.resultMeta : { ...meta, [META.serverInfo]: this.serverInfo };
    return fields;
  }

  private offer(rules: VersionRules, clientCapabilities: Readonly<Record<string, unknown>>): Record<string, unknown> {
    return { capabilities: capabilities(rules, clientCapabilities), serverInfo: this.serverInfo, instructions: this.instructions };
  }

  /**
   * server/discover (server/discover.mdx): the versions a request may name in
   * its _meta. The legacy versions are left out: they are spoken only after
   * initialize, never named per request (docs/mcp-rules.md §13).
   */
  private discover(scope: RequestScope): Record<string, unknown> {
    const warning = fallbackWarning();
    if (warning) scope.log('warning', warning);
    return { supportedVersions: [...MODERN_VERSIONS], capabilities: capabilities(scope.rules, scope.clientCapabilities), instructions: this.instructions };
  }
}

/**
 * This server never asks the client for input, so inputResponses and
 * requestState can only be ones it did not ask for: well-formed, they are
 * ignored (mrtr.mdx, "Error Handling": what the server does not need);
 * malformed, the request is -32602.
 */
function checkRoundTripFields(params: Params | undefined): void {
  const responses = params?.inputResponses;
  if (responses !== undefined && (typeof responses !== 'object' || responses === null || Array.isArray(responses))) {
    throw RpcError.invalidParams('params.inputResponses, when given, must be an object (InputResponses); this server never asks for input');
  }
  const state = params?.requestState;
  if (state !== undefined && typeof state !== 'string') throw RpcError.invalidParams('params.requestState, when given, must be a string');
}

/**
 * A 2026-07-28 request's scope. A class rather than an object of closures:
 * one allocation a request on the hot path (bench:server).
 */
class ModernScope implements RequestScope {
  readonly id: RequestId;
  readonly signal: RequestContext['signal'];
  /** The request's own channel (HTTP), if the transport gave it one. */
  private readonly channel: RequestContext['notify'];

  constructor(
    context: RequestContext,
    readonly version: ProtocolVersion,
    readonly rules: VersionRules,
    readonly clientCapabilities: Readonly<Record<string, unknown>>,
    readonly progressToken: RequestId | undefined,
    /** The least severe log message the request asked for; undefined: it asked for none. */
    private readonly logLevel: LogLevel | undefined,
    private readonly send: (notification: Notification, related?: RequestId) => void,
  ) {
    this.id = context.id;
    this.signal = context.signal;
    this.channel = context.notify;
  }

  notify(notification: Notification): void {
    if (this.channel !== undefined) this.channel(notification);
    else this.send(notification, this.id);
  }

  log(level: LogLevel, data: unknown): void {
    if (this.logLevel !== undefined && isAtLeast(level, this.logLevel) && !this.signal.aborted) this.notify(logMessage(level, data));
  }
}
