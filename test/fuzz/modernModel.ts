// What a 2026-07-28 request is owed, written from that version's spec rather
// than from src/: the per-request _meta fields (basic/index.mdx, "_meta"),
// UnsupportedProtocolVersionError (basic/versioning.mdx), the methods of
// ClientRequest (schema.ts), resultType and serverInfo on every result,
// caching hints (server/utilities/caching.mdx), inputResponses and
// requestState (basic/patterns/mrtr.mdx), and subscriptions/listen
// (basic/patterns/subscriptions.mdx). Where the spec leaves an order open
// (which of two faults is reported), the model allows either, or takes the
// order this server documents: the version first (src/mcp/protocol/eras/requestMeta.ts).

export type RequestId = string | number;

/** The reserved _meta keys (basic/index.mdx, "_meta", "Reserved keys"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export const MODERN_VERSION = '2026-07-28';
/** The versions of the initialize era (basic/versioning.mdx, "Terminology"): never named per request. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** RFC 5424 severities, as server/utilities/logging.mdx lists them. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** Any of these in _meta claims the modern era; a legacy client sends none (the prefix is MCP's). */
const PER_REQUEST = [META.protocolVersion, META.clientCapabilities, META.clientInfo, META.logLevel];
/** ClientRequest in the 2026-07-28 schema.ts: every other method is -32601. */
const METHODS = new Set([
  'server/discover',
  'completion/complete',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'subscriptions/listen',
  'tools/call',
  'tools/list',
]);
/** The requests that may carry inputResponses and requestState (mrtr.mdx, "Supported Requests"). */
const MULTI_ROUND_TRIP = new Set(['tools/call', 'resources/read', 'prompts/get']);
/** Results that extend CacheableResult (schema.ts): ttlMs and cacheScope are required. */
const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
/** This server's tools and prompt, as tools/list and prompts/list name them. */
const TOOLS = new Set(['disk_usage', 'list_mounts', 'system_info']);
const PROMPTS = new Set(['disk_report']);

/** diskprobe's limit, not the spec's: subscriptions open at once, beyond which a listen is refused with -32603. */
export const MAX_SUBSCRIPTIONS = 64;

const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL = -32603;
const UNSUPPORTED_VERSION = -32022;

/** What may answer one request: a result, errors with these codes, or (`any`) any error. */
export interface Expectation {
  readonly method: string;
  readonly result: boolean;
  readonly codes: readonly number[] | 'any';
  /** For -32022: the version the request named, which data.requested must repeat. */
  readonly requested?: string;
  /** The graceful close of this subscription: its result carries the id in _meta. */
  readonly closes?: RequestId;
}

export type Verdict =
  /** No per-request field: the legacy session's request. */
  | { readonly era: 'legacy' }
  /** Answered now; `logs`: it asked for log messages, with a _meta that holds. */
  | { readonly era: 'modern'; readonly expect: Expectation; readonly logs: boolean }
  /** A well-formed subscriptions/listen: no answer until it ends. */
  | { readonly era: 'modern'; readonly listen: Record<string, unknown>; readonly logs: boolean };

const own = (object: object, key: string): boolean => Object.hasOwn(object, key);
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** params._meta when it claims the modern era. */
export function modernMeta(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params) || !own(params, '_meta')) return undefined;
  const meta = params._meta;
  return isObject(meta) && PER_REQUEST.some((key) => own(meta, key)) ? meta : undefined;
}

const error = (method: string, ...codes: number[]): Expectation => ({ method, result: false, codes });
const result = (method: string, ...codes: number[]): Expectation => ({ method, result: true, codes });

/** A 2026-07-28 result of `method`, as a well-formed request of it is owed. */
export const expectation = (method: string): Expectation => result(method);

/**
 * Why the _meta of a modern request is refused, or undefined if it holds. A
 * required field missing or malformed is -32602 (basic/index.mdx, "A request
 * missing any required field is malformed"); a version not served per
 * request, -32022 (versioning.mdx), reported before the rest.
 */
