// diskprobe as an OAuth 2.1 resource server (2026-07-28
// basic/authorization/index.mdx, "Token Handling"): every request to a
// protected endpoint carries a bearer token in its Authorization header, and
// the token is a JWT access token (RFC 9068) from a trusted issuer, signed
// with one of that issuer's published keys, for this server (its audience,
// RFC 8707), in date, and granting the scopes asked. Whatever fails is
// refused: 401 for no or a bad token, 403 for too few scopes, 400 for a token
// in the query string, 503 when the issuer's keys cannot be had. The token
// goes nowhere else: it is verified here and dropped.
//
// jose is loaded when a resource server is made, not when the command
// starts: the other commands never pay for it.
import type { IncomingMessage } from 'node:http';

import type { JWTPayload } from 'jose';

import { type IntrospectionClient, Introspector } from './introspection.js';
import { IssuerKeys, KEY_FETCH_POLICY, type KeyFetchPolicy } from './issuerKeys.js';
import { IssuerUnavailable } from './issuerMetadata.js';
import { challenge, metadataUrlOf, type ProtectedResource } from './protectedResource.js';
import { grantedScopes, missingScopes } from './scopes.js';

type Jose = typeof import('jose');

/**
 * Signature algorithms accepted: public-key ones only. `none` and the HMAC
 * family are absent, so neither an unsigned token nor one "signed" with a
 * public key used as an HMAC secret ever verifies.
 */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

/** What an introspection answer may call an access token (`token_type`, or Keycloak's `typ`). */
const ACCESS_TOKEN_TYPES = new Set(['bearer', 'access_token', 'at+jwt', 'urn:ietf:params:oauth:token-type:access_token']);

/** Seconds of clock skew allowed on exp and nbf. */
const CLOCK_LEEWAY_SECONDS = 30;

export interface ResourceServerOptions {
  /** The issuers trusted, each exactly as its tokens' `iss` and its metadata's `issuer` write it. */
  readonly issuers: readonly string[];
  /** The scopes every request needs. */
  readonly scopes: readonly string[];
  /** Also accept JWTs typed `JWT` or untyped, as Keycloak, Entra ID and Okta issue access tokens (RFC 9068 asks for `at+jwt`). */
  readonly plainJwt: boolean;
  /** Opaque tokens are introspected at the (one) issuer with these credentials (RFC 7662); undefined: only JWTs are taken. */
  readonly introspection?: IntrospectionClient | undefined;
  readonly keyPolicy?: KeyFetchPolicy;
  /** Lines for the operator (stderr): why the authorization server could not be asked. */
  readonly log?: (line: string) => void;
}

/** Milliseconds before the same line is logged again: a flood of requests while the issuer is down logs a line, not one each. */
const LOG_EVERY_MS = 10_000;

/** Who a verified token speaks for: the issuer and its subject (or client). A 2025-era session stays with it. */
export interface Authorized {
  readonly ok: true;
  readonly principal: string;
}

export interface Refused {
  readonly ok: false;
  readonly status: 400 | 401 | 403 | 503;
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Who a token speaks for, as JSON so that no two can run together: the
 * issuer and its subject (RFC 9068 §2.2 asks every token for one), else the
 * client, each tagged, so that a client id never passes for a subject.
 */
function principalOf(claims: JWTPayload): string {
  if (typeof claims.sub === 'string') return JSON.stringify([claims.iss, 'sub', claims.sub]);
  if (typeof claims.client_id === 'string') return JSON.stringify([claims.iss, 'client_id', claims.client_id]);
  return JSON.stringify([claims.iss]);
}

function errorCode(error: unknown): string {
  return (error as { code?: string }).code ?? '';
}

export class ResourceServer {
  private readonly keys: Map<string, IssuerKeys>;
  private readonly introspector: Introspector | undefined;
  /** When each line was last logged. */
  private readonly logged = new Map<string, number>();
  /** This server's identifier, the audience its tokens must name: set at start, or once the port is known. */
  private resource: string | undefined;

  private constructor(
    private readonly jose: Jose,
    private readonly options: ResourceServerOptions,
    resource: string | undefined,
  ) {
    const policy = options.keyPolicy ?? KEY_FETCH_POLICY;
    this.keys = new Map(options.issuers.map((issuer) => [issuer, new IssuerKeys(issuer, jose, policy)]));
    // With several issuers an opaque token says nothing of whose it is, and would go to each: introspection takes one.
    if (options.introspection !== undefined && options.issuers.length !== 1) throw new Error('introspection needs exactly one --auth-issuer');
    this.introspector = options.introspection === undefined ? undefined : new Introspector(options.issuers[0]!, options.introspection, policy.timeoutMs);
    this.resource = resource;
  }

