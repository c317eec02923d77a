// HTTP statuses for JSON-RPC answers and for the transport's own refusals.
// A 2026-07-28 error carries the status the spec gives it, so that a
// dual-era client can tell a modern server's refusal from a legacy server's
// (basic/transports/streamable-http.mdx, "Protocol Version Header", "Server
// Validation", "Backward Compatibility"); a legacy session's answers are
// 200, as its clients expect. Every refusal has a JSON-RPC error body.
import type { ServerResponse } from 'node:http';

import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import { errorResponse, type RequestId } from '../../jsonrpc/messages.js';

/** The modern errors answered with 400: header mismatch, missing capability, unsupported version, and malformed requests. */
const BAD_REQUEST = new Set<number>([-32020, -32021, -32022, ErrorCode.ParseError, ErrorCode.InvalidRequest, ErrorCode.InvalidParams]);

/** The status of a 2026-07-28 answer: 404 for an unknown method, 400 for the client's mistakes, else 200. */
export function modernStatus(message: unknown): number {
  const code = (message as { error?: { code?: unknown } }).error?.code;
  if (typeof code !== 'number') return 200;
  if (code === ErrorCode.MethodNotFound) return 404;
  return BAD_REQUEST.has(code) ? 400 : 200;
}

/** A legacy session's answers are always 200: its clients read errors from the body. */
export const legacyStatus = (): number => 200;

/**
 * Refuses a request before any JSON-RPC handling: `status`, a JSON-RPC error
 * body (id null unless known), and `headers` (Allow, WWW-Authenticate, ...).
 */
export function refuse(
  res: ServerResponse,
  status: number,
  error: RpcError,
  id: RequestId | null = null,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorResponse(id, error));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** A refusal that is not a JSON-RPC code of its own (the transport's limits): -32600 with what went wrong and what to do. */
export function transportError(detail: string): RpcError {
  return RpcError.invalidRequest(detail);
}
