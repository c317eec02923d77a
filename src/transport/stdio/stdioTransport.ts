// Bytes in and out of the process: stdin through the line decoder to the
// dispatcher, responses to stdout one line each, with backpressure both ways:
// input is paused while too many requests are unanswered or while the reader
// is far behind, so a client that pipelines without bound waits in its pipe
// instead of growing the server's memory; and a turn of the event loop
// dispatches at most MESSAGES_PER_TURN messages and stops after
// TURN_BUDGET_MS, so a flood of input cannot stall timers and output.
// Streams come in as arguments, so tests use in-memory ones.
import type { Readable, Writable } from 'node:stream';

import type { Dispatcher } from '../../jsonrpc/dispatcher.js';
import { encodeMessage, type Frame, LineDecoder } from '../../jsonrpc/framing.js';
import { classify } from '../../jsonrpc/messages.js';

export interface TransportOptions {
  readonly input: Readable;
  readonly output: Writable;
  /** Longest message accepted, in bytes; longer lines are skipped and answered with -32600. */
  readonly maxMessageBytes: number;
  /** Input is paused while this many requests are unanswered, until half of them are. Default 1024. */
  readonly maxPendingRequests?: number;
  /** Input is paused while this many bytes wait for the reader, until they are written. Default 1 MiB. */
  readonly maxUnreadBytes?: number;
  /** Reads what the input's pipe holds now, without waiting; undefined once it holds nothing. For endInput. */
  readonly readAvailable?: (() => Buffer | undefined) | undefined;
  /** Milliseconds of dispatching after which a turn of the event loop ends. Default TURN_BUDGET_MS. */
  readonly turnBudgetMs?: number;
}

const DEFAULT_MAX_PENDING_REQUESTS = 1024;
const DEFAULT_MAX_UNREAD_BYTES = 1 << 20;
/**
 * Messages dispatched in one turn of the event loop at most; the rest wait for
 * the next turn, with input paused. libuv reads a pipe up to 32 times a turn,
 * 64 KiB each, and 64 KiB holds hundreds of requests: unchecked, a client
 * writing as fast as it could held the loop for 60-150 ms at a time (npm run
 * test:load). 256 requests take about 5 ms.
 */
const MESSAGES_PER_TURN = 256;
/**
 * Milliseconds of dispatching after which a turn ends, however few messages
 * it has dispatched. Warm, 256 requests take about 5 ms, so the budget
 * rarely ends a warm turn; cold, before V8 has compiled the server's code,
 * the first turns of a flood held the loop for 70-110 ms (npm run
 * test:load, a 2-vCPU VM). With it the longest gap there is 27-34 ms
 * (37-48 ms with 10), at the same throughput.
 */
const TURN_BUDGET_MS = 5;
/** Longest line looked at to tell a notification from a request at the end of a turn. */
const NOTIFICATION_PEEK_CHARS = 4096;

/**
 * Whether `frame` is a notification (a JSON object with a method and no id),
 * cheap to dispatch: a turn that has used its time still reads those right
 * behind, so that a cancellation written right behind its request is read
 * before the request's answer can go out, as it was without the budget.
 */
function isNotification(frame: Frame): boolean {
  if (frame.kind !== 'line' || frame.text.length > NOTIFICATION_PEEK_CHARS) return false;
  try {
    return classify(JSON.parse(frame.text)).kind === 'notification';
  } catch {
    return false;
  }
}

export class StdioTransport {
  private readonly queue: string[] = [];
  /** The length of the lines in `queue`. */
  private queuedChars = 0;
  private writing = false;
  private scheduled = false;
  private flushed: Array<() => void> = [];
  private closedOutput = false;
  /** Input is held: too many requests unanswered. */
  private heldForPending = false;
  /** Input is held: the reader is behind by more than maxUnreadBytes. */
  private heldForOutput = false;
  /** Resumes input if nothing holds it any more; set while run() reads. */
  private release: (() => void) | undefined;
  /**
   * Ends the input as EOF does (for SIGTERM and SIGINT), after reading what
   * the stream has buffered: set while run() reads.
   */
  endInput: (() => void) | undefined;

  constructor(private readonly options: TransportOptions) {}

  /** Whether the output went away (EPIPE: the host is gone). */
  get outputClosed(): boolean {
    return this.closedOutput;
  }

