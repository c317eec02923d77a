// A real OAuth 2.1 / OpenID authorization server, in-process, for the auth
// tests: oidc-provider on http://127.0.0.1:PORT, issuing client-credentials
// access tokens as JWTs (RFC 9068) for resource indicators (RFC 8707), signed
// with one ES256 key the tests can read (to forge tokens with the issuer's real
// key) and rotate. It counts the JWKS and discovery fetches, so tests can tell
// whether a resource server caches them.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { exportJWK, generateKeyPair, type JWK } from 'jose';

export interface AuthServer {
  /** The issuer identifier, e.g. http://127.0.0.1:PORT (no trailing slash). */
  readonly issuer: string;
  /** How many times the JWKS document (jwks_uri) was fetched since start (across restarts). */
  readonly jwksFetches: number;
  /** How many discovery documents (/.well-known/openid-configuration or oauth-authorization-server) were fetched. */
  readonly discoveryFetches: number;
  /** How many times the introspection endpoint was called. */
  readonly introspections: number;
  /** The current private signing key as a JWK (EC P-256, alg ES256, with kid), so tests can forge tokens with the issuer's real key. */
  readonly privateJwk: JWK;
  /** A client-credentials access token (JWT, RFC 9068, typ at+jwt) for `resource` with `scope` (space-separated), obtained over HTTP from the token endpoint, as a client would. */
  token(options: { resource: string; scope?: string; clientId?: string }): Promise<string>;
  /** Stops listening (port freed; connections closed). Afterwards fetches to the issuer fail with ECONNREFUSED. */
  stop(): Promise<void>;
  /** Restarts on the SAME port with a NEW signing key (new kid): key rotation. */
  rotate(): Promise<void>;
}

/** The registered clients (client_credentials only, client_secret_basic). */
export const CLIENTS: { readonly id: string; readonly secret: string }[] = [
  { id: 'disk-agent', secret: 'disk-agent-secret-0123456789abcdef' },
  { id: 'other-agent', secret: 'other-agent-secret-0123456789abcdef' },
];

/** A desktop host's client (public, PKCE), with `users`; its redirect URI is never listened on: the test reads the redirect. */
export const HOST_CLIENT = { id: 'desktop-host', redirectUri: 'http://127.0.0.1:33418/callback' } as const;

/** The resource server's own client, for token introspection (--auth-introspection). */
export const RESOURCE_SERVER = { id: 'diskprobe-rs', secret: 'diskprobe-rs-secret-0123456789abcdef' } as const;

/** oidc-provider's introspection endpoint. */
const INTROSPECTION_PATH = '/token/introspection';

/** Every scope a resource server here grants (and every client may ask for). */
export const SCOPES = ['diskprobe:read', 'diskprobe:metrics', 'diskprobe', 'other:scope'] as const;

/** Where the JWKS is served (set in the provider's routes, counted in the wrapper). */
const JWKS_PATH = '/jwks';
/** Both discovery documents; oidc-provider serves both, with the same content. */
const DISCOVERY_PATHS = new Set(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);
/** Marks the helper's own requests (token()'s discovery look-up), so they are not counted as the tested client's. */
const OWN_REQUEST = 'x-auth-server-helper';

// oidc-provider ships no types (and @types/oidc-provider is no dependency of
// ours): the little used here is typed by hand.
type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;
interface OidcProvider {
  callback(): Listener;
}
interface OidcProviderModule {
  default: new (issuer: string, configuration: object) => OidcProvider;
  errors: { InvalidTarget: new (description?: string) => Error };
}

let oidcProvider: Promise<OidcProviderModule> | undefined;

/**
 * oidc-provider, imported on first use. Importing it on Node 20 prints, once,
 * "Unsupported runtime. Use Node.js v22.x LTS": that one warning is dropped
 * (the features used here work on 20); anything else still reaches console.warn.
 */
function loadOidcProvider(): Promise<OidcProviderModule> {
  oidcProvider ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
    };
    // A string variable, not a literal: the untyped module then imports as any, cast to the types above.
    const name: string = 'oidc-provider';
    try {
      return (await import(name)) as OidcProviderModule;
    } finally {
      console.warn = warn;
    }
  })();
  return oidcProvider;
}

/** A fresh ES256 signing key, private, with a new kid. */
async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'ES256', use: 'sig' };
}

/**
 * An in-memory store for what oidc-provider persists. Its own in-memory
 * adapter would do as well, but it warns on the console that it is for
 * development only. JWT access tokens are not stored at all.
 */
class MemoryAdapter {
  private static readonly store = new Map<string, { payload: Record<string, unknown>; expires: number }>();
  constructor(private readonly model: string) {}
  private key(id: string): string {
    return `${this.model}:${id}`;
  }
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
    MemoryAdapter.store.set(this.key(id), { payload, expires: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000 });
    return Promise.resolve();
  }
  find(id: string): Promise<Record<string, unknown> | undefined> {
    const entry = MemoryAdapter.store.get(this.key(id));
    return Promise.resolve(entry !== undefined && entry.expires > Date.now() ? entry.payload : undefined);
  }
  /** Sessions are found by the uid their cookie holds. */
  findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    for (const [key, entry] of MemoryAdapter.store) {
      if (key.startsWith(`${this.model}:`) && entry.payload.uid === uid && entry.expires > Date.now()) return Promise.resolve(entry.payload);
    }
    return Promise.resolve(undefined);
  }
  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  async consume(id: string): Promise<void> {
    const payload = await this.find(id);
    if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
  }
  destroy(id: string): Promise<void> {
    MemoryAdapter.store.delete(this.key(id));
    return Promise.resolve();
  }
  revokeByGrantId(): Promise<void> {
    return Promise.resolve();
  }
}

