// The official v2 SDK client (@modelcontextprotocol/client) connected to the
// built server over stdio, with a log of the wire beside it. The log is how
// the tests see what the server really sent: the SDK lifts the reserved
// io.modelcontextprotocol/* keys out of what it hands to handlers, reads
// -32002 and -32602 alike as ResourceNotFoundError, and drops progress that
// it dispatches after the response.
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
  SUBSCRIPTION_ID_META_KEY,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { projectRoot } from '../helpers/system.js';

/** Every message between the client and the server, in the order each side handled it. */
export class Wire {
  readonly sent: JSONRPCMessage[] = [];
  readonly received: JSONRPCMessage[] = [];
  /** Errors the SDK reported out of band (Client.onerror): late progress, unknown response ids. */
  readonly errors: Error[] = [];
  /** Called with each message once the transport has written it. */
  afterSend: ((message: JSONRPCMessage) => void) | undefined = undefined;

  constructor(transport: StdioClientTransport) {
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

/** Spawns `node dist/bin/diskprobe.js` and connects the SDK client to it, negotiating as `mode` says. */
export async function connect(mode: VersionNegotiationMode): Promise<Connection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(projectRoot, 'dist/bin/diskprobe.js')], stderr: 'pipe' });
  // Read, so that the server never blocks on a full stderr pipe; its event lines are not what these tests check.
  transport.stderr?.on('data', () => {});
  const wire = new Wire(transport);
  const client = new Client({ name: 'interop-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  client.onerror = (error) => void wire.errors.push(error);
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, wire };
}
