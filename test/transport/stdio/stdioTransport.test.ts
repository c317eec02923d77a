// The transport with in-memory streams: order, backpressure, EOF, a vanished reader.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../../../dist/jsonrpc/dispatcher.js';
import { StdioTransport } from '../../../dist/transport/stdio/stdioTransport.js';

/** A reader that takes one write at a time, slowly: every write after the first meets backpressure. */
function slowReader(received: string[]): Writable {
  return new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString());
      setTimeout(done, 2);
    },
  });
}

function echoDispatcher(transport: StdioTransport): Dispatcher {
  return new Dispatcher(
    {
      request: (_method, params) => params ?? {},
      notification: () => {},
      acceptsBatch: () => false,
      internalError: () => {},
    },
    (message) => transport.send(message),
  );
}

describe('StdioTransport', () => {
  it('answers everything received before EOF, in whole lines, waiting for a slow reader', async () => {
    const input = new PassThrough();
    const received: string[] = [];
    const transport = new StdioTransport({ input, output: slowReader(received), maxMessageBytes: 1 << 20 });
    const dispatcher = echoDispatcher(transport);
    const done = transport.run(dispatcher);
    const text = Array.from({ length: 300 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'echo', params: { i, s: '磁盘' } })).join('\n');
    // Split mid-character on purpose.
    const bytes = Buffer.from(text);
    input.write(bytes.subarray(0, 1001));
    input.end(bytes.subarray(1001));
    await done;
    await dispatcher.idle();
    await transport.flush();
    const lines = received.join('').split('\n');
    expect(lines.pop()).toBe('');
    const ids = lines.map((line) => (JSON.parse(line) as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(received.join('')).toContain('磁盘');
  });

  it('drops output quietly once the reader is gone', async () => {
    const transport = new StdioTransport({ input: new PassThrough(), output: new PassThrough(), maxMessageBytes: 100 });
    transport.outputGone();
    transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await transport.flush();
    expect(transport.outputClosed).toBe(true);
  });
});

// Flow control, step by step: handlers answer only when the test says so, the
// reader reads only when the test says so, and time is counted in turns of the
// event loop (setImmediate), never in milliseconds.

/** One turn of the event loop: everything already due (ticks, microtasks, immediates queued before) has run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await turn();
}
/** Microtasks and ticks only: no immediate (so no new turn of the event loop) runs. */
async function microtasks(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await new Promise<void>((resolve) => process.nextTick(resolve));
    await Promise.resolve();
  }
}

const requestLine = (id: number, method = 'hold'): string => `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { id } })}\n`;
const requestLines = (from: number, to: number, method = 'hold'): string => {
  let text = '';
  for (let id = from; id < to; id++) text += requestLine(id, method);
  return text;
};

/**
 * A transport over in-memory streams with a dispatcher whose 'hold' requests
 * are answered only by release(id) (a cancelled one ends, unanswered, when its
 * signal aborts), 'echo' requests at once, and notifications counted.
 */
