// JSON-RPC 2.0's error codes and the one error class that travels on the
// wire. Codes of the protocol on top (MCP's) live with it, in src/mcp/protocol/errors.ts.
// Anything else a handler throws is a bug: it becomes -32603 with a generic
// message, and the details go to stderr.

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** An error to answer a request with, as { code, message, data? }. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  static parseError(detail: string): RpcError {
    return new RpcError(ErrorCode.ParseError, `Parse error: ${detail}`);
  }

  static invalidRequest(detail: string): RpcError {
    return new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${detail}`);
  }

  static methodNotFound(method: string, detail?: string): RpcError {
    return new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method}${detail === undefined ? '' : ` (${detail})`}`);
  }

  static invalidParams(detail: string, data?: unknown): RpcError {
    return new RpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
  }

  /** Anything a handler throws that is not an RpcError: the details go to stderr, never to the client. */
  static internal(): RpcError {
    return new RpcError(ErrorCode.InternalError, 'Internal error');
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
