// `diskprobe serve --http [host:]port`: the MCP server over Streamable HTTP.
// Where the layers meet for HTTP: transport → JSON-RPC dispatcher → MCP
// server → tools → probe. One MCP server answers every 2026-07-28 request
// (stateless), and each 2025-era session gets one of its own.
import { readFileSync } from 'node:fs';
import type { OutgoingNotification } from '../../jsonrpc/dispatcher.js';
import type { RequestId } from '../../jsonrpc/messages.js';
import { claimsModernEra } from '../../mcp/protocol/eras/requestMeta.js';
import { metaOf } from '../../mcp/protocol/requestScope.js';
import { MODERN_VERSIONS } from '../../mcp/protocol/versions.js';
import { McpServer } from '../../mcp/server.js';
import type { ResourceServer } from '../../transport/http/auth/resourceServer.js';
import { HttpTransport } from '../../transport/http/httpTransport.js';
import { isLoopbackHost } from '../../transport/http/loopback.js';
import { announce, protect, urlHost } from '../oauth.js';
import { stopSignal } from '../stopSignals.js';
import type { HttpOptions, ServeOptions } from './serveCommandLine.js';
import { type ServerSettings, serverSettings } from './serverSettings.js';

/** The bearer token: DISKPROBE_TOKEN, or the first line of --token-file. Throws a message for the user. */
function readToken(http: HttpOptions): string | undefined {
  let token: string | undefined;
  if (http.tokenFile !== undefined) {
    try {
      token = readFileSync(http.tokenFile, 'utf8').split(/\r?\n/)[0]!.trim();
    } catch (error) {
      throw new Error(`cannot read --token-file ${http.tokenFile}: ${(error as Error).message}`);
    }
    if (token === '') throw new Error(`--token-file ${http.tokenFile} is empty: put the token on its first line`);
  } else if (process.env.DISKPROBE_TOKEN) {
    token = process.env.DISKPROBE_TOKEN;
  }
  if (token !== undefined && token.length < 16) throw new Error('the bearer token is shorter than 16 characters: use a long random one (openssl rand -hex 32)');
  return token;
}

/** A PEM file for TLS; throws a message naming the flag and the file. */
function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Serves until SIGTERM or SIGINT, then answers what is in flight and resolves with the exit status. */
export async function serveHttp(options: ServeOptions, http: HttpOptions): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`diskprobe: ${message}\n`);
    return 2;
  };
  let settings: ServerSettings;
  let token: string | undefined;
  let tls: { cert: Buffer; key: Buffer } | undefined;
  let auth: ResourceServer | undefined;
  try {
    settings = serverSettings(options);
    token = readToken(http);
    if (http.tls !== undefined) tls = { cert: readPem(http.tls.cert, '--tls-cert'), key: readPem(http.tls.key, '--tls-key') };
    if (http.auth !== undefined) auth = await protect(http.auth, token);
  } catch (error) {
    return fail((error as Error).message);
  }
  const loopback = isLoopbackHost(http.host);
  if (!loopback && token === undefined && auth === undefined) {
    return fail(
      `--http ${http.host}:${http.port} is not a loopback address: anyone who can reach it could ask your disks. Give --auth-issuer <url> (OAuth), or --token-file <path> (or DISKPROBE_TOKEN), or listen on 127.0.0.1`,
    );
  }
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const serverOptions = (notify: (notification: OutgoingNotification, related?: RequestId) => void) => ({
    ...settings,
    notify,
    reportBug: log,
  });
  // 2026-07-28 requests bring their own channel (RequestContext.notify); nothing else is sent.
  const modern = new McpServer({ ...serverOptions(() => {}), cancel: () => {}, logLine: log });
  const transport = new HttpTransport({
    host: http.host,
    port: http.port,
    tls,
    access: { loopback, token },
    auth,
    maxMessageBytes: options.maxMessageBytes,
    limits: { maxConnections: http.maxConnections, maxInFlight: http.maxRequests, headersTimeoutMs: http.headerTimeoutMs },
    sessions: { maxSessions: http.maxSessions, idleMs: http.sessionIdleMs },
    modern,
    isModern: (params) => claimsModernEra(metaOf(params)),
    modernVersions: MODERN_VERSIONS,
    openSession: (notify, cancel) => {
      const server = new McpServer({ ...serverOptions(notify), cancel });
      return {
        handlers: server,
        version: () => (server.legacy.state === 'awaitingInitialize' ? undefined : server.legacy.version),
        close: () => {
          server.shutdown();
          server.close();
        },
      };
    },
    log,
  });
  let address: { address: string; port: number };
  try {
    address = await transport.listen();
  } catch (error) {
    return fail(`cannot listen on ${http.host}:${http.port}: ${(error as Error).message}`);
  }
  const shown = urlHost(address.address);
  const scheme = tls ? 'https' : 'http';
  log(`diskprobe: serving MCP on ${scheme}://${shown}:${address.port}/mcp${token ? ' (bearer token required)' : ''}`);
  if (auth !== undefined) announce(auth, `${scheme}://${urlHost(http.host)}:${address.port}/mcp`, log);
  // At once if the signal came while starting; the signals stay handled to the end (stopSignals.ts).
  await stopSignal();
  await transport.stop();
  modern.close();
  return 0;
}
