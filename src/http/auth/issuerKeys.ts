// One authorization server's signing keys: where they are (RFC 8414 or
// OpenID Connect discovery, in the order of 2026-07-28
// basic/authorization/authorization-server-discovery.mdx), fetched with a
// deadline, cached, and fetched again only when they are old or a token
// names a key they lack. jose picks and imports the key (createLocalJWKSet);
// the fetching is ours, because jose's remote set forgets its keys when a
// refetch fails after their maximum age, and retries on every request while
// the server is down.
//
// The rules, each with the harm it prevents:
// - an unknown `kid` refetches at most once per COOLDOWN: a rotated key is
//   accepted within seconds, a flood of made-up kids costs one fetch;
// - a failed fetch keeps the keys held (stale-if-error), and is tried again
//   after RETRY at the soonest: a server that is down is not asked on every
//   request, and requests do not each wait out its timeout;
// - with no keys held, a failure is KeysUnavailable (503 with Retry-After),
//   never a hang and never an acceptance.
import type { FlattenedJWSInput, JSONWebKeySet, JWSHeaderParameters } from 'jose';

import { isLoopbackHost } from '../access.js';

type Jose = typeof import('jose');
type KeyResolver = ReturnType<Jose['createLocalJWKSet']>;
type Key = Awaited<ReturnType<KeyResolver>>;

export interface KeyFetchPolicy {
  /** Milliseconds one refresh (discovery and the key set) may take. */
  readonly timeoutMs: number;
  /** Milliseconds between refetches caused by an unknown kid. */
  readonly cooldownMs: number;
  /** Milliseconds keys are used before they are fetched again. */
  readonly maxAgeMs: number;
  /** Milliseconds after a failed fetch before another is tried. */
  readonly retryMs: number;
}

export const KEY_FETCH_POLICY: KeyFetchPolicy = { timeoutMs: 5_000, cooldownMs: 10_000, maxAgeMs: 10 * 60_000, retryMs: 5_000 };

/** Metadata and key sets are small; a larger answer is not one. */
const MAX_DOCUMENT_BYTES = 1 << 20;

/** The issuer's keys cannot be had, and none are held: answer 503, and say when to retry. */
export class KeysUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'KeysUnavailable';
  }
}

/** Where an issuer's metadata may be, in the spec's order: RFC 8414 first, then OpenID Connect, path inserted before appended. */
export function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const at = (suffix: string): URL => new URL(suffix, url.origin);
  if (path === '') return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [at(`/.well-known/oauth-authorization-server${path}`), at(`/.well-known/openid-configuration${path}`), at(`${path}/.well-known/openid-configuration`)];
}

/** Whether a URL may carry keys: https, or http to loopback (a server on this machine). */
export function isSecureEnough(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

function reason(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return cause.code;
  return (error as Error).message ?? String(error);
}

async function fetchJson(url: URL, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
  // No redirects: an issuer's documents are where discovery says, and nothing is sent along.
  const response = await fetch(url, { signal, redirect: 'error', headers: { accept: 'application/json' } });
  if (!response.ok) {
    await response.body?.cancel();
    return { status: response.status, body: undefined };
  }
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`${url} is ${declared} bytes, more than a key set or metadata document can be`);
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new Error(`${url} is more than ${MAX_DOCUMENT_BYTES} bytes`);
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw new Error(`${url} is not JSON`);
  }
}

/** The issuer's jwks_uri, from the first metadata document that answers and names this issuer exactly (RFC 8414 §3.3). */
async function discoverJwksUri(issuer: string, signal: AbortSignal): Promise<URL> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const { status, body } = await fetchJson(url, signal);
    if (body === undefined) {
      tried.push(`${url} (${status})`);
      continue;
    }
    const metadata = body as { issuer?: unknown; jwks_uri?: unknown };
    if (metadata.issuer !== issuer) {
      throw new Error(`${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}: give --auth-issuer exactly as the server writes it`);
    }
    if (typeof metadata.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri: the server publishes no keys to verify JWTs with`);
    const jwksUri = new URL(metadata.jwks_uri);
    if (!isSecureEnough(jwksUri)) throw new Error(`its jwks_uri ${jwksUri} is not https`);
    return jwksUri;
  }
  throw new Error(`no metadata at ${tried.join(', ')}`);
}

export class IssuerKeys {
  private jwksUri: URL | undefined;
  private keys: KeyResolver | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastFailure = '';
  private refreshing: Promise<void> | undefined;
  /** How many key sets were fetched: for tests and the log. */
  fetches = 0;

  constructor(
    readonly issuer: string,
    private readonly jose: Jose,
    private readonly policy: KeyFetchPolicy = KEY_FETCH_POLICY,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Fetches the keys now (at start), so that the first request need not wait; a failure is returned, to be logged. */
  async warm(): Promise<string | undefined> {
    try {
      await this.refresh();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** jwtVerify's key argument: the key the token's header names, fetched again if need be. */
  readonly resolve = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<Key> => {
    const started = this.now();
    if (this.keys === undefined || started - this.fetchedAt > this.policy.maxAgeMs) {
      if (started - this.attemptedAt >= this.policy.retryMs || this.refreshing !== undefined) await this.refresh();
      else if (this.keys === undefined) throw this.unavailable();
    }
    try {
      return await this.keys!(header, token);
    } catch (error) {
      // A kid the set lacks may be a new key: look again, once per cooldown.
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || started - this.attemptedAt < this.policy.cooldownMs) throw error;
      await this.refresh();
      return await this.keys!(header, token);
    }
  };

  /** One refresh at a time; when it fails, the keys held stay, and with none held it throws KeysUnavailable. */
  private async refresh(): Promise<void> {
    this.refreshing ??= this.fetchKeys().finally(() => {
      this.refreshing = undefined;
    });
    try {
      await this.refreshing;
    } catch {
      if (this.keys === undefined) throw this.unavailable();
    }
  }

  private unavailable(): KeysUnavailable {
    const wait = Math.max(1, Math.ceil((this.attemptedAt + this.policy.retryMs - this.now()) / 1000));
    return new KeysUnavailable(`cannot fetch the signing keys of ${this.issuer}: ${this.lastFailure}`, wait);
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = this.now();
    const signal = AbortSignal.timeout(this.policy.timeoutMs);
    try {
      this.jwksUri ??= await discoverJwksUri(this.issuer, signal);
      const { status, body } = await fetchJson(this.jwksUri, signal);
      if (body === undefined) throw new Error(`${this.jwksUri} answered ${status}`);
      this.keys = this.jose.createLocalJWKSet(body as JSONWebKeySet);
      this.fetchedAt = this.now();
      this.fetches++;
    } catch (error) {
      this.lastFailure = reason(error);
      throw error;
    }
  }
}
