// The test authorization server itself (test/helpers/authServer.ts): its
// discovery, the access tokens it issues (RFC 9068 JWTs, checked claim by
// claim and against its JWKS), what it refuses, key rotation and stopping.
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type AuthServer, CLIENTS, startAuthServer } from '../helpers/authServer.js';
import { freePort } from '../helpers/prometheus.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';

async function getJson<T>(url: string): Promise<T> {
  const reply = await fetch(url);
  expect(reply.status).toBe(200);
  return (await reply.json()) as T;
}

/** The server's JWKS, fetched as a resource server would (from the discovery's jwks_uri). */
async function jwks(server: AuthServer): Promise<JSONWebKeySet> {
  const { jwks_uri } = await getJson<{ jwks_uri: string }>(`${server.issuer}/.well-known/openid-configuration`);
  return getJson<JSONWebKeySet>(jwks_uri);
}

describe('the test authorization server', () => {
  let server: AuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves both discovery documents, naming itself and its JWKS, and counts the fetches', async () => {
    expect(server.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = server.discoveryFetches;
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const document = await getJson<Record<string, unknown>>(`${server.issuer}${path}`);
      expect(document.issuer).toBe(server.issuer);
      expect(document.jwks_uri).toBe(`${server.issuer}/jwks`);
      expect(document.grant_types_supported).toContain('client_credentials');
    }
    expect(server.discoveryFetches).toBe(before + 2);
  });

  it('issues an ES256 at+jwt for the resource, with the scope asked for, which its JWKS verifies', async () => {
    const token = await server.token({ resource: RESOURCE, scope: 'diskprobe:read' });
    expect(decodeProtectedHeader(token)).toEqual({ typ: 'at+jwt', alg: 'ES256', kid: server.privateJwk.kid });
    const now = Math.floor(Date.now() / 1000);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ iss: server.issuer, aud: RESOURCE, scope: 'diskprobe:read', client_id: 'disk-agent', sub: 'disk-agent' });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(claims.exp).toBeGreaterThan(now);
    expect(typeof claims.jti).toBe('string');

    const before = server.jwksFetches;
    const keys = await jwks(server);
    expect(server.jwksFetches).toBe(before + 1);
    const { payload } = await jwtVerify(token, createLocalJWKSet(keys), { issuer: server.issuer, audience: RESOURCE, typ: 'at+jwt' });
    expect(payload.scope).toBe('diskprobe:read');
  });

  it('names the client that asked, and drops scopes the resource server does not grant', async () => {
    const token = await server.token({ resource: 'http://localhost:8080/mcp', scope: 'diskprobe other:scope admin', clientId: CLIENTS[1]!.id });
    expect(decodeJwt(token)).toMatchObject({ aud: 'http://localhost:8080/mcp', scope: 'diskprobe other:scope', client_id: 'other-agent' });
    // Without a scope parameter the token carries none: no default scope is granted.
    expect(decodeJwt(await server.token({ resource: RESOURCE }))).not.toHaveProperty('scope');
    // Scopes the provider lists but the client may not ask for (openid) are refused outright.
    await expect(server.token({ resource: RESOURCE, scope: 'openid' })).rejects.toThrow(/invalid_scope/);
  });

  it('issues tokens for https://other.example (a wrong audience for the tests), and refuses unknown resources', async () => {
    expect(decodeJwt(await server.token({ resource: 'https://other.example/mcp' })).aud).toBe('https://other.example/mcp');
    await expect(server.token({ resource: 'https://evil.example/x' })).rejects.toThrow(/400.*invalid_target/);
    await expect(server.token({ resource: RESOURCE, clientId: 'nobody' })).rejects.toThrow(/no client nobody/);
  });

  it('gives out its private key: a token forged with it verifies against the JWKS', async () => {
    const key = await importJWK(server.privateJwk, 'ES256');
    const forged = await new SignJWT({ scope: 'diskprobe', client_id: 'disk-agent' })
      .setProtectedHeader({ typ: 'at+jwt', alg: 'ES256', kid: server.privateJwk.kid! })
      .setIssuer(server.issuer)
      .setAudience(RESOURCE)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key);
    await expect(jwtVerify(forged, createLocalJWKSet(await jwks(server)), { issuer: server.issuer, audience: RESOURCE })).resolves.toBeDefined();
  });
});

describe('startAuthServer options, rotate() and stop()', () => {
  it('listens on the port given, with the token lifetime given', async () => {
    const port = await freePort();
    const server = await startAuthServer({ port, accessTokenTtl: 5 });
    try {
      expect(server.issuer).toBe(`http://127.0.0.1:${port}`);
      const claims = decodeJwt(await server.token({ resource: RESOURCE }));
      expect(claims.exp! - claims.iat!).toBe(5);
    } finally {
      await server.stop();
    }
  });

  it('rotates to a new key on the same issuer and port: the JWKS holds only the new one, and old tokens no longer verify', async () => {
    const server = await startAuthServer();
    try {
      const issuer = server.issuer;
      const oldKid = server.privateJwk.kid;
      const oldToken = await server.token({ resource: RESOURCE });
      expect((await jwks(server)).keys.map(({ kid }) => kid)).toEqual([oldKid]);
      const fetches = server.jwksFetches;

      await server.rotate();
      expect(server.issuer).toBe(issuer);
      expect(server.privateJwk.kid).not.toBe(oldKid);
      const keys = await jwks(server);
      expect(keys.keys.map(({ kid }) => kid)).toEqual([server.privateJwk.kid]);
      // The JWKS holds public keys only.
      expect(keys.keys[0]).not.toHaveProperty('d');
      expect(server.jwksFetches).toBe(fetches + 1);
      expect(decodeProtectedHeader(await server.token({ resource: RESOURCE })).kid).toBe(server.privateJwk.kid);
      await expect(jwtVerify(oldToken, createLocalJWKSet(keys))).rejects.toThrow(/no applicable key/i);
    } finally {
      await server.stop();
    }
  });

  it('stops: the port refuses connections, even from a client that held one open', async () => {
    const server = await startAuthServer();
    // A keep-alive connection to the server, which stop() must close rather than wait for.
    await getJson(`${server.issuer}/.well-known/openid-configuration`);
    await server.stop();
    const refused = await fetch(`${server.issuer}/.well-known/openid-configuration`).then(
      () => undefined,
      (error: unknown) => ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code,
    );
    expect(refused).toBe('ECONNREFUSED');
    // A second stop() is harmless.
    await server.stop();
  });
});
