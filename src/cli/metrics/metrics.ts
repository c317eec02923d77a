// `diskprobe metrics --listen`: node_exporter's filesystem metrics, exact and
// never hanging, served on GET /metrics. Where the metrics server meets the
// probe; printed once (no --listen), they come from metricsOnce.ts.
import { readFileSync } from 'node:fs';
import { collectFilesystems } from '../../metrics/filesystemMetrics.js';
import { MetricsServer } from '../../metrics/metricsServer.js';
import type { ResourceServer } from '../../transport/http/auth/resourceServer.js';
import { isLoopbackHost } from '../../transport/http/loopback.js';
import { announce, protect, urlHost } from '../oauth.js';
import { packageVersion } from '../packageVersion.js';
import { stopSignal } from '../stopSignals.js';
import type { MetricsOptions } from './metricsCommandLine.js';

function readToken(options: MetricsOptions): string | undefined {
  if (options.tokenFile !== undefined) {
    const token = readFileSync(options.tokenFile, 'utf8').split(/\r?\n/)[0]!.trim();
    if (token.length < 16) throw new Error(`--token-file ${options.tokenFile}: the token on its first line is shorter than 16 characters`);
    return token;
  }
  return process.env.DISKPROBE_TOKEN || undefined;
}

/** `diskprobe metrics --listen`: serves GET /metrics until SIGTERM or SIGINT; resolves with the exit status. */
export async function serveMetrics(options: MetricsOptions & { readonly listen: NonNullable<MetricsOptions['listen']> }): Promise<number> {
  const collect = (budgetMs: number) =>
    collectFilesystems({
      timeoutMs: budgetMs,
      mountPointsExclude: options.mountPointsExclude,
      fsTypesExclude: options.fsTypesExclude,
      prefix: options.prefix,
      version: packageVersion(),
    });
  const fail = (message: string): number => {
    process.stderr.write(`diskprobe: ${message}\n`);
    return 2;
  };
  let token: string | undefined;
  let auth: ResourceServer | undefined;
  try {
    token = readToken(options);
    if (options.auth !== undefined) auth = await protect(options.auth, token);
  } catch (error) {
    return fail((error as Error).message);
  }
  const { host, port } = options.listen;
  const loopback = isLoopbackHost(host);
  if (!loopback && token === undefined && auth === undefined && !options.allowRemote) {
    return fail(
      `--listen ${host}:${port} is not a loopback address: give --token-file <path> (or DISKPROBE_TOKEN) for Prometheus to send, --auth-issuer <url> for OAuth tokens, or --allow-remote where the network is trusted`,
    );
  }
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const server = new MetricsServer({ host, port, access: { loopback, token }, auth, timeoutMs: options.timeout, collect, log });
  let address: { address: string; port: number };
  try {
    address = await server.listen();
  } catch (error) {
    return fail(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  const shown = urlHost(address.address);
  log(`diskprobe: serving metrics on http://${shown}:${address.port}/metrics${token ? ' (bearer token required)' : ''}`);
  if (auth !== undefined) announce(auth, `http://${urlHost(host)}:${address.port}/metrics`, log);
  // At once if the signal came while starting; the signals stay handled to the end (stopSignals.ts).
  await stopSignal();
  await server.stop();
  return 0;
}
