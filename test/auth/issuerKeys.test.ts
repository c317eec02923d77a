// One issuer's signing keys (src/transport/http/auth/issuerKeys.ts), against a real
// authorization server (oidc-provider, test/helpers/authServer.ts) and small
// node:http / node:net servers that misbehave on purpose: discovery, caching,
// unknown kids, rotation, a server that is down or never answers, stale keys
// kept when a refetch fails, and answers that are no key set.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';

import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { IssuerKeys, type KeyFetchPolicy } from '../../dist/transport/http/auth/issuerKeys.js';
import { IssuerUnavailable, isSecureEnough, metadataUrls } from '../../dist/transport/http/auth/issuerMetadata.js';
import { type AuthServer, startAuthServer } from '../helpers/authServer.js';
import { freePort } from '../helpers/prometheus.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
/** Small, so the tests are quick: a refetch by kid at most every 300 ms, another try 300 ms after a failure. */
const POLICY: KeyFetchPolicy = { timeoutMs: 500, cooldownMs: 300, maxAgeMs: 60_000, retryMs: 300 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A clock the test moves by hand (milliseconds). */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** What the resolver is called with when the test asks it directly, without a token. */
const HEADER = { alg: 'ES256', kid: 'some-kid' };
const INPUT = { payload: '', signature: '' };

/** The error `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

/** A token for RESOURCE signed with `privateJwk` (the issuer's real key, or any other), naming `kid`. */
async function forge(issuer: string, privateJwk: jose.JWK, kid = privateJwk.kid!): Promise<string> {
  const key = await jose.importJWK(privateJwk, 'ES256');
  return new jose.SignJWT({ scope: 'diskprobe:read', client_id: 'disk-agent' })
    .setProtectedHeader({ typ: 'at+jwt', alg: 'ES256', kid })
    .setIssuer(issuer)
    .setAudience(RESOURCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

/** A fresh ES256 key pair: the private JWK to sign with, the public one to publish. */
async function keyPair(kid = randomUUID()): Promise<{ privateJwk: jose.JWK; publicJwk: jose.JWK }> {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
  return {
    privateJwk: { ...(await jose.exportJWK(privateKey)), kid, alg: 'ES256' },
    publicJwk: { ...(await jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
  };
}

const verify = (token: string, keys: IssuerKeys, issuer = keys.issuer) => jose.jwtVerify(token, keys.resolve, { issuer, audience: RESOURCE });

/** A tiny HTTP server on loopback: `handle` answers, every request's path is recorded. */
async function tinyServer(handle: (req: IncomingMessage, res: ServerResponse, origin: string) => void) {
  const paths: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    handle(req, res, origin);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    paths,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}

const json = (res: ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

describe('metadataUrls', () => {
  it('asks RFC 8414 first, then OpenID Connect, for an issuer without a path', () => {
    const expected = ['https://as.example/.well-known/oauth-authorization-server', 'https://as.example/.well-known/openid-configuration'];
    expect(metadataUrls('https://as.example').map(String)).toEqual(expected);
    expect(metadataUrls('https://as.example/').map(String)).toEqual(expected);
    expect(metadataUrls('http://127.0.0.1:8080').map(String)).toEqual([
      'http://127.0.0.1:8080/.well-known/oauth-authorization-server',
      'http://127.0.0.1:8080/.well-known/openid-configuration',
    ]);
  });

  it('inserts the path (RFC 8414, then OpenID Connect) before appending it (OpenID Connect), a trailing slash dropped', () => {
    const expected = [
      'https://as.example/.well-known/oauth-authorization-server/realms/ops',
      'https://as.example/.well-known/openid-configuration/realms/ops',
      'https://as.example/realms/ops/.well-known/openid-configuration',
    ];
    expect(metadataUrls('https://as.example/realms/ops').map(String)).toEqual(expected);
    expect(metadataUrls('https://as.example/realms/ops/').map(String)).toEqual(expected);
    expect(metadataUrls('https://as.example:8443/t').map(String)).toEqual([
      'https://as.example:8443/.well-known/oauth-authorization-server/t',
      'https://as.example:8443/.well-known/openid-configuration/t',
      'https://as.example:8443/t/.well-known/openid-configuration',
    ]);
  });

  // Resolved against the origin, a path that starts with '//' would be a
  // scheme-relative reference: discovery would ask another host, which may
  // answer with this issuer's name and a jwks_uri of its own.
  it('never leaves the issuer origin, whatever the path', () => {
    for (const issuer of ['https://as.example//evil.example/x', 'https://as.example/a//b']) {
      for (const url of metadataUrls(issuer)) expect(url.origin, `${url}`).toBe('https://as.example');
    }
  });

  it('lets keys travel over https, or http to loopback only', () => {
    expect(isSecureEnough(new URL('https://as.example/jwks'))).toBe(true);
    expect(isSecureEnough(new URL('http://127.0.0.1:8080/jwks'))).toBe(true);
    expect(isSecureEnough(new URL('http://localhost/jwks'))).toBe(true);
    expect(isSecureEnough(new URL('http://[::1]/jwks'))).toBe(true);
    expect(isSecureEnough(new URL('http://as.example/jwks'))).toBe(false);
    expect(isSecureEnough(new URL('ftp://127.0.0.1/jwks'))).toBe(false);
  });
});

describe('IssuerKeys against oidc-provider', () => {
  let server: AuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('finds jwks_uri by discovery, and fetches the keys once for 50 verifications', async () => {
    const keys = new IssuerKeys(server.issuer, jose, POLICY);
    const token = await server.token({ resource: RESOURCE, scope: 'diskprobe:read' });
    const jwks = server.jwksFetches;
    const discovery = server.discoveryFetches;
    for (let i = 0; i < 50; i++) {
      const { payload } = await jose.jwtVerify(token, keys.resolve, { issuer: server.issuer, audience: RESOURCE, typ: 'at+jwt' });
      expect(payload.scope).toBe('diskprobe:read');
    }
    expect(server.jwksFetches).toBe(jwks + 1);
    // The RFC 8414 document answers first, so the OpenID one is not asked for.
    expect(server.discoveryFetches).toBe(discovery + 1);
    expect(keys.fetches).toBe(1);
  });

  it('shares one fetch among 50 verifications that start at once, before any key is held', async () => {
    const keys = new IssuerKeys(server.issuer, jose, POLICY);
    const token = await forge(server.issuer, server.privateJwk);
    const jwks = server.jwksFetches;
    const results = await Promise.all(Array.from({ length: 50 }, () => verify(token, keys)));
    expect(results).toHaveLength(50);
    expect(server.jwksFetches).toBe(jwks + 1);
    expect(keys.fetches).toBe(1);
  });

  it('warms: fetches at start and says nothing, and then needs no fetch to verify', async () => {
    const keys = new IssuerKeys(server.issuer, jose, POLICY);
    const jwks = server.jwksFetches;
    expect(await keys.warm()).toBeUndefined();
    expect(server.jwksFetches).toBe(jwks + 1);
    await verify(await forge(server.issuer, server.privateJwk), keys);
    expect(server.jwksFetches).toBe(jwks + 1);
  });

  it('refetches again once the keys are older than maxAgeMs', async () => {
    const clock = manualClock();
    const keys = new IssuerKeys(server.issuer, jose, POLICY, clock.now);
    const token = await forge(server.issuer, server.privateJwk);
    await verify(token, keys);
    clock.advance(POLICY.maxAgeMs);
    await verify(token, keys);
    expect(keys.fetches).toBe(1);
    clock.advance(1);
    await verify(token, keys);
    // Old keys are refreshed behind the request, which went on with them.
    await expect.poll(() => keys.fetches).toBe(2);
  });

  it('costs at most one fetch per cooldown for a flood of unknown kids, each refused ERR_JWKS_NO_MATCHING_KEY', async () => {
    const clock = manualClock();
    const keys = new IssuerKeys(server.issuer, jose, POLICY, clock.now);
    expect(await keys.warm()).toBeUndefined();
    const stranger = await keyPair();
    const tokens = await Promise.all(Array.from({ length: 100 }, () => forge(server.issuer, stranger.privateJwk, randomUUID())));
    const jwks = server.jwksFetches;

    // Within the cooldown since the fetch: none is fetched again, one after another or all at once.
    for (const token of tokens.slice(0, 50)) expect((await rejection(verify(token, keys))).code).toBe('ERR_JWKS_NO_MATCHING_KEY');
    const together = await Promise.allSettled(tokens.slice(50).map((token) => verify(token, keys)));
    for (const result of together) expect(result).toMatchObject({ status: 'rejected', reason: { code: 'ERR_JWKS_NO_MATCHING_KEY' } });
    expect(server.jwksFetches).toBe(jwks);

    // The cooldown over, the next flood looks once more, and only once.
    clock.advance(POLICY.cooldownMs);
    const again = await Promise.allSettled(tokens.map((token) => verify(token, keys)));
    for (const result of again) expect(result).toMatchObject({ status: 'rejected', reason: { code: 'ERR_JWKS_NO_MATCHING_KEY' } });
    expect(server.jwksFetches).toBe(jwks + 1);
    for (const token of tokens.slice(0, 10)) expect((await rejection(verify(token, keys))).code).toBe('ERR_JWKS_NO_MATCHING_KEY');
    expect(server.jwksFetches).toBe(jwks + 1);

    // The issuer's own tokens still verify, with no fetch.
    await verify(await forge(server.issuer, server.privateJwk), keys);
    expect(server.jwksFetches).toBe(jwks + 1);
  });
});

describe('IssuerKeys and a server that rotates, stops or misbehaves', () => {
  it('accepts a rotated key within the cooldown since the last fetch', async () => {
    const server = await startAuthServer();
    try {
      const keys = new IssuerKeys(server.issuer, jose, POLICY);
      const oldToken = await server.token({ resource: RESOURCE });
      const fetchedAt = performance.now();
      expect(await keys.warm()).toBeUndefined();
      await verify(oldToken, keys);

      await server.rotate();
      // Forged with the new key: the helper's own token() may trip over a keep-alive connection the restart closed.
      const newToken = await forge(server.issuer, server.privateJwk);
      expect(jose.decodeProtectedHeader(newToken).kid).toBe(server.privateJwk.kid);
      const jwks = server.jwksFetches;
      const polling = performance.now();
      let verified: number | undefined;
      while (verified === undefined && performance.now() - polling < POLICY.cooldownMs + 2_000) {
        try {
          await verify(newToken, keys);
          verified = performance.now();
        } catch (error) {
          // Only "not yet", while the cooldown lasts.
          expect((error as { code?: string }).code).toBe('ERR_JWKS_NO_MATCHING_KEY');
          expect(performance.now() - fetchedAt).toBeLessThan(POLICY.cooldownMs + 300);
          await sleep(20);
        }
      }
      expect(verified, 'the new key was never accepted').toBeDefined();
      // Accepted as soon as the cooldown since the last fetch allowed it (or at once, when it had passed already).
      expect(verified! - Math.max(polling, fetchedAt + POLICY.cooldownMs)).toBeLessThan(300);
      // One fetch found it, however many tries were refused before.
      expect(server.jwksFetches).toBe(jwks + 1);
      // The old key is gone from the set: its tokens are refused now.
      expect((await rejection(verify(oldToken, keys))).code).toBe('ERR_JWKS_NO_MATCHING_KEY');
    } finally {
      await server.stop();
    }
  });

  it('says IssuerUnavailable at once when the server is down and no keys are held, and does not ask again within retryMs', async () => {
    const issuer = `http://127.0.0.1:${await freePort()}`;
    const keys = new IssuerKeys(issuer, jose, POLICY);
    let started = performance.now();
    const first = await rejection(keys.resolve(HEADER, INPUT));
    expect(performance.now() - started).toBeLessThan(POLICY.timeoutMs);
    expect(first).toBeInstanceOf(IssuerUnavailable);
    expect(first.message).toContain(issuer);
    expect(first.message).toContain('ECONNREFUSED');
    expect((first as IssuerUnavailable).retryAfterSeconds).toBeGreaterThanOrEqual(1);

    started = performance.now();
    const second = await rejection(keys.resolve(HEADER, INPUT));
    expect(performance.now() - started).toBeLessThan(20);
    expect(second).toBeInstanceOf(IssuerUnavailable);
    expect(second.message).toContain('ECONNREFUSED');
    expect(await keys.warm()).toContain('ECONNREFUSED');
    expect(keys.fetches).toBe(0);
  });

  it('makes no request while retryMs lasts after a failure, says when to retry, and tries again after', async () => {
    const failing = await tinyServer((_req, res) => json(res, { error: 'down' }, 500));
    try {
      const clock = manualClock();
      const keys = new IssuerKeys(failing.origin, jose, { ...POLICY, retryMs: 5_000 }, clock.now);
      const first = await rejection(keys.resolve(HEADER, INPUT));
      expect(first).toBeInstanceOf(IssuerUnavailable);
      // Both metadata documents were asked for, and both answered 500.
      expect(failing.paths).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
      expect(first.message).toContain('no metadata at');
      expect(first.message).toContain('(500)');
      expect((first as IssuerUnavailable).retryAfterSeconds).toBe(5);

      clock.advance(2_500);
      for (let i = 0; i < 20; i++) await expect(keys.resolve(HEADER, INPUT)).rejects.toBeInstanceOf(IssuerUnavailable);
      const later = await rejection(keys.resolve(HEADER, INPUT));
      expect((later as IssuerUnavailable).retryAfterSeconds).toBe(3);
      expect(failing.paths).toHaveLength(2);

      clock.advance(2_500);
      await expect(keys.resolve(HEADER, INPUT)).rejects.toBeInstanceOf(IssuerUnavailable);
      expect(failing.paths).toHaveLength(4);
    } finally {
      await failing.close();
    }
  });

  /** A server that accepts connections and never answers; counts them. */
  async function blackhole() {
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      issuer: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      get connections() {
        return sockets.size;
      },
      close: async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('gives up on a server that never answers within timeoutMs, with one attempt shared by concurrent calls', async () => {
    const silent = await blackhole();
    try {
      const keys = new IssuerKeys(silent.issuer, jose, { ...POLICY, retryMs: 2_000 });
      const started = performance.now();
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => keys.resolve(HEADER, INPUT)));
      const elapsed = performance.now() - started;
      expect(elapsed).toBeLessThan(POLICY.timeoutMs + 300);
      expect(elapsed).toBeGreaterThanOrEqual(POLICY.timeoutMs - 50);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as IssuerUnavailable;
        expect(reason).toBeInstanceOf(IssuerUnavailable);
        expect(reason.message).toContain('no answer in time');
        expect(reason.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      }
      expect(silent.connections).toBeGreaterThanOrEqual(1);
      expect(silent.connections).toBeLessThanOrEqual(2);

      // Within retryMs of that attempt, a call does not wait again.
      const again = performance.now();
      await expect(keys.resolve(HEADER, INPUT)).rejects.toBeInstanceOf(IssuerUnavailable);
      expect(performance.now() - again).toBeLessThan(100);
      expect(silent.connections).toBeLessThanOrEqual(2);
    } finally {
      await silent.close();
    }
  });

  // retryMs counts from when a failed attempt ended. Counted from its start,
  // with the defaults (timeoutMs 5000 = retryMs 5000) the window would have
  // passed by the time a timed-out attempt fails: against a server that never
  // answers, every request would wait the whole timeout, and Retry-After
  // would always be 1.
  it('does not wait out another timeout right after one, with retryMs equal to timeoutMs as in the defaults', async () => {
    const silent = await blackhole();
    try {
      const keys = new IssuerKeys(silent.issuer, jose, { ...POLICY, retryMs: POLICY.timeoutMs });
      const first = await rejection(keys.resolve(HEADER, INPUT));
      expect(first).toBeInstanceOf(IssuerUnavailable);
      expect((first as IssuerUnavailable).retryAfterSeconds).toBeGreaterThanOrEqual(Math.ceil(POLICY.timeoutMs / 1000));
      const connections = silent.connections;
      const again = performance.now();
      await expect(keys.resolve(HEADER, INPUT)).rejects.toBeInstanceOf(IssuerUnavailable);
      expect(performance.now() - again).toBeLessThan(100);
      expect(silent.connections).toBe(connections);
    } finally {
      await silent.close();
    }
  });

  it('keeps verifying with the keys held when they are old and the server is down (stale-if-error), and takes new ones when it is back', async () => {
    const server = await startAuthServer();
    try {
      const clock = manualClock();
      const keys = new IssuerKeys(server.issuer, jose, POLICY, clock.now);
      const issued = await server.token({ resource: RESOURCE });
      const forged = await forge(server.issuer, server.privateJwk);
      expect(await keys.warm()).toBeUndefined();
      await server.stop();

      clock.advance(POLICY.maxAgeMs + 1);
      await verify(issued, keys);
      // The refresh behind that request fails (the server is down) before the clock moves on.
      await settle(keys);
      await verify(forged, keys);
      clock.advance(POLICY.retryMs - 1);
      await verify(issued, keys);
      expect(keys.fetches).toBe(1);

      // Back, with a new key: the next try (retryMs after the failed one) replaces the old keys.
      await server.rotate();
      const jwks = server.jwksFetches;
      const fresh = await forge(server.issuer, server.privateJwk);
      clock.advance(1);
      await verify(fresh, keys);
      expect(server.jwksFetches).toBe(jwks + 1);
      expect(keys.fetches).toBe(2);
      expect((await rejection(verify(issued, keys))).code).toBe('ERR_JWKS_NO_MATCHING_KEY');
    } finally {
      await server.stop();
    }
  });
});

/** Waits until no refresh of `keys` is under way (one runs behind a request once the keys are old). */
async function settle(keys: IssuerKeys): Promise<void> {
  await expect.poll(() => (keys as unknown as { refreshing: unknown }).refreshing).toBeUndefined();
}

describe('IssuerKeys held, and a server gone silent', () => {
  it('answers from the old keys at once while a refresh waits out its timeout behind the request', async () => {
    const server = await startAuthServer();
    const clock = manualClock();
    const keys = new IssuerKeys(server.issuer, jose, { ...POLICY, timeoutMs: 2_000 }, clock.now);
    const token = await forge(server.issuer, server.privateJwk);
    expect(await keys.warm()).toBeUndefined();
    await server.stop();
    // The same port, now accepting connections and never answering.
    const port = Number(new URL(server.issuer).port);
    const sockets = new Set<Socket>();
    const silent = createNetServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      clock.advance(POLICY.maxAgeMs + 1);
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await verify(token, keys);
        expect(performance.now() - started).toBeLessThan(500);
        // Each time a refresh is due again (one that failed at once, on a connection the old server closed, counts too).
        clock.advance(POLICY.retryMs);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // At least one refresh reached the silent server and is still waiting there, behind the requests.
      expect(sockets.size).toBeGreaterThanOrEqual(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('IssuerKeys and documents that are not what they should be', () => {
  /** A server whose RFC 8414 metadata names `issuer` (by default, itself) and points to /jwks, answered by `jwks`. */
  async function issuerWith(
    jwks: (res: ServerResponse) => void,
    metadata: (origin: string) => object = (origin) => ({ issuer: origin, jwks_uri: `${origin}/jwks` }),
  ) {
    return tinyServer((req, res, origin) => {
      if (req.url === '/.well-known/oauth-authorization-server') json(res, metadata(origin));
      else if (req.url === '/jwks') jwks(res);
      else json(res, { error: 'not_found' }, 404);
    });
  }

  it('refuses metadata that names another issuer, naming both, and fetches no keys', async () => {
    const impostor = await issuerWith(
      (res) => json(res, { keys: [] }),
      (origin) => ({ issuer: 'https://impostor.example', jwks_uri: `${origin}/jwks` }),
    );
    try {
      const keys = new IssuerKeys(impostor.origin, jose, POLICY);
      const warned = await keys.warm();
      expect(warned).toContain('"https://impostor.example"');
      expect(warned).toContain(`not ${impostor.origin}`);
      await sleep(POLICY.retryMs);
      const error = await rejection(keys.resolve(HEADER, INPUT));
      expect(error).toBeInstanceOf(IssuerUnavailable);
      expect(error.message).toContain('https://impostor.example');
      expect(impostor.paths).not.toContain('/jwks');
    } finally {
      await impostor.close();
    }
  });

  it('refuses metadata whose issuer differs only by a trailing slash', async () => {
    const slash = await issuerWith(
      (res) => json(res, { keys: [] }),
      (origin) => ({ issuer: `${origin}/`, jwks_uri: `${origin}/jwks` }),
    );
    try {
      expect(await new IssuerKeys(slash.origin, jose, POLICY).warm()).toContain('give --auth-issuer exactly as the server writes it');
    } finally {
      await slash.close();
    }
  });

  it('asks the metadata URLs of an issuer with a path in order, and uses the first that answers', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const realm = await tinyServer((req, res, origin) => {
      if (req.url === '/realms/ops/.well-known/openid-configuration') json(res, { issuer: `${origin}/realms/ops`, jwks_uri: `${origin}/realms/ops/certs` });
      else if (req.url === '/realms/ops/certs') json(res, { keys: [publicJwk] });
      else json(res, { error: 'not_found' }, 404);
    });
    try {
      const issuer = `${realm.origin}/realms/ops`;
      const keys = new IssuerKeys(issuer, jose, POLICY);
      await verify(await forge(issuer, privateJwk), keys);
      expect(realm.paths).toEqual([
        '/.well-known/oauth-authorization-server/realms/ops',
        '/.well-known/openid-configuration/realms/ops',
        '/realms/ops/.well-known/openid-configuration',
        '/realms/ops/certs',
      ]);
      // Discovery is not repeated when the keys are fetched again.
      await sleep(POLICY.cooldownMs);
      await rejection(verify(await forge(issuer, privateJwk, 'unknown'), keys));
      expect(realm.paths.slice(4)).toEqual(['/realms/ops/certs']);
    } finally {
      await realm.close();
    }
  });

  it('refuses a jwks_uri that is plain http off loopback, and metadata without one', async () => {
    const plain = await issuerWith(
      () => undefined,
      (origin) => ({ issuer: origin, jwks_uri: 'http://keys.example/jwks' }),
    );
    const none = await issuerWith(
      () => undefined,
      (origin) => ({ issuer: origin }),
    );
    try {
      expect(await new IssuerKeys(plain.origin, jose, POLICY).warm()).toContain('http://keys.example/jwks is not https');
      expect(await new IssuerKeys(none.origin, jose, POLICY).warm()).toContain('no jwks_uri');
    } finally {
      await plain.close();
      await none.close();
    }
  });

  it('does not follow a redirect of the metadata', async () => {
    const target = await issuerWith((res) => json(res, { keys: [] }));
    const redirecting = await tinyServer((_req, res) => {
      res.writeHead(302, { location: `${target.origin}/.well-known/oauth-authorization-server` }).end();
    });
    try {
      const error = await rejection(new IssuerKeys(redirecting.origin, jose, POLICY).resolve(HEADER, INPUT));
      expect(error).toBeInstanceOf(IssuerUnavailable);
      expect(target.paths).toEqual([]);
    } finally {
      await redirecting.close();
      await target.close();
    }
  });

  // A redirect is not followed, and the message says so, rather than fetch's
  // bare "fetch failed".
  it('says why when the metadata redirects', async () => {
    const redirecting = await tinyServer((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/.well-known/oauth-authorization-server' }).end();
    });
    try {
      expect(await new IssuerKeys(redirecting.origin, jose, POLICY).warm()).toMatch(/redirect/i);
    } finally {
      await redirecting.close();
    }
  });

  const MIB = 1 << 20;
  it.each([
    ['is not JSON', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>keys</html>'), /\/jwks is not JSON/],
    ['answers 500', (res: ServerResponse) => json(res, { error: 'oops' }, 500), /\/jwks answered 500/],
    ['answers 404', (res: ServerResponse) => json(res, { error: 'gone' }, 404), /\/jwks answered 404/],
    [
      'declares more than 1 MiB',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MIB + 10) }).end(' '.repeat(MIB + 10)),
      new RegExp(`/jwks is ${MIB + 10} bytes, more than`),
    ],
    [
      'sends more than 1 MiB, chunked',
      (res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 20; i++) res.write(' '.repeat(64 * 1024));
        res.end('{"keys":[]}');
      },
      new RegExp(`/jwks is more than ${MIB} bytes`),
    ],
    ['is JSON but no key set', (res: ServerResponse) => json(res, { keys: 'none' }), /malformed/i],
  ])('says IssuerUnavailable, and why, when the key set %s', async (_name, jwks, why) => {
    const broken = await issuerWith(jwks);
    try {
      const keys = new IssuerKeys(broken.origin, jose, POLICY);
      const error = await rejection(keys.resolve(HEADER, INPUT));
      expect(error).toBeInstanceOf(IssuerUnavailable);
      expect(error.message).toContain(`cannot fetch the signing keys of ${broken.origin}`);
      expect(error.message).toMatch(why);
      expect(keys.fetches).toBe(0);
      expect(broken.paths).toEqual(['/.well-known/oauth-authorization-server', '/jwks']);
    } finally {
      await broken.close();
    }
  });

  it('keeps the keys held when a later key set is broken', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    let broken = false;
    const flaky = await issuerWith((res) => (broken ? res.writeHead(200).end('not json') : json(res, { keys: [publicJwk] })));
    try {
      const clock = manualClock();
      const keys = new IssuerKeys(flaky.origin, jose, POLICY, clock.now);
      const token = await forge(flaky.origin, privateJwk);
      await verify(token, keys);
      broken = true;
      clock.advance(POLICY.maxAgeMs + 1);
      await verify(token, keys);
      // The refresh runs behind the request: wait for it to have asked, and failed.
      await expect.poll(() => flaky.paths.filter((path) => path === '/jwks')).toHaveLength(2);
      await settle(keys);
      await verify(token, keys);
      expect(keys.fetches).toBe(1);
    } finally {
      await flaky.close();
    }
  });
});
