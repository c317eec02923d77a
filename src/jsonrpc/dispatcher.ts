// Routes framed lines to handlers and sends exactly one response per request
// (none per notification). Knows JSON-RPC, not what the methods mean: which
// methods exist, and whether a batch is allowed right now, are the caller's.
import { RpcError } from './errors.js';
import { classify, errorResponse, mayNestTooDeep, type RequestId, type Response } from './messages.js';
import { RequestSignal } from './requestSignal.js';

export interface RequestContext {
  readonly id: RequestId;
  /** Aborted when the client cancels the request (its response is then never sent). */
  readonly signal: RequestSignal;
  /** The request came as an element of a batch (a JSON array), not on its own. */
  readonly batched: boolean;
  /**
   * Where the notifications that belong to this request go, when the
   * transport gives each request a channel of its own (HTTP: the request's
   * response stream). Undefined: the connection's one output (stdio).
   */
  readonly notify: ((notification: OutgoingNotification) => void) | undefined;
}

/** A notification from server to client, as the transport writes it (without "jsonrpc"). */
export interface OutgoingNotification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface DispatcherHandlers {
  /** Answers a request; throws RpcError for a protocol error. */
  request(method: string, params: Record<string, unknown> | undefined, context: RequestContext): unknown;
  notification(method: string, params: Record<string, unknown> | undefined): void;
  /** Whether a JSON array of messages (a batch) is accepted now. */
  acceptsBatch(): boolean;
  /** A handler threw something other than RpcError: a bug. Report it; the client gets -32603. */
  internalError(error: unknown, method: string): void;
}

interface InFlight {
  readonly signal: RequestSignal;
  cancelled: boolean;
}

export class Dispatcher {
  private readonly inFlight = new Map<RequestId, InFlight>();
  /** Lines handed to handleMessage whose answers are not sent yet. */
  private unsent = 0;
  private idleWaiters: Array<() => void> = [];

  /**
   * `send` writes each answer; `settledUnanswered`, if given, hears of each
   * line that needed no answer (a notification, a response, a cancelled
   * request): a transport holding its input until requests finish learns of
   * the ones that finish silently.
   */
  constructor(
    private readonly handlers: DispatcherHandlers,
    private readonly send: (message: Response | Response[]) => void,
    private readonly settledUnanswered?: () => void,
    /** The channel every request handled here sends its notifications to (RequestContext.notify). */
    private readonly notify?: (notification: OutgoingNotification) => void,
  ) {}

  /** Requests whose handlers have not finished (their answers may still be a few microtasks away: see idle()). */
  get pending(): number {
    return this.inFlight.size;
  }

  /**
   * Resolves once every message received so far has had its answer sent (or
   * needs none). Counted per line, not per request in flight: a handler that
   * has returned, or a message refused as invalid, still has its answer a few
   * microtasks away, and a caller that flushes and ends the output on idle()
   * would lose it (found by fuzzing the transport).
   */
  idle(): Promise<void> {
    if (this.unsent === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** One framed line of input. */
  handleLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.send(errorResponse(null, RpcError.parseError((error as Error).message)));
      return;
    }
    this.handleParsed(value, line.length);
  }

  /** A message the transport has parsed already (HTTP reads the body whole); `length` is its text's, for the depth check. */
  handleParsed(value: unknown, length: number): void {
    const checkDepth = mayNestTooDeep(length);
    if (!Array.isArray(value)) {
      this.unsent++;
      // A handler that answers at once is answered at once, before the next
      // line is read: the answer to initialize leaves before anything the
      // session says once notifications/initialized, read in the same turn,
      // has made it ready (issue 17). Only a promise waits.
      const answer = this.handleMessage(value, checkDepth, false);
      if (answer instanceof Promise) void answer.then((response) => this.answered(response));
      else this.answered(answer);
      return;
    }
    // JSON-RPC 2.0 §6: an empty array is one invalid request, not an empty batch.
    if (!this.handlers.acceptsBatch() || value.length === 0) {
      const why = value.length === 0 ? 'an empty batch' : 'batches are not supported in this protocol version';
      this.send(errorResponse(null, RpcError.invalidRequest(why)));
      return;
    }
    this.unsent++;
    void Promise.all(value.map((item) => this.handleMessage(item, checkDepth, true))).then((responses: Array<Response | undefined>) => {
      const answered = responses.filter((response): response is Response => response !== undefined);
      this.answered(answered.length > 0 ? answered : undefined);
    });
  }

