// The request headers a 2026-07-28 POST must carry, checked against its body
// (basic/transports/streamable-http.mdx, "Standard Request Headers",
// "Protocol Version Header", "Value Encoding" and "Server Validation"):
// MCP-Protocol-Version equals _meta's protocolVersion, Mcp-Method the method,
// and Mcp-Name the name (tools/call, prompts/get) or uri (resources/read).
// A failure is -32020 HeaderMismatch, which the transport answers with 400.
import type { IncomingHttpHeaders } from 'node:http';

import { RpcError } from '../../jsonrpc/errors.js';

/** HeaderMismatch (schema.ts, HEADER_MISMATCH): the headers are missing, malformed, or say otherwise than the body. */
const HEADER_MISMATCH = -32020;

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
/** Which body field Mcp-Name mirrors, for the methods that need it. */
const NAME_FIELD: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
/** Visible ASCII, space and tab: what a header value may hold unencoded ("Value Encoding"). */
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;
const ENCODED_VALUE = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

function mismatch(detail: string): RpcError {
  return new RpcError(HEADER_MISMATCH, `Header mismatch: ${detail}`);
}

/** One header's value: undefined when absent; a repeated header is malformed. */
function single(headers: IncomingHttpHeaders, name: string): string | undefined | RpcError {
  const value = headers[name];
  if (Array.isArray(value)) return mismatch(`the ${name} header is given ${value.length} times`);
  return value;
}

/** A header value as the body would say it: Base64 forms decoded, anything with invalid characters refused. */
function decodeHeaderValue(name: string, value: string): string | RpcError {
  const encoded = ENCODED_VALUE.exec(value);
  if (encoded !== null) {
    const bytes = Buffer.from(encoded[1]!, 'base64');
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    if (bytes.toString('base64').replace(/=+$/, '') !== encoded[1]!.replace(/=+$/, '')) return mismatch(`the ${name} header's Base64 is malformed`);
    return text;
  }
  if (!PLAIN_VALUE.test(value)) return mismatch(`the ${name} header holds characters a header may not carry unencoded (use =?base64?…?=)`);
  return value;
}

/**
 * Checks a 2026-07-28 request's headers against its body (a request object:
 * method, params with _meta). Returns the -32020 error to answer with, or
 * undefined when they agree.
 */
export function checkModernHeaders(headers: IncomingHttpHeaders, method: string, params: Record<string, unknown> | undefined): RpcError | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = single(headers, 'mcp-protocol-version');
  if (version instanceof RpcError) return version;
  if (version === undefined) return mismatch('the MCP-Protocol-Version header is missing: every 2026-07-28 POST carries it');
  const bodyVersion = meta?.[PROTOCOL_VERSION_KEY];
  // A body without the field is malformed, and the MCP layer says so (-32602, 400).
  if (bodyVersion !== undefined && version !== bodyVersion) {
    return mismatch(
      `MCP-Protocol-Version header value '${version}' does not match body value '${String(bodyVersion)}' (params._meta["${PROTOCOL_VERSION_KEY}"])`,
    );
  }
  const methodHeader = single(headers, 'mcp-method');
  if (methodHeader instanceof RpcError) return methodHeader;
  if (methodHeader === undefined) return mismatch('the Mcp-Method header is missing: every request carries it');
  if (methodHeader !== method) return mismatch(`Mcp-Method header value '${methodHeader}' does not match body value '${method}'`);
  const field = NAME_FIELD[method];
  if (field === undefined) return undefined;
  const nameHeader = single(headers, 'mcp-name');
  if (nameHeader instanceof RpcError) return nameHeader;
  if (nameHeader === undefined) return mismatch(`the Mcp-Name header is missing: ${method} carries it, with params.${field}`);
  const decoded = decodeHeaderValue('Mcp-Name', nameHeader);
  if (decoded instanceof RpcError) return decoded;
  const body = params?.[field];
  if (decoded !== body) return mismatch(`Mcp-Name header value '${nameHeader}' does not match body value '${String(body)}' (params.${field})`);
  return undefined;
}