function harness(options: { maxPendingRequests?: number; maxUnreadBytes?: number; output?: Writable; wireSettled?: boolean; turnBudgetMs?: number } = {}) {
  const input = new PassThrough();
  const received: string[] = [];
  const output =
    options.output ??
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk.toString());
        done();
      },
    });
  const transport = new StdioTransport({
    input,
    output,
    maxMessageBytes: 1 << 20,
    ...(options.maxPendingRequests === undefined ? {} : { maxPendingRequests: options.maxPendingRequests }),
    ...(options.maxUnreadBytes === undefined ? {} : { maxUnreadBytes: options.maxUnreadBytes }),
    // Counted in messages, not milliseconds: a loaded machine must not end a turn early here.
    turnBudgetMs: options.turnBudgetMs ?? Infinity,
  });
  const dispatched: number[] = [];
  let notifications = 0;
  const held = new Map<number, () => void>();
  const dispatcher = new Dispatcher(
    {
      request: (method, params, { signal }) => {
        const id = (params as { id: number }).id;
        dispatched.push(id);
        if (method === 'slow') {
          // Work that takes 2 ms of the thread, as a cold first request can.
          const until = performance.now() + 2;
          while (performance.now() < until);
        }
        if (method !== 'hold') return params;
        return new Promise((resolve, reject) => {
          held.set(id, () => resolve({ id }));
          signal.addEventListener('abort', () => reject(signal.reason));
        });
      },
      notification: () => void notifications++,
      acceptsBatch: () => false,
      internalError: (error) => {
        throw error;
      },
    },
    (message) => transport.send(message),
    options.wireSettled ? () => transport.settled() : undefined,
  );
  const release = (id: number): void => {
    const answer = held.get(id);
    if (!answer) throw new Error(`request ${id} is not held`);
    held.delete(id);
    answer();
  };
  /** The ids of the responses written so far, in order. */
  const answeredIds = (): unknown[] =>
    received
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: unknown }).id);
  let runDone = false;
  const done = transport.run(dispatcher).then(() => {
    runDone = true;
  });
  return {
    input,
    output,
    transport,
    dispatcher,
    dispatched,
    held,
    release,
    received,
    answeredIds,
    done,
    isDone: () => runDone,
    notifications: () => notifications,
  };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('StdioTransport flow control', () => {
  it('pauses input once maxPendingRequests are unanswered and resumes only when half of them are', async () => {
    const h = harness({ maxPendingRequests: 8 });
    h.input.write(requestLines(1, 9));
    await turns(2);
    expect(h.dispatched).toEqual(range(1, 9));
    expect(h.dispatcher.pending).toBe(8);
    expect(h.input.isPaused()).toBe(true);

    // Lines written now wait in the input: none is dispatched however long we wait.
    h.input.write(requestLines(9, 12));
    await turns(5);
    expect(h.dispatched).toEqual(range(1, 9));
    expect(h.input.isPaused()).toBe(true);

    // Answers one by one: still paused at 7, 6, 5 (= N/2 + 1) unanswered.
    for (const id of [1, 2, 3]) {
      h.release(id);
      await turns(2);
      expect(h.answeredIds()).toEqual(range(1, id + 1));
      expect(h.input.isPaused()).toBe(true);
      expect(h.dispatched).toHaveLength(8);
    }
    expect(h.dispatcher.pending).toBe(5);

    // The answer that leaves N/2 unanswered resumes input: the three waiting lines are dispatched.
    h.release(4);
    await turns(2);
    expect(h.dispatched).toEqual(range(1, 12));
    expect(h.dispatcher.pending).toBe(7);
    expect(h.input.isPaused()).toBe(false);

    for (const id of range(5, 12)) h.release(id);
    h.input.end();
    await h.done;
    await h.dispatcher.idle();
    await h.transport.flush();
    expect(h.answeredIds()).toEqual(range(1, 12));
  });

  it('resumes input when every pending request is cancelled, though none is ever answered (idle)', async () => {
    const h = harness({ maxPendingRequests: 4 });
    h.input.write(requestLines(1, 5));
    await turns(2);
    expect(h.input.isPaused()).toBe(true);
    h.input.write(requestLines(5, 7, 'echo'));
    await turns(3);
    expect(h.dispatched).toEqual(range(1, 5));

    for (const id of range(1, 5)) h.dispatcher.cancel(id);
    await turns(3);
    expect(h.dispatcher.pending).toBe(0);
    expect(h.dispatched).toEqual(range(1, 7));
    expect(h.input.isPaused()).toBe(false);

    h.input.end();
    await h.done;
    await h.dispatcher.idle();
    await h.transport.flush();
    expect(h.answeredIds()).toEqual([5, 6]); // the cancelled ones never are
  });

  it('resumes input once cancellations leave half the limit pending, when the dispatcher reports requests that end unanswered', async () => {
    const h = harness({ maxPendingRequests: 8, wireSettled: true });
    h.input.write(requestLines(1, 9));
    await turns(2);
    expect(h.input.isPaused()).toBe(true);
    h.input.write(requestLines(20, 22, 'echo'));
    await turns(3);
    expect(h.dispatched).toEqual(range(1, 9));
    // Five cancelled, none answered: 3 pending, at most half of 8, so input resumes without any answer.
    for (const id of range(1, 6)) h.dispatcher.cancel(id);
    await turns(3);
    expect(h.dispatcher.pending).toBe(3);
    expect(h.dispatched).toEqual([...range(1, 9), 20, 21]);
    expect(h.input.isPaused()).toBe(false);
    for (const id of range(6, 9)) h.release(id);
    h.input.end();
    await h.done;
    await h.dispatcher.idle();
    await h.transport.flush();
    expect([...h.answeredIds()].sort((a, b) => Number(a) - Number(b))).toEqual([6, 7, 8, 20, 21]);
  });

  it('pauses input while maxUnreadBytes wait for a reader that does not read, until it has read everything', async () => {
    const received: string[] = [];
    const reads: Array<() => void> = [];
    const output = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk.toString());
        reads.push(done); // the reader takes it when the test says so
      },
    });
    const h = harness({ maxUnreadBytes: 500, maxPendingRequests: 1000, output });
    const echo = (id: number, pad = ''): string => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: { id, pad } })}\n`;
    const answerBytes = (id: number, pad = ''): number => Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id, result: { id, pad } })) + 1;
    const big = 'x'.repeat(400);
    expect(answerBytes(1, big)).toBeLessThan(500);
    expect(answerBytes(1, big) + answerBytes(2)).toBeGreaterThanOrEqual(500);

    // One big answer is written and not read: under the limit, input flows.
    h.input.write(echo(1, big));
    await turns(3);
    expect(reads).toHaveLength(1);
    expect(h.input.isPaused()).toBe(false);

    // A second answer waits behind it: past the limit, input pauses, and lines written now are not dispatched.
    h.input.write(echo(2));
    await turns(3);
    expect(h.dispatched).toEqual([1, 2]);
    expect(h.input.isPaused()).toBe(true);
    h.input.write(echo(3) + echo(4));
    await turns(3);
    expect(h.dispatched).toEqual([1, 2]);

    // The reader takes the first write; the second (alone under the limit) is written and not read yet: still paused.
    reads.shift()!();
    await turns(3);
    expect(reads).toHaveLength(1);
    expect(h.input.isPaused()).toBe(true);
    expect(h.dispatched).toEqual([1, 2]);

    // It takes that too: everything is read, input resumes and the waiting lines are dispatched.
    reads.shift()!();
    await turns(3);
    expect(h.dispatched).toEqual([1, 2, 3, 4]);
    expect(h.input.isPaused()).toBe(false);

    h.input.end();
    await h.done;
    await h.dispatcher.idle();
    const flushed = h.transport.flush();
    for (let i = 0; i < 20 && reads.length > 0; i++) {
      while (reads.length > 0) reads.shift()!();
      await turns(2);
    }
    await flushed;
    const ids = received
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: number }).id);
    expect(ids).toEqual([1, 2, 3, 4]);
  });

  it('ends a turn once its dispatching has taken the time budget, however few messages that was, and answers each once', async () => {
    const h = harness({ maxPendingRequests: 100_000, turnBudgetMs: 10 });
    h.input.write(requestLines(0, 100, 'slow'));
    await microtasks();
    // 2 ms each: the sixth at the latest passes 10 ms, and the turn ends after it.
    expect(h.dispatched.length).toBeGreaterThanOrEqual(1);
    expect(h.dispatched.length).toBeLessThanOrEqual(6);
    expect(h.input.isPaused()).toBe(true);
    for (let i = 0; i < 200 && h.dispatched.length < 100; i++) await turn();
    expect(h.dispatched).toEqual(range(0, 100));
    h.input.end();
    await h.done;
    await h.dispatcher.idle();
    await h.transport.flush();
    expect(h.answeredIds()).toEqual(range(0, 100));
  });

  it('ends a turn before a request, never between a request and the notifications right behind it (a cancel stays with its call)', async () => {
    const h = harness({ maxPendingRequests: 100_000, turnBudgetMs: 1 });
    const notification = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0 } })}\n`;
    h.input.write(requestLine(0, 'slow') + notification + notification + requestLine(1, 'slow') + notification);
    await microtasks();
    expect(h.dispatched).toEqual([0]);
    expect(h.notifications()).toBe(2);
    await turn();
    expect(h.dispatched).toEqual([0, 1]);
    expect(h.notifications()).toBe(3);
    h.input.end();
    await h.done;
  });

  it('dispatches at most 256 messages per turn of the event loop, and answers each of 1000 once', async () => {
    const h = harness({ maxPendingRequests: 100_000 });
    h.input.write(requestLines(0, 1000, 'echo'));
    await microtasks();
    expect(h.dispatched).toHaveLength(256);
    expect(h.input.isPaused()).toBe(true);
    const perTurn: number[] = [h.dispatched.length];
    for (let i = 0; i < 20 && h.dispatched.length < 1000; i++) {
      const before = h.dispatched.length;
      await turn();
      perTurn.push(h.dispatched.length - before);
    }
    expect(h.dispatched).toEqual(range(0, 1000));
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(256);
    expect(perTurn.length).toBeGreaterThanOrEqual(4);
    await turns(2);
    expect(h.input.isPaused()).toBe(false);
    h.input.end();
    await h.done;
    await h.dispatcher.idle();
    await h.transport.flush();
    expect(h.answeredIds()).toEqual(range(0, 1000));
  });

  it('at EOF while held for pending requests, dispatches and answers every line received and resolves run() before any is answered', async () => {
    const h = harness({ maxPendingRequests: 8 });
    // 300 lines and EOF at once: 256 are dispatched in the first turn, which holds input with 44 left (the last line has no newline).
    h.input.end(requestLines(0, 300).trimEnd());
    await microtasks();
    expect(h.dispatched).toHaveLength(300);
    await turns(2);
    expect(h.isDone()).toBe(true);
    expect(h.dispatcher.pending).toBe(300);
    for (const id of range(0, 300)) h.release(id);
    await h.dispatcher.idle();
    await h.transport.flush();
    expect(h.answeredIds()).toEqual(range(0, 300));
  });

  it('sees an EOF that came behind held input once the hold is released: every line answered, run() resolved', async () => {
    const h = harness({ maxPendingRequests: 8 });
    h.input.write(requestLines(1, 9));
    await turns(2);
    expect(h.input.isPaused()).toBe(true);
    h.input.end(requestLines(9, 13).trimEnd()); // in the pipe, not read; the last line ends at EOF
    await turns(5);
    expect(h.dispatched).toEqual(range(1, 9));
    expect(h.isDone()).toBe(false);
    for (const id of range(1, 5)) h.release(id);
    await turns(3);
    expect(h.dispatched).toEqual(range(1, 13));
    expect(h.isDone()).toBe(true);
    for (const id of range(5, 13)) h.release(id);
    await h.dispatcher.idle();
    await h.transport.flush();
    expect(h.answeredIds()).toEqual(range(1, 13));
  });

  it("on endInput (SIGTERM), while held for pending requests, dispatches every line received, those left in the stream's buffer too", async () => {
    const h = harness({ maxPendingRequests: 8 });
    // 300 lines in one chunk: 256 dispatched, 44 read and waiting; then more that stay in the input's buffer.
    h.input.write(requestLines(0, 300));
    await turns(3);
    expect(h.dispatched).toHaveLength(256);
    expect(h.input.isPaused()).toBe(true);
    h.input.write(requestLines(300, 310));
    await turns(2);
    expect(h.dispatched).toHaveLength(256);

    // serve's SIGTERM handler.
    h.transport.endInput!();
    await turns(2);
    expect(h.isDone()).toBe(true);
    expect(h.dispatched).toEqual(range(0, 310));
    for (const id of range(0, 310)) h.release(id);
    await h.dispatcher.idle();
    await turns(5);
    await h.transport.flush();
    expect(h.answeredIds()).toEqual(range(0, 310));
    expect(h.input.readableLength).toBe(0);
    // After the end, nothing more is read.
    h.input.write(requestLines(400, 402));
    await turns(3);
    expect(h.dispatched).toEqual(range(0, 310));
  });

  it('at an end while held, answers each waiting line once even when answering one at once releases the hold (found writing these tests)', async () => {
    const h = harness({ maxPendingRequests: 8 });
    // 8 held requests and 248 notifications fill the first turn; a line that is not JSON and an echo request wait.
    const filler = `${JSON.stringify({ jsonrpc: '2.0', method: 'filler' })}\n`;
    h.input.write(`${requestLines(1, 9)}${filler.repeat(248)}not json\n${requestLine(100, 'echo')}`);
    await turns(3);
    expect(h.dispatched).toEqual(range(1, 9));
    expect(h.input.isPaused()).toBe(true);
    // Cancelled, five end unanswered: 3 pending, no answer sent, so input stays held (see the report on partial cancellation).
    for (const id of range(1, 6)) h.dispatcher.cancel(id);
    await turns(2);
    expect(h.dispatcher.pending).toBe(3);
    // The end SIGTERM stands in for: the parse error is answered synchronously, and that send releases the hold.
    h.input.pause();
    h.input.emit('end');
    await h.done;
    for (const id of range(6, 9)) h.release(id);
    await h.dispatcher.idle();
    await turns(2);
    await h.transport.flush();
    const answers = h.received
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } });
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) },
      { jsonrpc: '2.0', id: 100, result: { id: 100 } },
      ...range(6, 9).map((id) => ({ jsonrpc: '2.0', id, result: { id } })),
    ]);
  });
});