  /** A line over the size cap was skipped. */
  handleOversized(bytes: number, limit: number): void {
    this.send(errorResponse(null, RpcError.invalidRequest(`message of ${bytes} bytes exceeds the limit of ${limit} bytes`)));
  }

  /** A line that is not valid UTF-8. */
  handleBadEncoding(): void {
    this.send(errorResponse(null, RpcError.parseError('the line is not valid UTF-8')));
  }

  /** Cancels request `id` if it is in flight: its handler's signal aborts and no response is sent. */
  cancel(id: RequestId, reason?: string): void {
    const entry = this.inFlight.get(id);
    if (!entry || entry.cancelled) return;
    entry.cancelled = true;
    const error = new Error(reason ?? 'cancelled by the client');
    error.name = 'AbortError';
    entry.signal.abort(error);
  }

  /** A line's answer is ready (undefined: it needs none): sends it, then wakes idle() if it was the last. */
  private answered(response: Response | Response[] | undefined): void {
    this.unsent--;
    if (response !== undefined) this.send(response);
    else this.settledUnanswered?.();
    if (this.unsent > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** The message's answer (undefined: none), at once when its handler gives one at once, else a promise of it. */
  private handleMessage(value: unknown, checkDepth: boolean, batched: boolean): Response | undefined | Promise<Response | undefined> {
    const classified = classify(value, checkDepth);
    switch (classified.kind) {
      case 'response':
        return undefined; // this server sends no requests, so answers to none are expected
      case 'invalid':
        return errorResponse(classified.id, classified.error);
      case 'notification': {
        const { method, params } = classified.message;
        try {
          this.handlers.notification(method, params as Record<string, unknown> | undefined);
        } catch (error) {
          if (!(error instanceof RpcError)) this.handlers.internalError(error, method);
        }
        return undefined; // never answered, even when it fails
      }
      case 'request':
        return this.handleRequest(classified.message.id, classified.message.method, classified.message.params, batched);
    }
  }

  private handleRequest(id: RequestId, method: string, params: unknown, batched: boolean): Response | undefined | Promise<Response | undefined> {
    if (this.inFlight.has(id)) {
      return errorResponse(id, RpcError.invalidRequest(`id ${JSON.stringify(id)} is already in use by a request in progress`));
    }
    const entry: InFlight = { signal: new RequestSignal(), cancelled: false };
    this.inFlight.set(id, entry);
    let result: unknown;
    try {
      result = this.handlers.request(method, params as Record<string, unknown> | undefined, {
        id,
        signal: entry.signal,
        batched,
        notify: this.notify,
      });
    } catch (error) {
      return this.settle(id, method, entry, undefined, error);
    }
    if (!(result instanceof Promise)) return this.settle(id, method, entry, result);
    return result.then(
      (value: unknown) => this.settle(id, method, entry, value),
      (error: unknown) => this.settle(id, method, entry, undefined, error),
    );
  }

  /** A request's handler has finished, with `result` or by throwing `error` (when given): its response, or none if it was cancelled. */
  private settle(id: RequestId, method: string, entry: InFlight, result: unknown, ...failure: [unknown] | []): Response | undefined {
    this.inFlight.delete(id);
    if (failure.length === 0) return entry.cancelled ? undefined : { jsonrpc: '2.0', id, result: result ?? {} };
    const [error] = failure;
    // A cancelled request's handler may end by throwing its abort reason: expected, and never answered.
    if (!(error instanceof RpcError) && !entry.cancelled) this.handlers.internalError(error, method);
    return entry.cancelled ? undefined : errorResponse(id, error instanceof RpcError ? error : RpcError.internal());
  }
}