  /** Feeds input to `dispatcher` until EOF; resolves then. */
  run(dispatcher: Dispatcher): Promise<void> {
    const { input, maxMessageBytes, maxPendingRequests = DEFAULT_MAX_PENDING_REQUESTS, turnBudgetMs = TURN_BUDGET_MS } = this.options;
    const decoder = new LineDecoder(maxMessageBytes);
    const dispatch = (frame: Frame): void => {
      if (frame.kind === 'line') dispatcher.handleLine(frame.text);
      else if (frame.kind === 'oversized') dispatcher.handleOversized(frame.bytes, maxMessageBytes);
      else dispatcher.handleBadEncoding();
    };
    // Frames decoded and not yet dispatched, from waiting[next] on. Input is
    // paused while any wait, or while a hold is on; nothing is dispatched
    // while a hold is on, nor past MESSAGES_PER_TURN or TURN_BUDGET_MS in one
    // turn, except the notifications right behind the turn's last message.
    let waiting: Frame[] = [];
    let next = 0;
    let turnMessages = 0;
    let turnStarted = 0;
    /** After EOF (or SIGTERM's stand-in for it) nothing more is read. */
    let ended = false;
    const endTurn = (): void => {
      turnMessages = 0;
      proceed();
    };
    const proceed = (): void => {
      if (ended) return;
      if (!this.heldForPending && !this.heldForOutput) {
        if (turnMessages === 0 && next < waiting.length) {
          setImmediate(endTurn);
          turnStarted = performance.now();
        }
        while (next < waiting.length && turnMessages < MESSAGES_PER_TURN) {
          dispatch(waiting[next++]!);
          turnMessages++;
          // Out of time: the turn ends here, however few it dispatched.
          if (performance.now() - turnStarted > turnBudgetMs) turnMessages = MESSAGES_PER_TURN;
        }
        // A turn ends before a request: the notifications right behind the last one go with it.
        if (turnMessages >= MESSAGES_PER_TURN) while (next < waiting.length && isNotification(waiting[next]!)) dispatch(waiting[next++]!);
        holdIfBusy();
      }
      if (next === waiting.length) {
        waiting = [];
        next = 0;
      }
      if (next < waiting.length || this.heldForPending || this.heldForOutput) input.pause();
      else input.resume();
    };
    this.release = () => {
      if (this.heldForPending && dispatcher.pending <= maxPendingRequests / 2) this.heldForPending = false;
      proceed();
    };

    let watchingIdle = false;
    const holdIfBusy = (): void => {
      if (dispatcher.pending < maxPendingRequests) return;
      this.heldForPending = true;
      // Answers release it (send, and settled() for requests that end unanswered); idle() as well, as a backstop.
      if (watchingIdle) return;
      watchingIdle = true;
      void dispatcher.idle().then(() => {
        watchingIdle = false;
        this.release?.();
      });
    };

    return new Promise((resolve) => {
      const stop = (): void => {
        ended = true;
        this.release = undefined;
        resolve();
      };
      const receive = (chunk: Buffer | string): void => {
        const frames = decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        if (next === waiting.length) {
          waiting = frames;
          next = 0;
        } else {
          for (const frame of frames) waiting.push(frame);
        }
        proceed();
      };
      input.on('data', receive);
      const end = (): void => {
        if (ended) return;
        // First, so that a line answered at once below (its send releasing a hold) cannot re-enter proceed() and dispatch these frames twice.
        ended = true;
        // Everything received is answered: what waits for a turn goes now.
        for (const frame of waiting.slice(next)) dispatch(frame);
        waiting = [];
        next = 0;
        for (const frame of decoder.end()) dispatch(frame);
        this.endInput = undefined;
        stop();
      };
      input.once('end', end);
      input.once('error', stop);
      // SIGTERM's stand-in for EOF: what the client sent before it was
      // received too, though paused input left it in the stream's buffer or
      // the pipe. Both are read (each read() emits 'data'; readAvailable
      // takes what the pipe holds without waiting) and answered.
      this.endInput = () => {
        input.pause();
        while (!ended && input.read() !== null);
        for (let chunk = this.options.readAvailable?.(); chunk !== undefined && !ended; chunk = this.options.readAvailable?.()) receive(chunk);
        end();
      };
    });
  }

  /**
   * Queues one message; lines leave in the order they were sent. The write
   * happens once the current turn of the event loop is done, so every answer
   * produced in it goes out in one write (one syscall, not one per line).
   */
  send(message: unknown): void {
    this.settled();
    if (this.closedOutput) return;
    const line = encodeMessage(message);
    this.queue.push(line);
    this.queuedChars += line.length;
    if (this.writing) this.holdIfReaderBehind();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        if (!this.writing) this.pump();
      });
    }
  }

  /** Resolves once everything sent so far has been handed to the OS (or the output is gone). */
  flush(): Promise<void> {
    if (!this.writing && !this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushed.push(resolve));
  }

  private pump(): void {
    const { output } = this.options;
    this.writing = true;
    while (this.queue.length > 0 && !this.closedOutput) {
      // One write per batch of queued lines: fewer syscalls under load.
      const text = this.queue.length === 1 ? this.queue[0]! : this.queue.join('');
      this.queue.length = 0;
      this.queuedChars = 0;
      const more = output.write(text, (error) => {
        if (error) this.outputGone();
      });
      if (!more) {
        this.holdIfReaderBehind();
        output.once('drain', () => this.pump());
        return; // backpressure: wait for the reader
      }
    }
    this.writing = false;
    this.releaseOutputHold();
    const waiters = this.flushed;
    this.flushed = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * A request finished: input held for pending requests may resume. send()
   * calls it; the dispatcher calls it for requests that end unanswered
   * (cancelled), which would otherwise hold input until another answer.
   */
  settled(): void {
    if (this.heldForPending) this.release?.();
  }

  /** While waiting for the reader: pauses input once too much waits for it (released when all is written). */
  private holdIfReaderBehind(): void {
    if (this.heldForOutput || !this.release) return;
    if (this.options.output.writableLength + this.queuedChars < (this.options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES)) return;
    this.heldForOutput = true;
    this.options.input.pause();
  }

  private releaseOutputHold(): void {
    if (!this.heldForOutput) return;
    this.heldForOutput = false;
    this.release?.();
  }

  /** Marks the output as gone (the host closed our stdout); later sends are dropped. */
  outputGone(): void {
    this.closedOutput = true;
    this.queue.length = 0;
    this.queuedChars = 0;
    this.writing = false;
    this.releaseOutputHold();
    const waiters = this.flushed;
    this.flushed = [];
    for (const resolve of waiters) resolve();
  }
}
