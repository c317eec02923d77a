// Bytes in and out of the process: stdin through the line decoder to the
// dispatcher, responses to stdout one line each, with backpressure. Streams
// come in as arguments, so tests use in-memory ones.
import type { Readable, Writable } from 'node:stream';

import type { Dispatcher } from './jsonrpc/dispatcher.js';
import { encodeMessage, LineDecoder } from './jsonrpc/framing.js';

export interface TransportOptions {
  readonly input: Readable;
  readonly output: Writable;
  /** Longest message accepted, in bytes; longer lines are skipped and answered with -32600. */
  readonly maxMessageBytes: number;
}

export class StdioTransport {
  private readonly queue: string[] = [];
  private writing = false;
  private scheduled = false;
  private flushed: Array<() => void> = [];
  private closedOutput = false;

  constructor(private readonly options: TransportOptions) {}

  /** Whether the output went away (EPIPE: the host is gone). */
  get outputClosed(): boolean {
    return this.closedOutput;
  }

  /** Feeds input to `dispatcher` until EOF; resolves then. */
  run(dispatcher: Dispatcher): Promise<void> {
    const { input, maxMessageBytes } = this.options;
    const decoder = new LineDecoder(maxMessageBytes);
    const deliver = (frames: ReturnType<LineDecoder['push']>): void => {
      for (const frame of frames) {
        if (frame.kind === 'line') dispatcher.handleLine(frame.text);
        else if (frame.kind === 'oversized') dispatcher.handleOversized(frame.bytes, maxMessageBytes);
        else dispatcher.handleBadEncoding();
      }
    };
    return new Promise((resolve) => {
      input.on('data', (chunk: Buffer | string) => deliver(decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
      input.once('end', () => {
        deliver(decoder.end());
        resolve();
      });
      input.once('error', () => resolve());
    });
  }

  /**
   * Queues one message; lines leave in the order they were sent. The write
   * happens once the current turn of the event loop is done, so every answer
   * produced in it goes out in one write (one syscall, not one per line).
   */
  send(message: unknown): void {
    if (this.closedOutput) return;
    this.queue.push(encodeMessage(message));
    if (!this.writing && !this.scheduled) {
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
      const more = output.write(text, (error) => {
        if (error) this.outputGone();
      });
      if (!more) {
        output.once('drain', () => this.pump());
        return;  // backpressure: wait for the reader
      }
    }
    this.writing = false;
    const waiters = this.flushed;
    this.flushed = [];
    for (const resolve of waiters) resolve();
  }

  /** Marks the output as gone (the host closed our stdout); later sends are dropped. */
  outputGone(): void {
    this.closedOutput = true;
    this.queue.length = 0;
    this.writing = false;
    const waiters = this.flushed;
    this.flushed = [];
    for (const resolve of waiters) resolve();
  }
}