function metaFault(method: string, meta: Record<string, unknown>): Expectation | undefined {
  if (!own(meta, META.protocolVersion) || typeof meta[META.protocolVersion] !== 'string') return error(method, INVALID_PARAMS);
  const version = meta[META.protocolVersion] as string;
  if (version !== MODERN_VERSION) return { ...error(method, UNSUPPORTED_VERSION), requested: version };
  if (!own(meta, META.clientCapabilities) || !isObject(meta[META.clientCapabilities])) return error(method, INVALID_PARAMS);
  // Optional, but typed (schema.ts RequestMetaObject): Implementation needs a string name and version.
  if (own(meta, META.clientInfo)) {
    const info = meta[META.clientInfo];
    if (!isObject(info) || !own(info, 'name') || typeof info.name !== 'string' || !own(info, 'version') || typeof info.version !== 'string') {
      return error(method, INVALID_PARAMS);
    }
  }
  if (own(meta, META.logLevel) && !(LOG_LEVELS as readonly unknown[]).includes(meta[META.logLevel])) return error(method, INVALID_PARAMS);
  return undefined;
}

/** Why a SubscriptionFilter (schema.ts) is malformed, or undefined. */
function filterFault(filter: unknown): boolean {
  if (!isObject(filter)) return true;
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
    if (own(filter, key) && typeof filter[key] !== 'boolean') return true;
  }
  const uris = filter.resourceSubscriptions;
  return own(filter, 'resourceSubscriptions') && !(Array.isArray(uris) && uris.every((uri) => typeof uri === 'string'));
}

/** What a method of 2026-07-28 answers, its _meta being well-formed. */
function methodExpectation(method: string, params: Record<string, unknown>): Expectation {
  const has = (key: string): boolean => own(params, key);
  switch (method) {
    case 'server/discover':
      return result(method);
    // pagination.mdx: an invalid cursor SHOULD be -32602; every list here fits one page.
    case 'tools/list':
    case 'resources/list':
    case 'resources/templates/list':
    case 'prompts/list':
      return has('cursor') ? result(method, INVALID_PARAMS) : result(method);
    case 'tools/call':
      // tools.mdx "Error Handling": an unknown tool is -32602; a known one's input errors are a result with isError.
      return typeof params.name === 'string' && has('name') && TOOLS.has(params.name) ? result(method, INVALID_PARAMS) : error(method, INVALID_PARAMS);
    case 'prompts/get':
      return typeof params.name === 'string' && has('name') && PROMPTS.has(params.name) ? result(method, INVALID_PARAMS) : error(method, INVALID_PARAMS);
    case 'resources/read': {
      const uri = params.uri;
      if (!has('uri') || typeof uri !== 'string') return error(method, INVALID_PARAMS);
      if (uri === 'disk://mounts') return result(method);
      // resources.mdx: not found is -32602 from 2026-07-28; a disk that fails to answer is this server's -32603.
      return uri.startsWith('disk://usage/') ? result(method, INVALID_PARAMS, INTERNAL) : error(method, INVALID_PARAMS);
    }
    default:
      return result(method, INVALID_PARAMS); // completion/complete
  }
}

/**
 * The era of one request, and for a modern one what it is owed. `batched`:
 * it came in an accepted batch, which no version since 2025-03-26 has; a
 * modern member is refused with -32600 (or with its _meta's fault: the spec
 * does not say which comes first).
 */
export function modernVerdict(method: string, params: unknown, batched: boolean): Verdict {
  const meta = modernMeta(params);
  if (meta === undefined) return { era: 'legacy' };
  const fault = metaFault(method, meta);
  if (fault !== undefined) {
    const codes = fault.codes as readonly number[];
    return { era: 'modern', expect: batched ? { ...fault, codes: [...codes, INVALID_REQUEST] } : fault, logs: false };
  }
  const logs = own(meta, META.logLevel);
  if (batched) return { era: 'modern', expect: error(method, INVALID_REQUEST), logs };
  if (!METHODS.has(method)) return { era: 'modern', expect: error(method, METHOD_NOT_FOUND), logs };
  const body = params as Record<string, unknown>;
  if (MULTI_ROUND_TRIP.has(method)) {
    // mrtr.mdx "Error Handling": what is not a valid InputResponses object is a protocol error; requestState is a string.
    if (own(body, 'inputResponses') && !isObject(body.inputResponses)) return { era: 'modern', expect: error(method, INVALID_PARAMS), logs };
    if (own(body, 'requestState') && typeof body.requestState !== 'string') return { era: 'modern', expect: error(method, INVALID_PARAMS), logs };
  }
  if (method === 'subscriptions/listen') {
    if (!own(body, 'notifications') || filterFault(body.notifications)) return { era: 'modern', expect: error(method, INVALID_PARAMS), logs };
    return { era: 'modern', listen: body.notifications as Record<string, unknown>, logs };
  }
  return { era: 'modern', expect: methodExpectation(method, body), logs };
}

