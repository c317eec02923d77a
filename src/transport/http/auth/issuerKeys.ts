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
// - with no keys held, a failure is IssuerUnavailable (503 with Retry-After),
//   never a hang and never an acceptance.
import type { FlattenedJWSInput, JSONWebKeySet, JWSHeaderParameters } from 'jose';

import { type AuthorizationServerMetadata, discoverMetadata, fetchJson, IssuerUnavailable, isSecureEnough, reason } from './issuerMetadata.js';

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

/** The metadata's jwks_uri, checked. */
function jwksUriOf(metadata: AuthorizationServerMetadata): URL {
  if (typeof metadata.jwks_uri !== 'string') throw new Error(`${metadata.issuer} publishes no jwks_uri: no keys to verify JWTs with`);
  const jwksUri = new URL(metadata.jwks_uri);
  if (!isSecureEnough(jwksUri)) throw new Error(`its jwks_uri ${jwksUri} is not https`);
  return jwksUri;
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
    const due = started - this.attemptedAt >= this.policy.retryMs || this.refreshing !== undefined;
    if (this.keys === undefined) {
      if (!due) throw this.unavailable();
      await this.refresh();
    } else if (started - this.fetchedAt > this.policy.maxAgeMs && due) {
      // Old keys are refreshed behind the request, which goes on with them: a server that has gone
      // silent must not hold every request for its timeout. refresh() keeps the keys when it fails.
      void this.refresh();
    }
    try {
      return await this.keys!(header, token);
    } catch (error) {
      // A kid the set lacks may be a new key: look again, once per cooldown.
      // A refresh under way (another request's new kid) is joined rather than refused.
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      if (this.refreshing === undefined && started - this.attemptedAt < this.policy.cooldownMs) throw error;
      await this.refresh();
      return await this.keys!(header, token);
    }
  };

  /** One refresh at a time; when it fails, the keys held stay, and with none held it throws IssuerUnavailable. */
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

  private unavailable(): IssuerUnavailable {
    const wait = Math.max(1, Math.ceil((this.attemptedAt + this.policy.retryMs - this.now()) / 1000));
    return new IssuerUnavailable(`cannot fetch the signing keys of ${this.issuer}: ${this.lastFailure}`, wait);
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = this.now();
    const signal = AbortSignal.timeout(this.policy.timeoutMs);
    try {
      this.jwksUri ??= jwksUriOf(await discoverMetadata(this.issuer, signal));
      const { status, body } = await fetchJson(this.jwksUri, signal);
      if (body === undefined) throw new Error(`${this.jwksUri} answered ${status}`);
      this.keys = this.jose.createLocalJWKSet(body as JSONWebKeySet);
      this.fetchedAt = this.now();
      this.fetches++;
    } catch (error) {
      this.lastFailure = reason(error);
      throw error;
    } finally {
      // The cooldown and the retry delay count from when the attempt ended: a fetch that timed out is not tried again at once.
      this.attemptedAt = this.now();
    }
  }
}