  /** A resource server for `resource` (undefined: call `identify` once the address is known). */
  static async create(options: ResourceServerOptions, resource: string | undefined): Promise<ResourceServer> {
    return new ResourceServer(await import('jose'), options, resource);
  }

  /** Names this server, when the audience is its own address (known only once it listens). */
  identify(resource: string): void {
    this.resource ??= resource;
  }

  /** What the well-known metadata document says (RFC 9728 §2). */
  describe(): ProtectedResource | undefined {
    if (this.resource === undefined) return undefined;
    return {
      resource: this.resource,
      authorization_servers: [...this.options.issuers],
      scopes_supported: [...this.options.scopes],
      bearer_methods_supported: ['header'],
      resource_name: 'diskprobe',
    };
  }

  /** Fetches every issuer's keys; resolves with a line per issuer that failed, for the log. */
  async warm(): Promise<string[]> {
    const failures = await Promise.all([...this.keys.values()].map((keys) => keys.warm()));
    return failures.filter((failure): failure is string => failure !== undefined);
  }

  /** Key sets fetched so far, over all issuers. */
  get keyFetches(): number {
    return [...this.keys.values()].reduce((sum, keys) => sum + keys.fetches, 0);
  }

  private logOnce(line: string): void {
    const now = performance.now();
    if (now - (this.logged.get(line) ?? -Infinity) < LOG_EVERY_MS) return;
    if (this.logged.size > 100) this.logged.clear();
    this.logged.set(line, now);
    this.options.log?.(line);
  }

  /** Whether `req` may be served, and for whom. */
  async authorize(req: IncomingMessage): Promise<Authorized | Refused> {
    const resource = this.resource;
    if (resource === undefined) return { ok: false, status: 503, detail: 'the server is starting', headers: { 'retry-after': '1' } };
    const refuse = (status: Refused['status'], error: string | undefined, detail: string, headers: Record<string, string> = {}): Refused => ({
      ok: false,
      status,
      detail,
      headers: { 'www-authenticate': challenge({ error, detail, scopes: this.options.scopes, metadataUrl: metadataUrlOf(resource) }), ...headers },
    });
    // 2026-07-28 basic/authorization/index.mdx, "Access Token Usage" 2: never in the query string,
    // however the query is written (a second '?' included).
    const url = req.url ?? '';
    const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
    if (/(?:^|[?&;])access_token(?:[=&;]|$)/i.test(query)) {
      return refuse(400, 'invalid_request', 'an access token may not travel in the URL (logs and proxies keep URLs): send it as Authorization: Bearer <token>');
    }
    const header = req.headers.authorization;
    if (header === undefined) return refuse(401, undefined, 'this server needs an access token: Authorization: Bearer <token>');
    // Another scheme is no Bearer token at all: a challenge without an error code (RFC 6750 §3.1).
    if (!/^Bearer\b/i.test(header))
      return refuse(401, undefined, `this server takes OAuth access tokens (Authorization: Bearer <token>), not ${header.split(' ')[0]!.slice(0, 32)}`);
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (match === null) return refuse(401, 'invalid_token', 'the Authorization header is not "Bearer <token>"');
    const token = match[1]!;
    const verdict = await this.verify(token, resource);
    if (typeof verdict === 'string') return refuse(401, 'invalid_token', verdict);
    if (verdict instanceof IssuerUnavailable) {
      // The why (addresses, errors, our credentials) is for the operator's log, not for a caller who may have no token.
      this.logOnce(`diskprobe: OAuth: ${verdict.message}`);
      const wait = verdict.retryAfterSeconds;
      return {
        ok: false,
        status: 503,
        detail: `the authorization server cannot be asked to check this token now: retry in ${wait} s`,
        headers: { 'retry-after': String(wait) },
      };
    }
    // A token bound to a key (DPoP, mTLS: RFC 9449, RFC 8705) is no bearer token, and this server cannot check the binding.
    if (verdict.cnf !== undefined) return refuse(401, 'invalid_token', 'the token is bound to a key (cnf), and this server takes bearer tokens only');
    const missing = missingScopes(grantedScopes(verdict), this.options.scopes);
    if (missing.length > 0) return refuse(403, 'insufficient_scope', `the token does not grant ${missing.join(' ')}`);
    return { ok: true, principal: principalOf(verdict) };
  }

