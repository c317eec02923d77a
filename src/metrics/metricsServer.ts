// `diskprobe metrics --listen`: GET /metrics, small and hardened. node:http
// alone; loopback by default; the Host, Origin and bearer-token checks of the
// MCP endpoint (src/transport/http/access.ts); header and request timeouts; at most
// MAX_SCRAPES scrapes at once (a dead mount fails fast, so scrapes never
// pile up threads); every other path is 404. A scrape's budget is
// Prometheus's own scrape timeout (X-Prometheus-Scrape-Timeout-Seconds) less a
// margin, or --timeout, whichever is less.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { type AccessPolicy, checkAccess } from '../transport/http/access.js';
import { serveMetadata } from '../transport/http/auth/protectedResource.js';
import type { ResourceServer } from '../transport/http/auth/resourceServer.js';
import { listenOn, stopAccepting } from '../transport/http/listening.js';
import { CONTENT_TYPES, type Family, negotiate, render } from './exposition.js';

/** Scrapes answered at once; more get 503 (Prometheus scrapes a target once an interval). */
const MAX_SCRAPES = 4;

export interface MetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly access: AccessPolicy;
  /** OAuth: a scrape needs an access token it accepts (Prometheus's `oauth2` scrape setting gets one). */
  readonly auth?: ResourceServer | undefined;
  /** Milliseconds a scrape may take when Prometheus does not say (--timeout). */
  readonly timeoutMs: number;
  readonly collect: (budgetMs: number) => Promise<Family[]>;
  readonly log: (line: string) => void;
}

/**
 * The budget for a scrape: Prometheus's timeout less a tenth (at least 100 ms)
 * for the answer's way back, capped by `fallbackMs`; never below 50 ms.
 * @internal exported for the tests
 */
export function scrapeBudget(header: string | string[] | undefined, fallbackMs: number): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  if (!(seconds > 0)) return fallbackMs;
  const ms = seconds * 1000;
  return Math.max(50, Math.min(fallbackMs, ms - Math.max(100, ms / 10)));
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export class MetricsServer {
  private readonly server: Server;
  private scraping = 0;

  constructor(private readonly options: MetricsServerOptions) {
    this.server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1000 }, (req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 5_000;
    this.server.maxConnections = 64;
  }

  listen(): Promise<AddressInfo> {
    return listenOn(this.server, this.options.host, this.options.port);
  }

  /** Answers the scrapes in flight, then closes every connection. */
  stop(): Promise<void> {
    return stopAccepting(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    const { auth } = this.options;
    if (auth !== undefined && serveMetadata(req, res, path, '/metrics', () => auth.describe())) return;
    if (path !== '/metrics') return plain(res, 404, `Not found: the metrics are at /metrics\n`);
    const denied = checkAccess(req, this.options.access);
    if (denied !== undefined) return plain(res, denied.status, `${denied.detail}\n`, denied.headers);
    if (auth !== undefined) {
      let verdict: Awaited<ReturnType<ResourceServer['authorize']>>;
      try {
        verdict = await auth.authorize(req);
      } catch (error) {
        this.options.log(`diskprobe: internal error while authorizing: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        return plain(res, 500, "the request could not be authorized; the reason is on the server's stderr\n");
      }
      if (!verdict.ok) return plain(res, verdict.status, `${verdict.detail}\n`, verdict.headers);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, `${req.method} is not served: GET /metrics\n`, { allow: 'GET, HEAD' });
    if (this.scraping >= MAX_SCRAPES)
      return plain(res, 503, `${this.scraping} scrapes are in progress, the most answered at once: retry shortly\n`, { 'retry-after': '1' });
    this.scraping++;
    try {
      const families = await this.options.collect(scrapeBudget(req.headers['x-prometheus-scrape-timeout-seconds'], this.options.timeoutMs));
      const format = negotiate(req.headers.accept);
      const body = render(families, format);
      res.writeHead(200, { 'content-type': CONTENT_TYPES[format], 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      this.options.log(`diskprobe: the scrape failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) plain(res, 500, "the scrape failed; the reason is on the server's stderr\n");
    } finally {
      this.scraping--;
    }
  }
}
