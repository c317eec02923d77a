// JSON-RPC 2.0 message shapes, and the checks that tell a request from a
// notification from garbage.
import { RpcError } from './errors.js';

/** MCP narrows JSON-RPC's ids: a string or an integer, never null. */
export type RequestId = string | number;

interface Request {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly method: string;
  readonly params?: unknown;
}

interface Notification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: unknown;
}

interface SuccessResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly result: unknown;
}

export interface ErrorResponse {
  readonly jsonrpc: '2.0';
  /** null only when the request's id could not be read. */
  readonly id: RequestId | null;
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export type Response = SuccessResponse | ErrorResponse;

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

export function errorResponse(id: RequestId | null, error: RpcError): ErrorResponse {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

/** What one parsed JSON value turned out to be. */
export type Classified =
  | { readonly kind: 'request'; readonly message: Request }
  | { readonly kind: 'notification'; readonly message: Notification }
  | { readonly kind: 'response' }
  | { readonly kind: 'invalid'; readonly id: RequestId | null; readonly error: RpcError };

const has = (object: object, key: string): boolean => Object.hasOwn(object, key);

/**
 * How deeply a message may nest ({} is 1 deep). JSON.parse takes any depth,
 * but JSON.stringify, which handlers use to quote a value in an error
 * message, overflows the stack at about 4,000 levels in Node 20: deeper
 * messages are refused before a handler sees them. No MCP message comes near.
 */
const MAX_NESTING_DEPTH = 1000;

/**
 * Whether a line of `length` characters can nest deeper than the limit: each
 * level takes an opening and a closing bracket, so the usual short message
 * skips the walk.
 */
export const mayNestTooDeep = (length: number): boolean => length > 2 * MAX_NESTING_DEPTH;

/** Whether `value` nests deeper than `limit`; a walk with its own stack, since recursion is what fails. */
function nestsDeeperThan(value: object, limit: number): boolean {
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const child of Object.values(current)) {
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Sorts a parsed value into request, notification, response (which a server
 * ignores) or invalid. `checkDepth`: whether to enforce MAX_NESTING_DEPTH
 * (see mayNestTooDeep).
 */
export function classify(value: unknown, checkDepth = false): Classified {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', id: null, error: RpcError.invalidRequest('a message must be a JSON object') };
  }
  const message = value as Record<string, unknown>;
  const hasId = has(message, 'id');
  const id = hasId && isRequestId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0') {
    return { kind: 'invalid', id, error: RpcError.invalidRequest('"jsonrpc" must be exactly "2.0"') };
  }
  if (!has(message, 'method') && (has(message, 'result') || has(message, 'error'))) return { kind: 'response' };
  if (typeof message.method !== 'string') {
    return { kind: 'invalid', id, error: RpcError.invalidRequest('"method" must be a string') };
  }
  if (hasId && id === null) {
    return { kind: 'invalid', id: null, error: RpcError.invalidRequest('"id" must be a string or an integer') };
  }
  if (has(message, 'params') && (typeof message.params !== 'object' || message.params === null)) {
    return { kind: 'invalid', id, error: RpcError.invalidRequest('"params" must be an object or an array') };
  }
  if (checkDepth && nestsDeeperThan(message, MAX_NESTING_DEPTH)) {
    return { kind: 'invalid', id, error: RpcError.invalidRequest(`the message nests more than ${MAX_NESTING_DEPTH} levels deep`) };
  }
  if (hasId) return { kind: 'request', message: message as unknown as Request };
  return { kind: 'notification', message: message as unknown as Notification };
}
