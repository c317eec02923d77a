// Opaque access tokens, asked of their issuer (RFC 7662 token
// introspection): for identity providers that issue tokens only they can
// read. The resource server authenticates with its own client credentials
// (client_secret_basic), asks once per token, and keeps the answer for up
// to a minute (never past the token's exp), so that a busy client costs one
// call a minute rather than one per request; a revoked token is therefore
// refused within a minute. At most MAX_IN_FLIGHT calls run at once: a flood
// of made-up tokens reaches the issuer 16 at a time, the rest refused with
// 503: while it lasts, tokens not yet cached are refused too (the price of
// opaque tokens; JWTs are checked here and cost the issuer nothing).
import { createHash } from 'node:crypto';

import { discoverMetadata, IssuerUnavailable, isSecureEnough, reason } from './issuerMetadata.js';

/** The resource server's own credentials at the issuer (--auth-introspection <file>). */
export interface IntrospectionClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

const CACHE_MS = 60_000;
const MAX_CACHED = 10_000;
const MAX_IN_FLIGHT = 16;
/** Opaque tokens are short handles; anything longer is not one, and is not sent to the issuer. */
const MAX_TOKEN_LENGTH = 4096;

/** What introspection said: the token's claims (active), or why it is refused. */
export type Introspected = Readonly<Record<string, unknown>> | string;

export class Introspector {
  private endpoint: URL | undefined;
  private readonly cache = new Map<string, { readonly answer: Introspected; readonly until: number }>();
  /** Introspections under way, by token digest: the same token asked twice at once is asked once. */
  private readonly pending = new Map<string, Promise<Introspected>>();
  /** Calls made to the introspection endpoint: for tests. */
  calls = 0;

  constructor(
    readonly issuer: string,
    private readonly client: IntrospectionClient,
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The active token's claims, or why it is refused; throws IssuerUnavailable when the issuer cannot answer. */
  async introspect(token: string): Promise<Introspected> {
    if (token.length > MAX_TOKEN_LENGTH) return `the token is longer than ${MAX_TOKEN_LENGTH} characters: no access token is`;
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.until > this.now()) return cached.answer;
    const joined = this.pending.get(key);
    if (joined !== undefined) return joined;
    if (this.pending.size >= MAX_IN_FLIGHT) throw new IssuerUnavailable(`${this.pending.size} tokens are being introspected at ${this.issuer} already`, 1);
    const asking = this.ask(token).then((answer) => {
      this.remember(key, answer);
      return answer;
    });
    this.pending.set(key, asking);
    try {
      return await asking;
    } finally {
      this.pending.delete(key);
    }
  }

  private remember(key: string, answer: Introspected): void {
    const exp = typeof answer === 'string' ? undefined : answer.exp;
    const until = Math.min(this.now() + CACHE_MS, typeof exp === 'number' ? exp * 1000 : Infinity);
    if (this.cache.size >= MAX_CACHED) {
      for (const [old, entry] of this.cache) if (entry.until <= this.now()) this.cache.delete(old);
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, { answer, until });
  }

  private async ask(token: string): Promise<Introspected> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      this.endpoint ??= endpointOf(await discoverMetadata(this.issuer, signal));
      this.calls++;
      response = await fetch(this.endpoint, {
        method: 'POST',
        signal,
        redirect: 'manual',
        headers: {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(this.client.clientId)}:${encodeURIComponent(this.client.clientSecret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      });
    } catch (error) {
      throw new IssuerUnavailable(`cannot introspect at ${this.issuer}: ${reason(error)}`, 5);
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new IssuerUnavailable(`${this.issuer} refused this server's introspection credentials (${response.status}): check --auth-introspection`, 30);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new IssuerUnavailable(`${this.endpoint} answered ${response.status}`, 5);
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | null | undefined;
    if (typeof body !== 'object' || body === null || typeof body.active !== 'boolean')
      throw new IssuerUnavailable(`${this.endpoint} did not answer with an introspection response`, 5);
    if (body.active !== true) return 'the token is not active: its issuer says it has expired, been revoked, or never was';
    return body;
  }
}

function endpointOf(metadata: { readonly issuer: string; readonly introspection_endpoint?: unknown }): URL {
  if (typeof metadata.introspection_endpoint !== 'string') throw new Error(`${metadata.issuer} has no introspection_endpoint`);
  const url = new URL(metadata.introspection_endpoint);
  if (!isSecureEnough(url)) throw new Error(`its introspection_endpoint ${url} is not https`);
  return url;
}
