// Starting and stopping a node:http listener, for the MCP endpoint and the
// /metrics server alike.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on host:port; resolves with the address, or rejects with the reason it cannot (EADDRINUSE, EACCES). */
export function listenOn(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Stops accepting connections and closes the idle ones; resolves once the last open one has closed. */
export function stopAccepting(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}
