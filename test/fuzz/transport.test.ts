// The stdio transport with in-memory streams, fuzzed: input cut into any
// chunks reaches the dispatcher as the framing model says, and output written
// in bursts into a slow, small-buffered reader comes out as exactly the
// messages sent, one complete line each, in order.
import { Readable, Writable } from 'node:stream';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../../dist/jsonrpc/dispatcher.js';
import { RpcError } from '../../dist/jsonrpc/errors.js';
import { StdioTransport, type TransportOptions } from '../../dist/transport/stdio/stdioTransport.js';
import { modelFrames, Owed } from './model.js';
import { compare, Said } from './said.js';
import { check } from './seed.js';

const bytes = fc.array(
  fc.oneof(
    fc.constantFrom('\n', '\r\n', '{"a":1}', '磁盘', '😀', ' ').map((text) => Buffer.from(text)),
    fc.uint8Array({ maxLength: 8 }).map((array) => Buffer.from(array)),
  ),
  { maxLength: 40 },
);

/** What the transport hands the dispatcher, in the model's terms. */
function recorder() {
  const frames: unknown[] = [];
  const dispatcher = {
    pending: 0,
    idle: () => Promise.resolve(),
    handleLine: (text: string) => void frames.push({ kind: 'line', text }),
    handleOversized: (size: number) => void frames.push({ kind: 'oversized', bytes: size }),
    handleBadEncoding: () => void frames.push({ kind: 'encoding' }),
  } as unknown as Dispatcher;
  return { frames, dispatcher };
}

describe('StdioTransport under fuzzing', () => {
  it('hands the dispatcher the frames the model says, however stdin is cut', async () => {
    await check(
      fc.asyncProperty(
        bytes,
        fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 24 }),
        async (pieces, sizes, cap) => {
          const data = Buffer.concat(pieces);
          const chunks: Buffer[] = [];
          for (let at = 0, i = 0; at < data.length; i++) {
            const size = sizes[i % sizes.length]!;
            chunks.push(data.subarray(at, at + size));
            at += size;
          }
          const { frames, dispatcher } = recorder();
          const transport = new StdioTransport({
            input: Readable.from(chunks, { objectMode: false }),
            output: new Writable({ write: (_c, _e, done) => done() }),
            maxMessageBytes: cap,
          });
          await transport.run(dispatcher);
          expect(frames).toEqual(modelFrames(data, cap));
        },
      ),
      2_000,
      21,
    );
  });

  it('writes every message sent, once, whole and in order, through any backpressure', async () => {
    const burst = fc.record({ messages: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }), flush: fc.boolean(), pause: fc.nat(2) });
    await check(
      fc.asyncProperty(
        fc.array(burst, { maxLength: 12 }),
        fc.integer({ min: 1, max: 256 }),
        fc.array(fc.nat(2), { minLength: 1, maxLength: 8 }),
        async (bursts, highWaterMark, delays) => {
          const written: Buffer[] = [];
          let writes = 0;
          // A reader that takes its time: now, after this turn, or after a timer.
          const output = new Writable({
            highWaterMark,
            write(chunk: Buffer, _encoding, done) {
              written.push(Buffer.from(chunk));
              const delay = delays[writes++ % delays.length]!;
              if (delay === 0) done();
              else if (delay === 1) setImmediate(done);
              else setTimeout(done, 1);
            },
          });
          const transport = new StdioTransport({ input: Readable.from([]), output, maxMessageBytes: 1024 });
          const expected: string[] = [];
          for (const { messages, flush, pause } of bursts) {
            for (const message of messages) {
              transport.send(message);
              expected.push(`${JSON.stringify(message)}\n`);
            }
            if (flush) await transport.flush();
            if (pause === 1) await new Promise((resolve) => setImmediate(resolve));
            if (pause === 2) await new Promise((resolve) => setTimeout(resolve, 1));
          }
          await transport.flush();
          await new Promise<void>((resolve) => output.end(resolve));
          expect(Buffer.concat(written).toString('utf8')).toBe(expected.join(''));
        },
      ),
      500,
      22,
    );
  });

  it('answers every request once and ends at EOF, however small the limits that pause input and however slow the reader', async () => {
    const message = fc.oneof(
      { weight: 6, arbitrary: fc.constant('request') },
      { weight: 1, arbitrary: fc.constantFrom('{"jsonrpc":"2.0","method":"note"}', '{"jsonrpc":"2.0","id":null,"method":"x"}', 'garbage', '[]', '') },
    );
    await check(
      fc.asyncProperty(
        fc.array(message, { maxLength: 120 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(2), { minLength: 1, maxLength: 6 }),
        fc.record({
          maxPendingRequests: fc.integer({ min: 1, max: 8 }),
          maxUnreadBytes: fc.integer({ min: 1, max: 512 }),
          highWaterMark: fc.integer({ min: 1, max: 256 }),
        }),
        async (messages, sizes, delays, limits) => {
          const later = (n: number): Promise<void> =>
            new Promise((resolve) =>
              delays[n % delays.length] === 0 ? queueMicrotask(resolve) : delays[n % delays.length] === 1 ? setImmediate(resolve) : setTimeout(resolve, 1),
            );
          let n = 0;
          const input = Buffer.from(messages.map((kind, i) => `${kind === 'request' ? `{"jsonrpc":"2.0","id":${i},"method":"slow"}` : kind}\n`).join(''));
          const chunks: Buffer[] = [];
          for (let at = 0, i = 0; at < input.length; i++) {
            const size = sizes[i % sizes.length]!;
            chunks.push(input.subarray(at, at + size));
            at += size;
          }
          const written: Buffer[] = [];
          const output = new Writable({
            highWaterMark: limits.highWaterMark,
            write(chunk: Buffer, _encoding, done) {
              written.push(Buffer.from(chunk));
              void later(n++).then(() => done());
            },
          });
          const options: TransportOptions = { input: Readable.from(chunks, { objectMode: false }), output, maxMessageBytes: 1024, ...limits };
          const transport = new StdioTransport(options);
          const dispatcher = new Dispatcher(
            {
              request: async (method) => {
                await later(n++);
                if (method !== 'slow') throw RpcError.methodNotFound(method);
                return {};
              },
              notification: () => {},
              acceptsBatch: () => false,
              internalError: () => {},
            },
            (response) => transport.send(response),
          );
          // A hold never released would leave input paused: EOF never comes, and run() never resolves.
          let timer: NodeJS.Timeout | undefined;
          const ended = await Promise.race([
            transport.run(dispatcher).then(() => true),
            new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
          ]);
          clearTimeout(timer);
          expect(ended, 'run() resolves at EOF').toBe(true);
          await dispatcher.idle();
          await transport.flush();
          await new Promise<void>((resolve) => output.end(resolve));
          const owed = new Owed();
          for (const frame of modelFrames(input, 1024)) owed.frame(frame, false);
          const said = new Said();
          const text = Buffer.concat(written).toString('utf8');
          for (const line of text.split('\n').slice(0, -1)) said.line(JSON.parse(line), line, false);
          expect(text.endsWith('\n') || text === '').toBe(true);
          expect(compare(owed, said), `output: ${text.slice(0, 500)}`).toEqual([]);
        },
      ),
      300,
      23,
    );
  });
});
