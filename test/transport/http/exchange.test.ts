// One HTTP answer (src/transport/http/exchange.ts) over a real socket pair: JSON until a
// notification comes first, then SSE; and a client that stops reading loses
// its stream once MAX_BUFFERED bytes wait for it, rather than growing the
// server's memory (backpressure on SSE streams).
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { Exchange, MAX_BUFFERED } from '../../../dist/transport/http/exchange.js';
import { legacyStatus, modernStatus } from '../../../dist/transport/http/httpErrors.js';

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server whose one request is handed to `use` as an Exchange; resolves with its port. */
async function serveOnce(use: (res: ServerResponse) => void): Promise<number> {
  const server = createServer((_req, res) => use(res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function get(port: number): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('Exchange', () => {
  it('answers JSON with the era’s status when no notification comes first', async () => {
    const port = await serveOnce((res) =>
      new Exchange(res, modernStatus).respond({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }),
    );
    expect(await get(port)).toEqual({
      status: 404,
      type: 'application/json',
      body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
    });
    const legacy = await serveOnce((res) =>
      new Exchange(res, legacyStatus).respond({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }),
    );
    expect((await get(legacy)).status).toBe(200);
  });

  it('turns into an SSE stream when a notification comes first, and ends with the response', async () => {
    const port = await serveOnce((res) => {
      const exchange = new Exchange(res, modernStatus);
      exchange.notify({ method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } });
      exchange.respond({ jsonrpc: '2.0', id: 2, result: {} });
      exchange.notify({ method: 'notifications/progress', params: { progressToken: 'p', progress: 2 } }); // after the end: dropped
    });
    expect(await get(port)).toEqual({
      status: 200,
      type: 'text/event-stream',
      body: 'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}\n\ndata: {"jsonrpc":"2.0","id":2,"result":{}}\n\n',
    });
  });

  it(`cuts a stream whose client stops reading once ${MAX_BUFFERED} bytes wait, and says it was abandoned`, async () => {
    let abandoned = false;
    let exchange: Exchange | undefined;
    const port = await serveOnce((res) => {
      exchange = new Exchange(res, modernStatus);
      exchange.onAbandoned = () => {
        abandoned = true;
      };
      exchange.startStream();
    });
    // A client that reads the headers, then nothing more: the socket's buffers fill, then the server's.
    const paused = await new Promise<import('node:http').IncomingMessage>((resolve) => request({ host: '127.0.0.1', port, agent: false }, resolve).end());
    paused.pause();
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 200 && !exchange!.done; i++) {
      exchange!.notify({ method: 'notifications/message', params: { level: 'info', data: big } });
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(exchange!.done).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(abandoned).toBe(true);
    paused.destroy();
  });
});
