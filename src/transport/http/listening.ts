// Starting and stopping a node:http listener, for the MCP endpoint and the
// /metrics server alike.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The answers each listener has not finished writing: a stop must not leave their keep-alive connections open. */
const unfinished = new WeakMap<Server, Set<ServerResponse>>();

/** Listens on host:port; resolves with the address, or rejects with the reason it cannot (EADDRINUSE, EACCES). */
export function listenOn(server: Server, host: string, port: number): Promise<AddressInfo> {
  const answers = new Set<ServerResponse>();
  unfinished.set(server, answers);
  server.on('request', (_request, response: ServerResponse) => {
    answers.add(response);
    response.on('close', () => answers.delete(response));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Stops accepting connections and closes the idle ones; resolves once the
 * last open one has closed. A connection busy with an answer closes as soon as
 * that answer is written, not keepAliveTimeout later: the answer says
 * `Connection: close` when its head is still to come, and the connection is
 * closed once it is idle otherwise.
 */
export function stopAccepting(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  for (const response of unfinished.get(server) ?? []) {
    if (!response.headersSent) response.shouldKeepAlive = false;
    // After node:http's own 'finish' listener, which marks the connection idle.
    response.on('finish', () => setImmediate(() => server.closeIdleConnections()));
  }
  return closed;
}
