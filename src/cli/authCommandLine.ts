// The OAuth options of `serve --http` and `metrics --listen`: which
// authorization servers to trust, what this server is called (the audience
// its tokens must name), and the scopes a request needs. Checked here, so
// that a mistake is a usage error at start rather than every request refused.

import { SCOPE_TOKEN } from '../transport/http/auth/scopes.js';
import { isLoopbackHost } from '../transport/http/loopback.js';
import { UsageError } from './usageError.js';

/** OAuth: access tokens from an identity provider, instead of one shared token. */
export interface AuthOptions {
  /** The authorization servers trusted (--auth-issuer), each exactly as its tokens' `iss` writes it. */
  readonly issuers: readonly string[];
  /** The URL tokens must be for (--auth-audience); undefined: the server's own, once it listens. */
  readonly audience: string | undefined;
  /** Every scope a request needs (--auth-scope). */
  readonly scopes: readonly string[];
  /** Also accept access tokens typed JWT (--auth-plain-jwt). */
  readonly plainJwt: boolean;
  /** A JSON file with this server's client_id and client_secret: introspect opaque tokens (--auth-introspection). */
  readonly introspectionFile: string | undefined;
}

export const AUTH_OPTIONS = {
  'auth-issuer': { type: 'string', multiple: true },
  'auth-audience': { type: 'string' },
  'auth-scope': { type: 'string', multiple: true },
  'auth-plain-jwt': { type: 'boolean' },
  'auth-introspection': { type: 'string' },
} as const;

export const DEFAULT_AUTH_SCOPE = 'diskprobe:read';

type AuthValues = {
  readonly 'auth-issuer'?: string[] | undefined;
  readonly 'auth-audience'?: string | undefined;
  readonly 'auth-scope'?: string[] | undefined;
  readonly 'auth-plain-jwt'?: boolean | undefined;
  readonly 'auth-introspection'?: string | undefined;
  readonly 'token-file'?: string | undefined;
};

/** Whether a host to listen on is the wildcard address, however spelled (0, 0.0.0.0, ::, [0:0::0]): it names no host. */
function isWildcard(host: string): boolean {
  try {
    const name = new URL(`http://${host.includes(':') ? `[${host}]` : host}`).hostname;
    return name === '0.0.0.0' || name === '[::]';
  } catch {
    return false;
  }
}

function parseUrl(text: string, option: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`option '--${option}' needs a URL, such as ${example}, not '${text}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`option '--${option}' needs an https URL, not '${url.protocol}'`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new UsageError(`option '--${option}': '${text}' may not carry credentials, a query or a fragment`);
  }
  return url;
}

/**
 * The OAuth options, or undefined without --auth-issuer. `listen` is where
 * the server listens and `flag` the option that says so: a wildcard address
 * has no name of its own, so it needs --auth-audience.
 */
export function parseAuth(values: AuthValues, listen: { readonly host: string } | undefined, flag: string): AuthOptions | undefined {
  const issuers = values['auth-issuer'] ?? [];
  if (issuers.length === 0) {
    for (const option of ['auth-audience', 'auth-scope', 'auth-plain-jwt', 'auth-introspection'] as const) {
      if (values[option] !== undefined) throw new UsageError(`option '--${option}' needs --auth-issuer <url>`);
    }
    return undefined;
  }
  if (listen === undefined) throw new UsageError(`option '--auth-issuer' needs ${flag}`);
  if (values['token-file'] !== undefined) {
    throw new UsageError('give either --token-file (one shared token) or --auth-issuer (tokens from your identity provider), not both');
  }
  for (const issuer of issuers) {
    const url = parseUrl(issuer, 'auth-issuer', 'https://login.example.com/realms/ops');
    // OAuth 2.1 §1.5: tokens and keys travel over TLS, but to a server on this machine.
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) throw new UsageError(`option '--auth-issuer' needs an https URL, not '${issuer}'`);
  }
  const audience = values['auth-audience'];
  if (audience !== undefined) parseUrl(audience, 'auth-audience', 'https://disks.example.com/mcp');
  else if (isWildcard(listen.host)) {
    throw new UsageError(
      `${flag} ${listen.host} has no name clients use: give --auth-audience with the URL they connect to, such as https://disks.example.com:8080${flag === '--http' ? '/mcp' : '/metrics'}`,
    );
  }
  const scopes = values['auth-scope'] ?? [DEFAULT_AUTH_SCOPE];
  for (const scope of scopes) {
    if (!SCOPE_TOKEN.test(scope)) throw new UsageError(`option '--auth-scope' needs one scope, without spaces or quotes, not '${scope}'`);
    // 2026-07-28 basic/authorization/index.mdx, "Refresh Tokens": offline_access is the client's to ask for, never the resource's.
    if (scope === 'offline_access') throw new UsageError("option '--auth-scope': offline_access is not a resource's scope (clients ask for it themselves)");
  }
  const unique = [...new Set(issuers)];
  const introspectionFile = values['auth-introspection'];
  if (introspectionFile !== undefined && unique.length !== 1) {
    // An opaque token does not say whose it is: it would be sent to every issuer, each learning the others' tokens.
    throw new UsageError(`option '--auth-introspection' needs exactly one --auth-issuer, not ${unique.length}: opaque tokens do not say which issued them`);
  }
  return { issuers: unique, audience, scopes: [...new Set(scopes)], plainJwt: values['auth-plain-jwt'] === true, introspectionFile };
}
