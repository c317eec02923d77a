// `serve --http --auth-issuer` and `metrics --listen --auth-issuer` end to
// end: the built command as an OAuth 2.1 resource server (2026-07-28
// basic/authorization), a real authorization server (oidc-provider, in
// test/helpers/authServer.ts) issuing RFC 9068 JWTs, and the official SDK
// clients doing the whole dance themselves: the 401, the protected resource
// metadata, the authorization server's metadata, the client credentials
// grant with a resource indicator, and the retry. Every way a token can be
// wrong is then tried by hand, with tokens forged with the issuer's own key
// where the authorization server would not issue them.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

import {
  Client as ClientV2,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  ClientCredentialsProvider as ProviderV2,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { ClientCredentialsProvider as ProviderV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type AuthServer, CLIENTS, HOST_CLIENT, RESOURCE_SERVER, startAuthServer } from '../helpers/authServer.js';
import { type PrometheusTools, prometheusTools, startPrometheus } from '../helpers/prometheus.js';
import { announceSkip, projectRoot, tempDir } from '../helpers/system.js';

interface Running {
  readonly child: ChildProcess;
  /** The URL it serves (…/mcp or …/metrics), which is also its default audience. */
  readonly url: string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
});

/** Starts `diskprobe <command> ...args`; resolves once it has said where it listens and what tokens it takes. */
async function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const child = spawn(process.execPath, [join(projectRoot, 'dist/bin/diskprobe.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DISKPROBE_TOKEN: '', ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving \w+ on (http:\/\/\S+)/.exec(stderr);
      if (match && stderr.includes('OAuth: access tokens from')) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
  });
  const server = { child, url, stderr: () => stderr, exited };
  running.push(server);
  return server;
}

const serveMcp = (issuer: string, ...more: string[]) => start(['serve', '--http', '127.0.0.1:0', '--auth-issuer', issuer, ...more]);

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** A 2026-07-28 tools/list, with `token` as the bearer token (none when undefined), to `url`. */
function listTools(url: string, token: string | undefined, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...JSON_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
  });
}

/** The challenge's parameters, parsed (RFC 6750 §3: Bearer auth-param, auth-param…). */
function challengeOf(response: Response): Record<string, string> {
  const header = response.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
}

const tools = prometheusTools();

let as: AuthServer;
beforeAll(async () => {
  as = await startAuthServer();
});
afterAll(async () => {
  await as.stop();
});

/** A token the authorization server would sign, with `claims` over a valid access token's, signed with `key` (the issuer's own by default). */
async function forge(audience: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key: JWK = as.privateJwk): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: as.issuer,
    aud: audience,
    sub: 'forger',
    client_id: 'disk-agent',
    scope: 'diskprobe:read',
    iat: now,
    exp: now + 300,
    jti: randomUUID(),
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid!, ...header })
    .sign(await importJWK(key, 'ES256'));
}

describe('the protected resource metadata and the challenge', () => {
  it('are served without a token, at the path-inserted and root well-known URLs', async () => {
    const server = await serveMcp(as.issuer);
    const expected = {
      resource: server.url,
      authorization_servers: [as.issuer],
      scopes_supported: ['diskprobe:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'diskprobe',
    };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(new URL(path, server.url));
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual(expected);
    }
    expect((await fetch(new URL('/.well-known/oauth-protected-resource/other', server.url))).status).toBe(404);
    expect((await fetch(new URL('/.well-known/oauth-protected-resource', server.url), { method: 'POST' })).status).toBe(405);
  });

  it('a request without a token gets 401 with resource_metadata and scope, and no error code (RFC 6750 §3.1)', async () => {
    const server = await serveMcp(as.issuer, '--auth-scope', 'diskprobe:read', '--auth-scope', 'diskprobe:metrics');
    const response = await listTools(server.url, undefined);
    expect(response.status).toBe(401);
    expect(challengeOf(response)).toEqual({
      resource_metadata: new URL('/.well-known/oauth-protected-resource/mcp', server.url).href,
      scope: 'diskprobe:read diskprobe:metrics',
    });
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain('Authorization: Bearer');
  });

  it('--auth-audience names the resource, and the metadata moves with its path', async () => {
    const server = await serveMcp(as.issuer, '--auth-audience', 'https://disks.example.com/team/mcp');
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/team/mcp', server.url));
    expect(await response.json()).toMatchObject({ resource: 'https://disks.example.com/team/mcp' });
    const refused = await listTools(server.url, undefined);
    expect(challengeOf(refused).resource_metadata).toBe('https://disks.example.com/.well-known/oauth-protected-resource/team/mcp');
    // A token for the server's own address is not one for the audience it was told to be.
    const own = await as.token({ resource: server.url, scope: 'diskprobe:read' });
    expect((await listTools(server.url, own)).status).toBe(401);
  });
});