/** A subscription's graceful close (subscriptions.mdx, "Graceful Closure"), owed at EOF. */
export const closeOf = (id: RequestId): Expectation => ({ method: 'subscriptions/listen', result: true, codes: [], closes: id });

/** A request whose id is still in use by an open subscription: JSON-RPC leaves it to the server, which must refuse it. */
export const idInUse = (method: string): Expectation => ({ method, result: false, codes: 'any' });

export const allows = (expect: Expectation, code: number): boolean => expect.codes === 'any' || expect.codes.includes(code);

/** Why `response` is not what `expect` allows, or undefined. */
export function answerProblem(expect: Expectation, response: Record<string, unknown>): string | undefined {
  const { method } = expect;
  if (own(response, 'error')) {
    const { code, data } = response.error as { code: number; data?: unknown };
    if (!allows(expect, code)) {
      const wanted = expect.codes === 'any' ? 'an error' : [...(expect.result ? ['a result'] : []), ...expect.codes.map(String)].join(' or ');
      return `${method}: error ${code}, where the rules call for ${wanted}`;
    }
    if (code !== UNSUPPORTED_VERSION) return undefined;
    // UnsupportedProtocolVersionError (schema.ts): data.supported lists what to retry with, data.requested repeats the request.
    if (!isObject(data) || !Array.isArray(data.supported) || !data.supported.includes(MODERN_VERSION))
      return `-32022 whose data.supported does not offer ${MODERN_VERSION}`;
    if (expect.requested !== undefined && data.requested !== expect.requested) return `-32022 whose data.requested is not the version the request named`;
    return undefined;
  }
  if (!expect.result) return `${method}: a result, where the rules call for error ${expect.codes === 'any' ? '(any)' : expect.codes.join(' or ')}`;
  const body = response.result as Record<string, unknown>;
  // basic/index.mdx "Result Responses" and "Per-response protocol fields".
  if (body.resultType !== 'complete') return `${method}: resultType ${JSON.stringify(body.resultType)}, not "complete"`;
  const meta = body._meta;
  if (!isObject(meta)) return `${method}: a result without _meta`;
  const info = meta[META.serverInfo];
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')
    return `${method}: a result without _meta serverInfo {name, version}`;
  if (CACHEABLE.has(method)) {
    const { ttlMs, cacheScope } = body;
    if (typeof ttlMs !== 'number' || !(ttlMs >= 0)) return `${method}: a CacheableResult without ttlMs >= 0`;
    if (cacheScope !== 'public' && cacheScope !== 'private') return `${method}: a CacheableResult whose cacheScope is ${JSON.stringify(cacheScope)}`;
  }
  if (method === 'server/discover') {
    const versions = body.supportedVersions;
    if (!Array.isArray(versions) || !versions.includes(MODERN_VERSION)) return `server/discover: supportedVersions does not list ${MODERN_VERSION}`;
    if (!isObject(body.capabilities)) return 'server/discover: no capabilities object';
  }
  if (expect.closes !== undefined) {
    if (JSON.stringify(meta[META.subscriptionId]) !== JSON.stringify(expect.closes))
      return `subscriptions/listen closed with a _meta subscriptionId that is not its id`;
    const extra = Object.keys(body).filter((key) => key !== 'resultType' && key !== '_meta');
    // subscriptions.mdx: "no method-specific data beyond the standard result fields and subscription metadata".
    if (extra.length > 0) return `subscriptions/listen closed with fields beyond resultType and _meta: ${extra.join(', ')}`;
  }
  return undefined;
}

/** Why an acknowledgment's filter is not a subset of the one asked for (subscriptions.mdx, "Acknowledgment"), or undefined. */
export function ackProblem(asked: Record<string, unknown>, acked: unknown): string | undefined {
  if (!isObject(acked)) return 'an acknowledgment without a notifications object';
  for (const [key, value] of Object.entries(acked)) {
    if (key === 'resourceSubscriptions') {
      const wanted = Array.isArray(asked.resourceSubscriptions) ? (asked.resourceSubscriptions as unknown[]) : [];
      if (!Array.isArray(value) || !value.every((uri) => wanted.includes(uri)))
        return `an acknowledgment of resourceSubscriptions ${JSON.stringify(value)} not asked for`;
    } else if (['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'].includes(key)) {
      if (value === true && !(own(asked, key) && asked[key] === true)) return `an acknowledgment of ${key}, which was not asked for`;
    } else {
      return `an acknowledgment of ${JSON.stringify(key)}, which is no SubscriptionFilter field`;
    }
  }
  return undefined;
}
