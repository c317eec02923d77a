// A client for Prometheus's HTTP API (/api/v1/query): instant queries with
// Node's own fetch, nothing else. Thanos, Mimir, Cortex and VictoriaMetrics
// serve the same API, so the same client asks them. Every failure becomes a
// PrometheusError that says what went wrong and what to do; none waits
// longer than the timeout, and nothing is retried: a tool call is one round
// of queries, and a model that wants another asks again.
import { readFileSync } from 'node:fs';

import type { CancelSignal } from '../probe/types.js';

/** Where Prometheus is and how to ask it (serve --prometheus …). */
export interface PrometheusConfig {
  /** The API's base: https://host:9090, or with a path prefix, https://host/prometheus. */
  readonly url: URL;
  /** A file whose first line is the bearer token, read again for every round of queries (tokens rotate). */
  readonly tokenFile?: string | undefined;
  /** PEM certificates to trust for https, instead of Node's bundled CAs. */
  readonly ca?: string | undefined;
  /** Milliseconds a round of queries may take in all. */
  readonly timeoutMs: number;
}

/** One series of an instant vector: its labels and its value as Prometheus wrote it. */
export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  /** The value's text ("79924928512", "NaN", "+Inf"): exact below 2^53. */
  readonly value: string;
}

export type PrometheusFailure = 'unreachable' | 'timeout' | 'refused' | 'query' | 'answer' | 'token';