describe('the official SDK clients, with the client credentials grant', () => {
  it('the v2 client discovers everything from the 401, gets a token, lists and calls tools (2026-07-28)', async () => {
    const server = await serveMcp(as.issuer);
    const fetches = as.discoveryFetches;
    const { id, secret } = CLIENTS[0]!;
    const transport = new TransportV2(new URL(server.url), {
      authProvider: new ProviderV2({ clientId: id, clientSecret: secret, expectedIssuer: as.issuer }),
    });
    const client = new ClientV2({ name: 'oauth-test-v2', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('disk_usage');
      const result = await client.callTool({ name: 'disk_usage', arguments: { path: '/' } });
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.structuredContent)).toContain('"total"');
      // It found the authorization server through the metadata, as a host does.
      expect(as.discoveryFetches).toBeGreaterThan(fetches);
    } finally {
      await client.close();
    }
  });

  it('the v1 client opens a 2025-11-25 session with its token; another client cannot use that session', async () => {
    const server = await serveMcp(as.issuer);
    const { id, secret } = CLIENTS[0]!;
    const transport = new TransportV1(new URL(server.url), {
      // v1's client credentials grant asks for the provider's scope, not the challenge's (v2 reads the challenge).
      authProvider: new ProviderV1({ clientId: id, clientSecret: secret, expectedIssuer: as.issuer, scope: 'diskprobe:read' }),
    });
    const client = new ClientV1({ name: 'oauth-test-v1', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('list_mounts');
      const sessionId = transport.sessionId!;
      expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
      // The session is bound to the token's subject (security-considerations.mdx): another client's valid token does not reach it.
      const other = await as.token({ resource: server.url, scope: 'diskprobe:read', clientId: CLIENTS[1]!.id });
      const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
      const headers = { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      const stolen = await fetch(server.url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${other}` }, body });
      expect(stolen.status).toBe(404);
      const mine = await as.token({ resource: server.url, scope: 'diskprobe:read' });
      const own = await fetch(server.url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${mine}` }, body });
      expect(own.status).toBe(200);
      // Nor can it end the session.
      const ended = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${other}` } });
      expect(ended.status).toBe(404);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

/** What a browser does for a user at the authorization server's pages: follows redirects, keeps cookies, fills the login and consent forms; resolves with the callback's parameters. */
async function signIn(authorizationUrl: URL, login: string): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl.href;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step++) {
    const response = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      body: form ?? null,
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      // An empty value or an expiry in 1970 deletes the cookie.
      if (at === pair.length - 1 || /expires=Thu, 01 Jan 1970/i.test(cookie)) cookies.delete(pair.slice(0, at));
      else cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    const text = await response.text();
    if (location !== null) {
      const next = new URL(location, url);
      if (next.href.startsWith(HOST_CLIENT.redirectUri)) return next.searchParams;
      url = next.href;
      form = undefined;
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(text)?.[1];
    if (action === undefined) throw new Error(`no form and no redirect at ${url} (${response.status}): ${text.slice(0, 300)}`);
    url = new URL(action, url).href;
    // oidc-provider's development pages: a login form (any login), then a consent form; each says which in a hidden field.
    form = new URLSearchParams();
    for (const input of text.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      if (name !== undefined) form.set(name, /value="([^"]*)"/.exec(input[0])?.[1] ?? '');
    }
    if (form.has('login')) form.set('login', login);
    if (form.has('password')) form.set('password', 'any');
  }
  throw new Error('the sign-in did not end at the redirect URI');
}

/** A desktop host's OAuth state: a public client (PKCE), its tokens in memory, the authorization URL kept for the test to visit. */
class HostProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  get redirectUrl(): string {
    return HOST_CLIENT.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'desktop host', redirect_uris: [HOST_CLIENT.redirectUri], grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation(): { client_id: string } {
    return { client_id: HOST_CLIENT.id };
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

describe('a user signing in, as a desktop host does (authorization code with PKCE)', () => {
  it('the v2 client is sent to sign in, finishes with the code, and then lists and calls tools as that user', async () => {
    const users = await startAuthServer({ users: true });
    try {
      const server = await serveMcp(users.issuer);
      const provider = new HostProvider();
      const first = new TransportV2(new URL(server.url), { authProvider: provider });
      await expect(new ClientV2({ name: 'host', version: '1.0.0' }).connect(first)).rejects.toThrow(/nauthorized/);
      const authorizationUrl = provider.authorizationUrl!;
      // PKCE (S256), the resource indicator and the challenge's scope, as the spec asks of a client.
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(server.url);
      expect(authorizationUrl.searchParams.get('scope')).toContain('diskprobe:read');
      await first.finishAuth(await signIn(authorizationUrl, 'ada'));
      const token = provider.tokens()!.access_token;
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; aud: string };
      expect(claims).toMatchObject({ sub: 'ada', aud: server.url });
      const client = new ClientV2({ name: 'host', version: '1.0.0' });
      await client.connect(new TransportV2(new URL(server.url), { authProvider: provider }));
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('disk_usage');
        expect((await client.callTool({ name: 'disk_usage', arguments: { path: '/' } })).isError ?? false).toBe(false);
      } finally {
        await client.close();
      }
    } finally {
      await users.stop();
    }
  });
});

describe('tokens that are refused', () => {
  let server: Running;
  beforeAll(async () => {
    server = await serveMcp(as.issuer);
    running.splice(running.indexOf(server), 1); // kept for the whole block
  });
  afterAll(() => {
    server.child.kill('SIGKILL');
  });

  /** Expects 401 invalid_token whose description contains `why`. */
  async function refused(token: string, why: string | RegExp): Promise<void> {
    const response = await listTools(server.url, token);
    expect(response.status).toBe(401);
    const params = challengeOf(response);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toMatch(why);
    expect(params.resource_metadata).toBe(new URL('/.well-known/oauth-protected-resource/mcp', server.url).href);
  }

  it('a real token for this server is accepted, and a forged one like it too (the forgery is sound)', async () => {
    expect((await listTools(server.url, await as.token({ resource: server.url, scope: 'diskprobe:read' }))).status).toBe(200);
    expect((await listTools(server.url, await forge(server.url))).status).toBe(200);
    // A broader scope implies the narrower one (index.mdx, "Step-Up Authorization Flow").
    expect((await listTools(server.url, await as.token({ resource: server.url, scope: 'diskprobe' }))).status).toBe(200);
    // Entra ID's scp, Okta's array.
    expect((await listTools(server.url, await forge(server.url, { scope: undefined, scp: 'diskprobe:read' }))).status).toBe(200);
    expect((await listTools(server.url, await forge(server.url, { scope: undefined, scp: ['x', 'diskprobe:read'] }))).status).toBe(200);
  });

  it('a token for another resource (wrong audience)', async () => {
    await refused(await as.token({ resource: 'https://other.example/mcp', scope: 'diskprobe:read' }), /not for this server.*audience must include http/);
    await refused(await forge(server.url.replace('/mcp', '/other')), /audience/);
  });

  it('a token from an issuer this server does not trust', async () => {
    const stranger = await startAuthServer();
    try {
      await refused(
        await stranger.token({ resource: server.url, scope: 'diskprobe:read' }),
        /issuer 'http:\/\/127\.0\.0\.1:\d+' is not one this server trusts/,
      );
      // Claiming the trusted issuer does not help: the stranger's key is not the issuer's.
      await refused(await forge(server.url, {}, { kid: as.privateJwk.kid }, stranger.privateJwk), /signature does not verify/);
    } finally {
      await stranger.stop();
    }
  });

  it('an expired token, and one not valid yet, beyond the 30 s leeway', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(await forge(server.url, { iat: now - 600, exp: now - 31 }), /expired/);
    expect((await listTools(server.url, await forge(server.url, { iat: now - 600, exp: now - 10 }))).status).toBe(200);
    await refused(await forge(server.url, { nbf: now + 120 }), /not valid yet/);
    await refused(await forge(server.url, { exp: undefined }), /exp/);
  });

  it('a bad signature, and an unknown kid', async () => {
    const token = await forge(server.url);
    const [head, body, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    await refused(`${head}.${body}.${flipped}`, /signature does not verify/);
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const unknown = { ...(await exportJWK(privateKey)), kid: 'no-such-key', alg: 'ES256' };
    await refused(await forge(server.url, {}, {}, unknown), /no key 'no-such-key'/);
  });

  it("alg none, and HS256 'signed' with the issuer's public key", async () => {
    const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: as.issuer, aud: server.url, sub: 'x', scope: 'diskprobe:read', iat: now, exp: now + 300 };
    await refused(`${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims)}.`, /alg 'none' is not accepted/);
    const { d: _private, ...publicJwk } = as.privateJwk;
    const hmacKey = new TextEncoder().encode(JSON.stringify(publicJwk));
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: as.privateJwk.kid! }).sign(hmacKey);
    await refused(confused, /alg 'HS256' is not accepted/);
  });

  it('an ID token (typ JWT), an opaque token, and a header that is not Bearer', async () => {
    await refused(await forge(server.url, {}, { typ: 'JWT' }), /typ is 'JWT', not at\+jwt.*--auth-plain-jwt/);
    await refused(randomUUID(), /not a JWT/);
    // Another scheme is no token: the plain challenge, no error code (RFC 6750 §3.1).
    const basic = await listTools(server.url, undefined, { authorization: 'Basic ZGlzazpwcm9iZQ==' });
    expect(basic.status).toBe(401);
    expect(challengeOf(basic).error).toBeUndefined();
    const malformed = await listTools(server.url, undefined, { authorization: 'Bearer two words' });
    expect(challengeOf(malformed).error).toBe('invalid_token');
  });

  it('a token without the scope gets 403 insufficient_scope, naming every scope needed', async () => {
    const response = await listTools(server.url, await as.token({ resource: server.url, scope: 'other:scope' }));
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toMatchObject({ error: 'insufficient_scope', scope: 'diskprobe:read' });
    // A look-alike is no broader scope: prefixes count by ':' parts.
    expect((await listTools(server.url, await forge(server.url, { scope: 'diskprobe:readonly disk' }))).status).toBe(403);
  });

  it('a token in the query string is refused, even a valid one, however the query is written (index.mdx, "Access Token Usage")', async () => {
    const token = await as.token({ resource: server.url, scope: 'diskprobe:read' });
    for (const query of [`?access_token=${token}`, `?a=1&access_token=${token}`, `?a=1?access_token=${token}`, `?ACCESS_TOKEN=${token}`]) {
      const response = await listTools(`${server.url}${query}`, token);
      expect(response.status, query).toBe(400);
      expect(challengeOf(response).error).toBe('invalid_request');
    }
    expect((await listTools(`${server.url}?not_access_token=1`, token)).status).toBe(200);
  });

  it('a header no JWT library would make (typ a number) is refused, and the server goes on', async () => {
    const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    await refused(`${encode({ alg: 'ES256', typ: 1 })}.${encode({})}.AAAA`, /typ is 1/);
    expect((await listTools(server.url, await forge(server.url))).status).toBe(200);
  });

  it('a token bound to a key (cnf: DPoP, mTLS) is no bearer token', async () => {
    await refused(await forge(server.url, { cnf: { jkt: 'x'.repeat(43) } }), /bound to a key/);
  });
});

describe('no token passthrough (index.mdx, "Token Handling")', () => {
  it("a fleet tool's queries carry the server's own Prometheus credential, never the client's token", async () => {
    const seen: (string | undefined)[] = [];
    const prometheus = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
    });
    await new Promise<void>((resolve) => prometheus.listen(0, '127.0.0.1', resolve));
    try {
      const dir = tempDir('diskprobe-passthrough-');
      writeFileSync(join(dir, 'prometheus-token'), 'prometheus-own-token-0123456789\n');
      const { port } = prometheus.address() as { port: number };
      const server = await serveMcp(as.issuer, '--prometheus', `http://127.0.0.1:${port}`, '--prometheus-token-file', join(dir, 'prometheus-token'));
      const token = await as.token({ resource: server.url, scope: 'diskprobe:read' });
      const response = await fetch(server.url, {
        method: 'POST',
        headers: {
          ...JSON_HEADERS,
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'fleet_disk_usage',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fleet_disk_usage', arguments: {}, _meta: META } }),
      });
      expect(response.status).toBe(200);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer prometheus-own-token-0123456789']));
    } finally {
      await new Promise((resolve) => prometheus.close(resolve));
    }
  });
});

