// The official v2 SDK client (@modelcontextprotocol/client) connected to the
// built server over stdio or Streamable HTTP, with a log of the wire beside it. The log is how
// the tests see what the server really sent: the SDK lifts the reserved
// io.modelcontextprotocol/* keys out of what it hands to handlers, reads
// -32002 and -32602 alike as ResourceNotFoundError, and drops progress that
// it dispatches after the response.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import {
  Client,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
  StreamableHTTPClientTransport,
  SUBSCRIPTION_ID_META_KEY,
  type Transport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { killedWithParent } from '../helpers/privateMounts.mjs';
import { projectRoot } from '../helpers/system.js';

/** Every message between the client and the server, in the order each side handled it. */
export class Wire {
  readonly sent: JSONRPCMessage[] = [];
  readonly received: JSONRPCMessage[] = [];
  /** Errors the SDK reported out of band (Client.onerror): late progress, unknown response ids. */
  readonly errors: Error[] = [];
  /** Called with each message once the transport has written it. */
  afterSend: ((message: JSONRPCMessage) => void) | undefined = undefined;

  constructor(transport: Transport) {
    // Set before connect: Protocol.connect calls a handler it finds there before its own.
    transport.onmessage = (message) => void this.received.push(message);
    const send = transport.send.bind(transport);
    transport.send = async (message: JSONRPCMessage) => {
      this.sent.push(message);
      const sending = send(message);
      this.afterSend?.(message);
      return sending;
    };
  }

  /** The requests the client sent for `method`, from position `from` of `sent` on. */
  requests(method: string, from = 0): JSONRPCRequest[] {
    return this.sent.slice(from).filter((message): message is JSONRPCRequest => isJSONRPCRequest(message) && message.method === method);
  }

  /** The notifications the server sent for `method`, from position `from` of `received` on. */
  notifications(method: string, from = 0): JSONRPCNotification[] {
    return this.received.slice(from).filter((message): message is JSONRPCNotification => isJSONRPCNotification(message) && message.method === method);
  }

  /** The server's answer to request `id`, if it has sent one. */
  responseTo(id: RequestId): JSONRPCResultResponse | JSONRPCErrorResponse | undefined {
    return this.received.find(
      (message): message is JSONRPCResultResponse | JSONRPCErrorResponse =>
        (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id === id,
    );
  }

  /** What the server sent that belongs to subscription `id`: its notifications, and any answer to the listen request. */
  ofSubscription(id: RequestId, from = 0): JSONRPCMessage[] {
    return this.received.slice(from).filter((message) => subscriptionIdOf(message) === id || ('id' in message && message.id === id));
  }
}

/** `_meta["io.modelcontextprotocol/subscriptionId"]` of a message's params or result (subscriptions.mdx, "Receiving Notifications"). */
function subscriptionIdOf(message: JSONRPCMessage): unknown {
  const body = 'params' in message ? message.params : 'result' in message ? message.result : undefined;
  const meta = (body as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[SUBSCRIPTION_ID_META_KEY];
}

/** A result's caching hints (server/utilities/caching.mdx), which the SDK's result types leave out. */
export function cacheHintsOf(result: object): { ttlMs: unknown; cacheScope: unknown } {
  const { ttlMs, cacheScope } = result as Record<string, unknown>;
  return { ttlMs, cacheScope };
}

export interface Connection {
  readonly client: Client;
  readonly wire: Wire;
}

export type TransportKind = 'stdio' | 'http';

/** `diskprobe serve --http 127.0.0.1:0`, and the URL it says it serves, once it says so. */
export async function startHttpServer(): Promise<{ url: URL; stop: () => Promise<void> }> {
  const [command, ...args] = killedWithParent([process.execPath, join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0']);
  const child = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<URL>((resolve, reject) => {
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving MCP on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    void exited.then(() => reject(new Error(`the server exited before listening:\n${stderr}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Starts the built server (stdio: spawned by the transport; http: serve --http) and connects the SDK client to it, negotiating as `mode` says. */
export async function connect(mode: VersionNegotiationMode, kind: TransportKind = 'stdio'): Promise<Connection> {
  let transport: Transport;
  let stop: (() => Promise<void>) | undefined;
  if (kind === 'http') {
    const server = await startHttpServer();
    transport = new StreamableHTTPClientTransport(server.url);
    stop = server.stop;
  } else {
    const stdio = new StdioClientTransport({ command: process.execPath, args: [join(projectRoot, 'dist/bin/diskprobe.js')], stderr: 'pipe' });
    // Read, so that the server never blocks on a full stderr pipe; its event lines are not what these tests check.
    stdio.stderr?.on('data', () => {});
    transport = stdio;
  }
  const wire = new Wire(transport);
  const client = new Client({ name: 'interop-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  client.onerror = (error) => void wire.errors.push(error);
  if (stop !== undefined) {
    const close = client.close.bind(client);
    client.close = async () => {
      await close();
      await stop();
    };
  }
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, wire };
}