  /** The token's claims, or why it is refused (a string), or IssuerUnavailable. */
  private async verify(token: string, resource: string): Promise<JWTPayload | string | IssuerUnavailable> {
    const { jose } = this;
    let header: ReturnType<Jose['decodeProtectedHeader']>;
    let unverified: JWTPayload;
    try {
      header = jose.decodeProtectedHeader(token);
      unverified = jose.decodeJwt(token);
    } catch {
      if (this.introspector !== undefined) return this.introspected(this.introspector, token, resource);
      return 'the token is not a JWT: this server verifies JWT access tokens (RFC 9068), and introspects opaque ones only with --auth-introspection';
    }
    if (typeof header.alg !== 'string' || !(ALGORITHMS as readonly string[]).includes(header.alg)) {
      return `the token's alg ${JSON.stringify(header.alg)} is not accepted: only public-key signatures (${ALGORITHMS.join(', ')})`;
    }
    const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : header.typ === undefined ? '' : undefined;
    if (typ !== 'at+jwt' && !(this.options.plainJwt && (typ === '' || typ === 'jwt'))) {
      return `the token's typ is ${JSON.stringify(header.typ ?? null)}, not at+jwt: it is not an access token (RFC 9068, section 4)${this.options.plainJwt ? '' : '; if your identity provider types access tokens as JWT, start the server with --auth-plain-jwt'}`;
    }
    const keys = typeof unverified.iss === 'string' ? this.keys.get(unverified.iss) : undefined;
    if (keys === undefined) return `the token's issuer ${JSON.stringify(unverified.iss ?? null)} is not one this server trusts (--auth-issuer)`;
    try {
      const { payload } = await jose.jwtVerify(token, keys.resolve, {
        issuer: keys.issuer,
        audience: resource,
        algorithms: [...ALGORITHMS],
        clockTolerance: CLOCK_LEEWAY_SECONDS,
        requiredClaims: ['exp'],
      });
      return payload;
    } catch (error) {
      if (error instanceof IssuerUnavailable) return error;
      return this.whyRefused(error, header.kid, resource);
    }
  }

  /** An opaque token's claims from its issuer, checked as a JWT's would be (RFC 7662 §4: the resource server still judges them). */
  private async introspected(introspector: Introspector, token: string, resource: string): Promise<JWTPayload | string | IssuerUnavailable> {
    let answer: Awaited<ReturnType<Introspector['introspect']>>;
    try {
      answer = await introspector.introspect(token);
    } catch (error) {
      if (error instanceof IssuerUnavailable) return error;
      throw error;
    }
    if (typeof answer === 'string') return answer;
    // An issuer may introspect refresh tokens too, whatever the hint said (RFC 7662 §2.1): only access tokens pass.
    const type = answer.token_type ?? answer.typ;
    if (typeof type === 'string' && !ACCESS_TOKEN_TYPES.has(type.toLowerCase())) return `the token is a ${type} token, not an access token`;
    const iss = answer.iss ?? introspector.issuer;
    if (iss !== introspector.issuer) return `the token's issuer ${JSON.stringify(iss)} is not the one asked`;
    const audiences = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
    if (!audiences.includes(resource)) return `the token is not for this server: its audience must include ${resource}`;
    const now = Date.now() / 1000;
    if (typeof answer.exp === 'number' && answer.exp < now - CLOCK_LEEWAY_SECONDS) return 'the token has expired';
    if (typeof answer.nbf === 'number' && answer.nbf > now + CLOCK_LEEWAY_SECONDS) return 'the token is not valid yet (nbf)';
    return { ...answer, iss } as JWTPayload;
  }

  private whyRefused(error: unknown, kid: string | undefined, resource: string): string {
    const { claim } = error as { claim?: string };
    switch (errorCode(error)) {
      case 'ERR_JWT_EXPIRED':
        return 'the token has expired';
      case 'ERR_JWKS_NO_MATCHING_KEY':
        return `the issuer publishes no key ${JSON.stringify(kid ?? null)} for the token's alg`;
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return 'the token signature does not verify';
      case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
        if (claim === 'aud') return `the token is not for this server: its audience must include ${resource}`;
        if (claim === 'nbf') return 'the token is not valid yet (nbf)';
        return `the token's ${claim ?? 'claims'} claim is not valid: ${(error as Error).message}`;
      default:
        return `the token is not valid: ${(error as Error).message}`;
    }
  }
}
