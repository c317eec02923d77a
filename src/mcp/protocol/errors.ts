// MCP's own protocol errors, as RpcErrors: the codes JSON-RPC leaves to the
// application, and what each protocol version makes of them (basic/index.mdx
// "Error Codes" in 2026-07-28; server/resources.mdx "Error Handling").
import { RpcError } from '../../jsonrpc/errors.js';
import type { VersionRules } from './versions.js';

const McpErrorCode = {
  /** resources/read of an unknown URI, through 2025-11-25 (later: -32602). */
  ResourceNotFoundLegacy: -32002,
  /** The request names a protocol version this server does not serve per request (2026-07-28). */
  UnsupportedProtocolVersion: -32022,
} as const;

/** resources/read of a URI that does not exist: -32002 or -32602 by version, with the URI in data either way. */
export function resourceNotFound(uri: string, rules: VersionRules): RpcError {
  return new RpcError(rules.resourceNotFoundCode, `Resource not found: ${uri}`, { uri });
}

/**
 * A modern request naming a version this server does not speak per request
 * (basic/versioning.mdx, "Protocol Version Negotiation"). `supported` lists
 * what the client may name instead.
 */
export function unsupportedProtocolVersion(requested: string, supported: readonly string[], legacy: readonly string[]): RpcError {
  const shown = JSON.stringify(requested.length > 64 ? `${requested.slice(0, 61)}...` : requested);
  return new RpcError(
    McpErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${shown}: name ${supported.join(' or ')} in _meta, or send initialize for ${legacy.join(', ')}`,
    { supported: [...supported], requested },
  );
}
