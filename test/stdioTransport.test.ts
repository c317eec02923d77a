// The transport with in-memory streams: order, backpressure, EOF, a vanished reader.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../dist/jsonrpc/dispatcher.js';
import { StdioTransport } from '../dist/stdioTransport.js';

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
