// The 2026-07-28 era: each request names its protocol version and the
// client's capabilities in params._meta (basic/index.mdx, "_meta",
// "Per-request protocol fields"). Nothing is carried over from earlier
// requests on the same connection (basic/index.mdx, "Statelessness").
import { RpcError } from '../../../jsonrpc/errors.js';
import { unsupportedProtocolVersion } from '../errors.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../logging.js';
import { META } from '../requestScope.js';
import { isModernVersion, LEGACY_VERSIONS, MODERN_VERSIONS, type ModernVersion } from '../versions.js';

/** The per-request fields a 2026-07-28 request carries. */
export interface RequestMeta {
  readonly version: ModernVersion;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly clientInfo: { readonly name: string; readonly version: string } | undefined;
  /** The least severe log message the request wants; undefined: it wants none. */
  readonly logLevel: LogLevel | undefined;
}

const PER_REQUEST_KEYS = [META.protocolVersion, META.clientCapabilities, META.clientInfo, META.logLevel];

/**
 * Whether `meta` claims the modern era: it holds any of the per-request
 * protocol fields. A legacy client sends none of them (they are reserved
 * for MCP), so a claim missing a required field is a malformed modern
 * request, not a legacy one.
 */
export function claimsModernEra(meta: Record<string, unknown> | undefined): meta is Record<string, unknown> {
  return meta !== undefined && PER_REQUEST_KEYS.some((key) => Object.hasOwn(meta, key));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (key: string): string => `params._meta[${JSON.stringify(key)}]`;

/**
 * Reads and checks the per-request fields. A missing or malformed required
 * field is -32602, naming the field; a version this server does not serve
 * per request is -32022 with the versions it does (basic/versioning.mdx).
 * The version is checked first, so a client learns what to retry with even
 * when the rest of its _meta is wrong too.
 */
export function readRequestMeta(meta: Record<string, unknown>): RequestMeta {
  if (!Object.hasOwn(meta, META.protocolVersion)) {
    throw RpcError.invalidParams(`${field(META.protocolVersion)} is required: the protocol version of this request, such as "${MODERN_VERSIONS[0]}"`);
  }
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') throw RpcError.invalidParams(`${field(META.protocolVersion)} must be a string, such as "${MODERN_VERSIONS[0]}"`);
  if (!isModernVersion(version)) throw unsupportedProtocolVersion(version, MODERN_VERSIONS, LEGACY_VERSIONS);

  if (!Object.hasOwn(meta, META.clientCapabilities)) {
    throw RpcError.invalidParams(`${field(META.clientCapabilities)} is required: the client's capabilities for this request ({} for none)`);
  }
  const clientCapabilities = meta[META.clientCapabilities];
  if (!isObject(clientCapabilities)) throw RpcError.invalidParams(`${field(META.clientCapabilities)} must be an object ({} for none)`);

  const clientInfo = meta[META.clientInfo];
  if (clientInfo !== undefined && !(isObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string')) {
    throw RpcError.invalidParams(`${field(META.clientInfo)}, when given, must be an object with string name and version`);
  }

  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    throw RpcError.invalidParams(`${field(META.logLevel)}, when given, must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    version,
    clientCapabilities,
    clientInfo: clientInfo as RequestMeta['clientInfo'],
    logLevel,
  };
}