/** Resource indicators the server knows: local ones (any port), and https://other.example for wrong-audience tests. */
function knownResource(resource: string): boolean {
  try {
    const url = new URL(resource);
    return (url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost')) || url.origin === 'https://other.example';
  } catch {
    return false;
  }
}

/**
 * Starts the server (on `port`, or a free one). Access tokens live
 * `accessTokenTtl` seconds (300 by default). The caller must stop() it, even
 * when a test fails.
 */
export async function startAuthServer(
  options: { port?: number; accessTokenTtl?: number; accessTokenFormat?: 'jwt' | 'opaque'; users?: boolean } = {},
): Promise<AuthServer> {
  const { default: Provider, errors } = await loadOidcProvider();
  // Port 0 at first: the kernel's choice, never a port another test may take between a pick and the bind.
  let port = options.port ?? 0;
  let issuer = '';
  const ttl = options.accessTokenTtl ?? 300;
  let jwksFetches = 0;
  let discoveryFetches = 0;
  let introspections = 0;
  let privateJwk = await newSigningKey();
  let server: Server | undefined;

  const configuration = (key: JWK): object => ({
    adapter: MemoryAdapter,
    clients: [
      ...[...CLIENTS, RESOURCE_SERVER].map(({ id, secret }) => ({
        client_id: id,
        client_secret: secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPES.join(' '),
      })),
      // A public client, as a desktop host is: a user signs in (authorization code, PKCE).
      {
        client_id: HOST_CLIENT.id,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [HOST_CLIENT.redirectUri],
        token_endpoint_auth_method: 'none',
        scope: SCOPES.join(' '),
      },
    ],
    // Any login is a user of that name (the default says so on the console, each time).
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    // Client metadata `scope` may only name scopes the provider lists.
    scopes: ['openid', 'offline_access', ...SCOPES],
    jwks: { keys: [key] },
    // The defaults name RS256, for which there is no key here.
    clientDefaults: {
      id_token_signed_response_alg: 'ES256',
      grant_types: ['client_credentials'],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    routes: { jwks: JWKS_PATH },
    // Set, so that the defaults' console notices ("you SHOULD change it") stay quiet.
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
    },
    clientBasedCORS: () => true,
    features: {
      // Its default page warns on the console at start; no flow here needs it.
      devInteractions: { enabled: options.users === true },
      clientCredentials: { enabled: true },
      // RFC 7662, for opaque tokens; oidc-provider introspects only those, not JWTs.
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
          if (!knownResource(resourceIndicator)) throw new errors.InvalidTarget();
          return {
            scope: SCOPES.join(' '),
            audience: resourceIndicator,
            accessTokenTTL: ttl,
            accessTokenFormat: options.accessTokenFormat ?? 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
  });

  const start = async (): Promise<void> => {
    // The provider needs its issuer, which holds the port: made once the server listens.
    let handle: Listener | undefined;
    const listening = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.headers[OWN_REQUEST] === undefined) {
        if (path === JWKS_PATH) jwksFetches += 1;
        if (DISCOVERY_PATHS.has(path)) discoveryFetches += 1;
        if (path === INTROSPECTION_PATH) introspections += 1;
      }
      if (handle === undefined) res.writeHead(503).end();
      else void handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        listening.off('error', reject);
        resolve();
      });
    });
    port = (listening.address() as { port: number }).port;
    issuer = `http://127.0.0.1:${port}`;
    handle = new Provider(issuer, configuration(privateJwk)).callback();
    server = listening;
  };

  const stop = async (): Promise<void> => {
    const listening = server;
    if (listening === undefined) return;
    server = undefined;
    const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
    // close() waits for open (keep-alive) connections, which clients may hold for seconds.
    listening.closeAllConnections();
    await closed;
  };

  const token = async ({ resource, scope, clientId = 'disk-agent' }: { resource: string; scope?: string; clientId?: string }): Promise<string> => {
    const client = CLIENTS.find(({ id }) => id === clientId);
    if (client === undefined) throw new Error(`no client ${clientId}; there are ${CLIENTS.map(({ id }) => id).join(', ')}`);
    const discovery = await fetch(`${issuer}/.well-known/openid-configuration`, { headers: { [OWN_REQUEST]: '1' } });
    const { token_endpoint: endpoint } = (await discovery.json()) as { token_endpoint: string };
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
    if (scope !== undefined) body.set('scope', scope);
    // RFC 6749 2.3.1: id and secret are form-encoded before they are joined for Basic.
    const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64');
    const reply = await fetch(endpoint, { method: 'POST', headers: { authorization: `Basic ${basic}` }, body });
    const text = await reply.text();
    if (reply.status !== 200) throw new Error(`token endpoint answered ${reply.status}: ${text}`);
    return (JSON.parse(text) as { access_token: string }).access_token;
  };

  await start();
  return {
    get issuer() {
      return issuer;
    },
    get jwksFetches() {
      return jwksFetches;
    },
    get discoveryFetches() {
      return discoveryFetches;
    },
    get introspections() {
      return introspections;
    },
    get privateJwk() {
      return privateJwk;
    },
    token,
    stop,
    rotate: async () => {
      await stop();
      privateJwk = await newSigningKey();
      await start();
    },
  };
}
