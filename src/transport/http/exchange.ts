// One HTTP response that carries JSON-RPC: a POST's answer, or a legacy
// session's GET stream. It is JSON (application/json) unless a notification
// comes first, in which case it becomes an SSE stream (text/event-stream):
// the notifications, then the response, which ends it
// (basic/transports/streamable-http.mdx, "Sending Messages", "Receiving
// Messages"). A client that stops reading is cut off once MAX_BUFFERED bytes
// wait for it, rather than growing the server's memory.
import type { ServerResponse } from 'node:http';

import type { OutgoingNotification } from '../../jsonrpc/dispatcher.js';

/**
 * Bytes an SSE stream may hold for a client that does not read before it is closed.
 * @internal exported for the tests
 */
export const MAX_BUFFERED = 1 << 20;
/** An SSE comment every this many ms keeps proxies from closing a quiet stream (a listen stream). */
const KEEPALIVE_MS = 15_000;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

export class Exchange {
  private streaming = false;
  private finished = false;
  private keepalive: NodeJS.Timeout | undefined;
  /** Called once if the client goes away before the answer is written (cancellation, in 2026-07-28). */
  onAbandoned: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    /** The HTTP status of a JSON answer (httpErrors.ts: modern or legacy). */
    private readonly statusOf: (message: unknown) => number,
    /** Headers every answer carries (Mcp-Session-Id on a legacy initialize). */
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {
    res.on('close', () => {
      this.stopKeepalive();
      if (!this.finished) {
        this.finished = true;
        this.onAbandoned?.();
      }
    });
  }

  get done(): boolean {
    return this.finished;
  }

  /** A notification that belongs to this exchange: it turns the answer into an SSE stream. */
  notify = (notification: OutgoingNotification): void => {
    if (this.finished) return;
    this.startStream();
    this.event({ jsonrpc: '2.0', ...notification });
  };

  /** Opens the stream now (a GET stream, a listen stream), before any message. */
  startStream(): void {
    if (this.streaming || this.finished) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, ...this.extraHeaders });
    this.res.flushHeaders();
    this.keepalive = setInterval(() => this.write(':\n\n'), KEEPALIVE_MS).unref();
  }

  /** The answer: a JSON body, or the stream's last event. */
  respond(message: unknown): void {
    if (this.finished) return;
    if (this.streaming) {
      this.event(message);
      this.end();
      return;
    }
    this.finished = true;
    const body = JSON.stringify(message);
    this.res.writeHead(this.statusOf(message), { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...this.extraHeaders });
    this.res.end(body);
  }

  /** 202 Accepted with no body: a notification or a response was taken. */
  accepted(): void {
    if (this.finished) return;
    this.finished = true;
    this.res.writeHead(202, this.extraHeaders);
    this.res.end();
  }

  /** Ends the stream (or the answer) with nothing more to say. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.stopKeepalive();
    this.res.end();
  }

  private event(message: unknown): void {
    this.write(`data: ${JSON.stringify(message)}\n\n`);
  }

  private write(text: string): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.write(text);
    // Backpressure: a client that does not read loses the stream, never the server its memory.
    if (this.res.writableLength > MAX_BUFFERED) this.res.destroy();
  }

  private stopKeepalive(): void {
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.keepalive = undefined;
  }
}