export class PrometheusError extends Error {
  override readonly name = 'PrometheusError';
  constructor(
    readonly failure: PrometheusFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Answers larger than this are refused rather than parsed: a query that matches millions of series needs a narrower selector. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** TLS verification failures (OpenSSL's codes, as Node reports them): the fix is --prometheus-ca. */
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * An undici Agent that trusts `ca`, for fetch's `dispatcher` option. Node's
 * fetch is undici, but Node 20 exposes neither undici's Agent nor any other
 * way to give fetch a CA (NODE_EXTRA_CA_CERTS is read only at start-up), so
 * the Agent class is taken from fetch's own global dispatcher, which undici
 * registers under a Symbol.for key meant to be shared across copies of it.
 */
async function dispatcherTrusting(ca: string): Promise<object> {
  const key = Symbol.for('undici.globalDispatcher.1');
  const global = globalThis as unknown as Record<symbol, object | undefined>;
  // fetch creates its global dispatcher on first use: a refused connection to port 0 is enough.
  if (global[key] === undefined) await fetch('http://127.0.0.1:0/').catch(() => {});
  const Agent = global[key]?.constructor as (new (options: object) => object) | undefined;
  if (Agent === undefined) {
    throw new PrometheusError(
      'unreachable',
      'this Node.js gives fetch no dispatcher to set a CA on: start diskprobe with NODE_EXTRA_CA_CERTS=<file> instead of --prometheus-ca',
    );
  }
  return new Agent({ connect: { ca } });
}

/** One series of an instant vector as the API writes it: `{"metric": {…}, "value": [time, "text"]}`. */
function isSeries(series: unknown): series is { metric: Record<string, string>; value: [number, string] } {
  const { metric, value } = (series ?? {}) as { metric?: unknown; value?: unknown };
  return (
    typeof metric === 'object' &&
    metric !== null &&
    Object.values(metric).every((label) => typeof label === 'string') &&
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'number' &&
    typeof value[1] === 'string'
  );
}

/** The URL as shown in messages: no query or fragment (a URL with a password is refused at start-up). */
const shown = (url: URL): string => `${url.origin}${url.pathname.replace(/\/$/, '')}`;

export class PrometheusClient {
  private readonly endpoint: URL;
  private dispatcher: Promise<object> | undefined;

  constructor(private readonly config: PrometheusConfig) {
    const base = new URL(config.url);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.endpoint = new URL('api/v1/query', base);
    if (config.ca !== undefined) {
      this.dispatcher = dispatcherTrusting(config.ca);
      // Handled where it is awaited, at each call; not an unhandled rejection meanwhile.
      this.dispatcher.catch(() => {});
    }
  }

  /** The server, as messages name it. */
  get where(): string {
    return shown(this.config.url);
  }

  /**
   * Runs the queries at one instant (now), in parallel, within the timeout:
   * the answers, by the same keys. The first failure cancels the rest and is
   * thrown as a PrometheusError; a cancelled call throws the signal's reason.
   */
  async queryAll<K extends string>(queries: Readonly<Record<K, string>>, signal?: CancelSignal): Promise<Record<K, Sample[]>> {
    const controller = new AbortController();
    const timeoutMs = this.config.timeoutMs;
    const timer = setTimeout(() => controller.abort(new PrometheusError('timeout', this.timeoutMessage())), timeoutMs);
    const cancel = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      if (signal?.aborted) throw signal.reason;
      const token = this.readToken();
      const dispatcher = await this.dispatcher;
      const time = (Date.now() / 1000).toFixed(3);
      const keys = Object.keys(queries) as K[];
      const answers = await Promise.all(
        keys.map((key) =>
          this.query(queries[key], time, token, dispatcher, controller.signal).catch((error: unknown) => {
            controller.abort(error);
            throw error;
          }),
        ),
      );
      return Object.fromEntries(keys.map((key, i) => [key, answers[i]!])) as Record<K, Sample[]>;
    } catch (error) {
      // An aborted fetch throws an AbortError; what aborted it is the reason.
      throw controller.signal.aborted ? controller.signal.reason : error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  }

  private timeoutMessage(): string {
    return (
      `Prometheus at ${this.where} did not answer within ${this.config.timeoutMs} ms: it may be overloaded, or the query too costly over this many series. ` +
      'Try again later, narrow the question (instance, mountpoint, a shorter lookback), or raise --prometheus-timeout.'
    );
  }

  private readToken(): string | undefined {
    const file = this.config.tokenFile;
    if (file === undefined) return undefined;
    let token: string;
    try {
      token = readFileSync(file, 'utf8').split(/\r?\n/)[0]!.trim();
    } catch (error) {
      throw new PrometheusError('token', `cannot read --prometheus-token-file ${file}: ${(error as Error).message}`);
    }
    if (token === '') throw new PrometheusError('token', `--prometheus-token-file ${file} is empty: put the bearer token on its first line`);
    // RFC 6750's b64token is printable ASCII; anything else could not even be sent as a header.
    if (!/^[\x21-\x7e]+$/.test(token)) {
      throw new PrometheusError(
        'token',
        `the token in --prometheus-token-file ${file} holds a space, a control character or non-ASCII text: a bearer token is printable ASCII`,
      );
    }
    return token;
  }

  private async query(expression: string, time: string, token: string | undefined, dispatcher: object | undefined, signal: AbortSignal): Promise<Sample[]> {
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
          ...(token !== undefined && { authorization: `Bearer ${token}` }),
        },
        // Prometheus's own timeout too, so that it stops evaluating when we stop waiting.
        body: new URLSearchParams({ query: expression, time, timeout: `${this.config.timeoutMs}ms` }),
        // A redirect could carry the token elsewhere: it is reported, never followed.
        redirect: 'manual',
        signal,
        ...(dispatcher !== undefined && { dispatcher }),
      } as RequestInit);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw this.connectionError(error);
    }
    const body = await this.readBody(response, signal);
    return this.vector(response, body, expression);
  }

  private connectionError(error: unknown): PrometheusError {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.message ?? (error as Error).message;
    if (cause?.code !== undefined && TLS_CODES.has(cause.code)) {
      return new PrometheusError(
        'unreachable',
        `cannot reach Prometheus at ${this.where}: TLS: ${reason}. Give the CA bundle that signed its certificate with --prometheus-ca <file.pem>.`,
      );
    }
    return new PrometheusError(
      'unreachable',
      `cannot reach Prometheus at ${this.where}: ${reason}. Check that it runs and that --prometheus (or DISKPROBE_PROMETHEUS_URL) names it, with any path prefix.`,
    );
  }

  /** The body as text, refused past MAX_ANSWER_BYTES. */
  private async readBody(response: Response, signal: AbortSignal): Promise<string> {
    if (response.body === null) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > MAX_ANSWER_BYTES) {
          throw new PrometheusError(
            'answer',
            `Prometheus at ${this.where} sent more than ${MAX_ANSWER_BYTES >> 20} MiB for one query: narrow it with instance, mountpoint or --prometheus-selector.`,
          );
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof PrometheusError) throw error;
      if (signal.aborted) throw signal.reason;
      throw this.connectionError(error);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private vector(response: Response, body: string, expression: string): Sample[] {
    const { status } = response;
    if (status >= 300 && status < 400) {
      const location = response.headers.get('location') ?? 'somewhere else';
      throw new PrometheusError(
        'answer',
        `Prometheus at ${this.where} redirects to ${location}: give that address as --prometheus (redirects are not followed, so that the token goes nowhere else).`,
      );
    }
    if (status === 401 || status === 403) {
      const how =
        this.config.tokenFile === undefined
          ? 'It wants a bearer token: give one with --prometheus-token-file <file>.'
          : `Check the token in ${this.config.tokenFile}.`;
      throw new PrometheusError('refused', `Prometheus at ${this.where} refused the query: HTTP ${status} ${response.statusText}. ${how}`);
    }
    let answer: { status?: unknown; data?: { resultType?: unknown; result?: unknown }; errorType?: unknown; error?: unknown };
    try {
      answer = JSON.parse(body) as typeof answer;
      if (typeof answer !== 'object' || answer === null) throw new Error('not an object');
    } catch {
      throw new PrometheusError(
        'answer',
        `${this.where} answered HTTP ${status} with ${response.headers.get('content-type') ?? 'no content type'}, not Prometheus's JSON API at ${this.endpoint.pathname}: ` +
          'check --prometheus, with any path prefix (e.g. https://host/prometheus).',
      );
    }
    if (answer.status === 'error') {
      const what = `${String(answer.errorType)}: ${String(answer.error)}`;
      if (answer.errorType === 'timeout') {
        throw new PrometheusError(
          'timeout',
          `Prometheus at ${this.where} gave up evaluating a query (${what}). Narrow the question (instance, mountpoint, a shorter lookback), or raise --prometheus-timeout.`,
        );
      }
      throw new PrometheusError(
        'query',
        `Prometheus at ${this.where} rejected a query with HTTP ${status} (${what}). The query was: ${expression}. ` +
          'If --prometheus-selector is set, check it; otherwise this is a bug in diskprobe: please report it.',
      );
    }
    const result = answer.data?.result;
    if (answer.status !== 'success' || answer.data?.resultType !== 'vector' || !Array.isArray(result) || !result.every(isSeries)) {
      throw new PrometheusError('answer', `${this.where} answered HTTP ${status} without an instant vector: is it Prometheus's query API?`);
    }
    return result.map((series) => ({ labels: series.metric, value: series.value[1] }));
  }
}