describe('the authorization server changes or fails', () => {
  it('a rotated key is accepted within 30 s of its first use, and a flood of unknown kids costs at most one fetch', async () => {
    const own = await startAuthServer();
    try {
      const server = await serveMcp(own.issuer);
      expect((await listTools(server.url, await own.token({ resource: server.url, scope: 'diskprobe:read' }))).status).toBe(200);
      const before = own.jwksFetches;
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const stranger = await exportJWK(privateKey);
      const flood = await Promise.all(
        Array.from({ length: 200 }, async (_, index) => {
          const key = { ...stranger, kid: `made-up-${index}`, alg: 'ES256' };
          const now = Math.floor(Date.now() / 1000);
          const token = await new SignJWT({ iss: own.issuer, aud: server.url, scope: 'diskprobe:read', iat: now, exp: now + 60 })
            .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
            .sign(await importJWK(key, 'ES256'));
          return (await listTools(server.url, token)).status;
        }),
      );
      expect(new Set(flood)).toEqual(new Set([401]));
      expect(own.jwksFetches - before).toBeLessThanOrEqual(1);

      await own.rotate();
      const rotated = await own.token({ resource: server.url, scope: 'diskprobe:read' });
      const first = performance.now();
      let status = 0;
      while (performance.now() - first < 30_000) {
        status = (await listTools(server.url, rotated)).status;
        if (status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(status).toBe(200);
      expect(performance.now() - first).toBeLessThan(30_000);
    } finally {
      await own.stop();
    }
  }, 60_000);

  it('with the authorization server stopped and no keys held: 503 with Retry-After, fast, and never 200', async () => {
    const own = await startAuthServer();
    const issuer = own.issuer;
    const token = await own.token({ resource: 'http://127.0.0.1:9/mcp', scope: 'diskprobe:read' });
    await own.stop();
    const server = await serveMcp(issuer);
    expect(server.stderr()).toMatch(/OAuth: access tokens from/);
    const started = performance.now();
    const response = await listTools(server.url, token);
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The caller learns when to retry; the why (addresses, errors) is for the operator's log.
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toMatch(/the authorization server cannot be asked to check this token now: retry in \d+ s$/);
    expect(performance.now() - started).toBeLessThan(6_000);
    await expect.poll(() => server.stderr()).toMatch(/OAuth: cannot fetch the signing keys of http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
    // The start-up fetch failed too, and said so.
    await expect.poll(() => server.stderr(), { timeout: 6_000 }).toMatch(/requests are answered 503 until its keys can be fetched/);
  }, 30_000);

  it('with keys held, an authorization server that goes down changes nothing for valid tokens', async () => {
    const own = await startAuthServer();
    try {
      const server = await serveMcp(own.issuer);
      const token = await own.token({ resource: server.url, scope: 'diskprobe:read' });
      expect((await listTools(server.url, token)).status).toBe(200);
      await own.stop();
      expect((await listTools(server.url, token)).status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});

describe('opaque tokens, introspected (RFC 7662, --auth-introspection)', () => {
  it('are accepted when active and for this server, asked once a minute per token, and refused otherwise', async () => {
    const opaque = await startAuthServer({ accessTokenFormat: 'opaque' });
    try {
      const file = join(tempDir('diskprobe-introspection-'), 'client.json');
      writeFileSync(file, JSON.stringify({ client_id: RESOURCE_SERVER.id, client_secret: RESOURCE_SERVER.secret }));
      const server = await serveMcp(opaque.issuer, '--auth-introspection', file);
      const token = await opaque.token({ resource: server.url, scope: 'diskprobe:read' });
      expect(token.split('.')).toHaveLength(1);
      const before = opaque.introspections;
      for (let i = 0; i < 5; i++) expect((await listTools(server.url, token)).status).toBe(200);
      expect(opaque.introspections - before).toBe(1);
      const elsewhere = await opaque.token({ resource: 'https://other.example/mcp', scope: 'diskprobe:read' });
      const wrong = await listTools(server.url, elsewhere);
      expect(wrong.status).toBe(401);
      expect(challengeOf(wrong).error_description).toMatch(/not for this server/);
      const narrow = await listTools(server.url, await opaque.token({ resource: server.url, scope: 'other:scope' }));
      expect(narrow.status).toBe(403);
      const made = await listTools(server.url, randomUUID());
      expect(made.status).toBe(401);
      expect(challengeOf(made).error_description).toMatch(/not active/);
      // JWTs are still verified locally, never sent to the issuer.
      const calls = opaque.introspections;
      expect((await listTools(server.url, await forge(server.url))).status).toBe(401);
      expect(opaque.introspections).toBe(calls);
    } finally {
      await opaque.stop();
    }
  });

  it('wrong credentials for the resource server are a 503 that says so, never an acceptance', async () => {
    const opaque = await startAuthServer({ accessTokenFormat: 'opaque' });
    try {
      const file = join(tempDir('diskprobe-introspection-'), 'client.json');
      writeFileSync(file, JSON.stringify({ client_id: RESOURCE_SERVER.id, client_secret: 'wrong-secret-0123456789' }));
      const server = await serveMcp(opaque.issuer, '--auth-introspection', file);
      const response = await listTools(server.url, await opaque.token({ resource: server.url, scope: 'diskprobe:read' }));
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { message: string } }).error.message).not.toMatch(/credentials/);
      await expect.poll(() => server.stderr()).toMatch(/refused this server's introspection credentials.*--auth-introspection/);
    } finally {
      await opaque.stop();
    }
  });
});

describe('metrics --listen with OAuth', () => {
  it('a scrape needs a token for /metrics; one for /mcp is not one', async () => {
    const server = await start(['metrics', '--listen', '127.0.0.1:0', '--auth-issuer', as.issuer, '--auth-scope', 'diskprobe:metrics']);
    expect(server.url).toMatch(/\/metrics$/);
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/metrics', server.url));
    expect(await metadata.json()).toMatchObject({ resource: server.url, scopes_supported: ['diskprobe:metrics'] });
    const bare = await fetch(server.url);
    expect(bare.status).toBe(401);
    expect(challengeOf(bare).scope).toBe('diskprobe:metrics');
    const scrape = (token: string) => fetch(server.url, { headers: { authorization: `Bearer ${token}` } });
    const good = await scrape(await as.token({ resource: server.url, scope: 'diskprobe:metrics' }));
    expect(good.status).toBe(200);
    expect(await good.text()).toContain('node_filesystem_size_bytes');
    const mcpToken = await as.token({ resource: server.url.replace(/\/metrics$/, '/mcp'), scope: 'diskprobe:metrics' });
    expect((await scrape(mcpToken)).status).toBe(401);
    expect((await scrape(await as.token({ resource: server.url, scope: 'diskprobe:read' }))).status).toBe(403);
    // A header that is no JWT's gets 401, and the server lives on.
    const odd = `${Buffer.from('{"alg":"RS256","typ":1}').toString('base64url')}.e30.AAAA`;
    expect((await scrape(odd)).status).toBe(401);
    expect((await scrape(await as.token({ resource: server.url, scope: 'diskprobe:metrics' }))).status).toBe(200);
  });
});

describe.skipIf(announceSkip("Debian's Prometheus scraping /metrics with OAuth", typeof tools === 'string' ? tools : undefined))(
  "Debian's Prometheus, getting its own tokens (oauth2 in the scrape configuration, docs/authorization.md)",
  () => {
    it('scrapes with a client credentials token for the /metrics resource, and is refused without one', async () => {
      const server = await start(['metrics', '--listen', '127.0.0.1:0', '--auth-issuer', as.issuer, '--auth-scope', 'diskprobe:metrics']);
      const { id, secret } = CLIENTS[0]!;
      const dir = tempDir('diskprobe-prometheus-oauth-');
      writeFileSync(join(dir, 'client-secret'), secret);
      // The configuration docs/authorization.md shows, with this test's names.
      const oauth2 = [
        '    oauth2:',
        `      client_id: ${id}`,
        `      client_secret_file: ${join(dir, 'client-secret')}`,
        `      token_url: ${as.issuer}/token`,
        '      scopes: [diskprobe:metrics]',
        '      endpoint_params:',
        `        resource: ${server.url}`,
        '',
      ].join('\n');
      const address = new URL(server.url).host;
      const withToken = await startPrometheus(tools as PrometheusTools, join(dir, 'with'), [{ address }], 'diskprobe', oauth2);
      const without = await startPrometheus(tools as PrometheusTools, join(dir, 'without'), [{ address }], 'bare');
      try {
        await expect.poll(async () => (await withToken.query('up{job="diskprobe"}'))[0]?.value[1], { timeout: 20_000, interval: 500 }).toBe('1');
        expect((await withToken.query('node_filesystem_size_bytes')).length).toBeGreaterThan(0);
        await expect.poll(async () => (await without.query('up{job="bare"}'))[0]?.value[1], { timeout: 20_000, interval: 500 }).toBe('0');
      } finally {
        await withToken.stop();
        await without.stop();
      }
    }, 60_000);
  },
);

describe('start-up', () => {
  it('refuses --auth-issuer together with DISKPROBE_TOKEN, saying which to drop', async () => {
    const child = spawn(process.execPath, [join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0', '--auth-issuer', as.issuer], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DISKPROBE_TOKEN: 'static-token-0123456789abcdef' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('DISKPROBE_TOKEN is set, and --auth-issuer asks for OAuth tokens');
  });

  it('listens off loopback with OAuth alone, and names itself by --auth-audience', async () => {
    const server = await start(['serve', '--http', '0.0.0.0:0', '--auth-issuer', as.issuer, '--auth-audience', 'https://disks.example.com/mcp']);
    expect(server.stderr()).toContain('for https://disks.example.com/mcp, with scope diskprobe:read');
  });
});
