// The Prometheus client against real HTTP servers in this process, each
// answering as Prometheus's /api/v1/query does, or as the things in front of
// one do when they go wrong: what is sent, what is read back, and that every
// failure is a PrometheusError saying what to do, within the timeout.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { PrometheusClient, type PrometheusConfig, PrometheusError, type Sample } from '../../src/fleet/prometheusClient.js';
import { announceSkip, has, tempDir } from '../helpers/system.js';

/** One request as the server saw it. */
interface Received {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly form: URLSearchParams;
  /** Settles when the client closes the connection before the answer was sent. */
  readonly abandoned: Promise<void>;
}

type Answer = (request: Received, res: ServerResponse) => void;

const servers: (Server | HttpsServer)[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
});

/** Listens on 127.0.0.1, a free port; closed after the test. */
async function listen(server: Server | HttpsServer): Promise<number> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Reads the form, notes the request, then lets `answer` reply (or not). */
function handler(received: Received[], answer: Answer) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const abandoned = new Promise<void>((resolve) =>
        res.on('close', () => {
          if (!res.writableFinished) resolve();
        }),
      );
      const request = { method: req.method, path: req.url, headers: req.headers, form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')), abandoned };
      received.push(request);
      answer(request, res);
    });
  };
}

/** A server on 127.0.0.1 answering each request with `answer`; `base` is its URL, `received` what it was asked. */
async function prometheus(answer: Answer): Promise<{ base: string; received: Received[] }> {
  const received: Received[] = [];
  const port = await listen(createServer(handler(received, answer)));
  return { base: `http://127.0.0.1:${port}`, received };
}

const reply = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const vector = (result: unknown[]) => ({ status: 'success', data: { resultType: 'vector', result } });
/** Answers every query with one sample naming the query, so that answers can be matched to their keys. */
const echo: Answer = (request, res) => reply(res, 200, vector([{ metric: { query: request.form.get('query') }, value: [1, '1'] }]));
const never: Answer = () => {};

const client = (base: string, config: Partial<PrometheusConfig> = {}) => new PrometheusClient({ url: new URL(base), timeoutMs: 2000, ...config });

/** What `promise` rejected with, which must be a PrometheusError. */
async function failure(promise: Promise<unknown>): Promise<PrometheusError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a PrometheusError, got an answer: ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PrometheusError);
  expect((error as PrometheusError).name).toBe('PrometheusError');
  return error as PrometheusError;
}

/** `promise`, or a failure after `ms`: for events that must come soon, without a fixed sleep. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A port nothing listens on: one just closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function tokenFile(text: string): string {
  const file = join(tempDir('diskprobe-prom-'), 'token');
  writeFileSync(file, text);
  return file;
}

describe('PrometheusClient: the request', () => {
  it('POSTs each query as a form to <base>/api/v1/query, path prefix kept, all at one time', async () => {
    const { base, received } = await prometheus(echo);
    for (const [url, path] of [
      [`${base}/prom`, '/prom/api/v1/query'],
      [`${base}/prom/`, '/prom/api/v1/query'],
      [`${base}/a/b`, '/a/b/api/v1/query'],
      [base, '/api/v1/query'],
    ] as const) {
      received.length = 0;
      const before = Date.now() / 1000;
      const queries = { up: 'up', avail: 'node_filesystem_avail_bytes{job="node",mountpoint!~"/run/.*"}', other: 'sum by (instance) (up)' };
      const answers = await client(url).queryAll(queries);
      const after = Date.now() / 1000;
      // Each answer under its query's key.
      expect(Object.fromEntries(Object.entries(answers).map(([key, samples]) => [key, (samples as Sample[])[0]?.labels.query]))).toEqual(queries);
      expect(received.map((r) => r.form.get('query')).sort()).toEqual(Object.values(queries).sort());
      for (const request of received) {
        expect(request.method).toBe('POST');
        expect(request.path).toBe(path);
        expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
        expect(request.headers.accept).toBe('application/json');
        expect(request.headers.authorization).toBeUndefined();
        expect(request.form.get('timeout')).toBe('2000ms');
        expect([...request.form.keys()].sort()).toEqual(['query', 'time', 'timeout']);
      }
      // One instant for the whole round, in seconds with milliseconds.
      const times = new Set(received.map((r) => r.form.get('time')));
      expect(times.size).toBe(1);
      const [time] = times;
      expect(time).toMatch(/^\d+\.\d{3}$/);
      expect(Number(time)).toBeGreaterThanOrEqual(before - 0.001);
      expect(Number(time)).toBeLessThanOrEqual(after + 0.001);
    }
  });

  it('names the server without a trailing slash', async () => {
    expect(client('http://prom.example:9090/prometheus/').where).toBe('http://prom.example:9090/prometheus');
    expect(client('http://prom.example:9090').where).toBe('http://prom.example:9090');
  });

  it("sends the token file's first line as a bearer token, reading the file again for every round", async () => {
    const { base, received } = await prometheus(echo);
    const file = tokenFile('first-token\nsecond line\n');
    const prom = client(base, { tokenFile: file });
    await prom.queryAll({ a: 'up', b: 'up' });
    expect(received.map((r) => r.headers.authorization)).toEqual(['Bearer first-token', 'Bearer first-token']);
    writeFileSync(file, '  rotated-token \r\nold\n');
    await prom.queryAll({ a: 'up' });
    expect(received.at(-1)?.headers.authorization).toBe('Bearer rotated-token');
    writeFileSync(file, 'no-newline');
    await prom.queryAll({ a: 'up' });
    expect(received.at(-1)?.headers.authorization).toBe('Bearer no-newline');
  });
});

describe('PrometheusClient: the answer', () => {
  it("keeps each series' labels and its value's text exactly", async () => {
    const result = [
      {
        metric: { __name__: 'node_filesystem_avail_bytes', instance: 'alpha:9100', mountpoint: '/', device_error: 'mountpoint timeout' },
        value: [1700000000.123, '79924928512'],
      },
      { metric: { instance: 'beta:9100', mountpoint: '/var' }, value: [1700000000.123, 'NaN'] },
      { metric: { instance: 'gamma:9100' }, value: [1700000000.123, '9007199254740993'] },
      { metric: {}, value: [1700000000.123, '+Inf'] },
    ];
    const { base } = await prometheus((_, res) => reply(res, 200, vector(result)));
    expect(await client(base).queryAll({ q: 'x' })).toEqual({
      q: [
        {
          labels: { __name__: 'node_filesystem_avail_bytes', instance: 'alpha:9100', mountpoint: '/', device_error: 'mountpoint timeout' },
          value: '79924928512',
        },
        { labels: { instance: 'beta:9100', mountpoint: '/var' }, value: 'NaN' },
        { labels: { instance: 'gamma:9100' }, value: '9007199254740993' },
        { labels: {}, value: '+Inf' },
      ],
    });
  });

  it('answers an empty vector as no samples', async () => {
    const { base } = await prometheus((_, res) => reply(res, 200, vector([])));
    expect(await client(base).queryAll({ q: 'x' })).toEqual({ q: [] });
  });
});

describe('PrometheusClient: failures', () => {
  it("cannot reach a closed port: 'unreachable', naming the URL and --prometheus", async () => {
    const port = await closedPort();
    const error = await failure(client(`http://127.0.0.1:${port}/prom/`).queryAll({ q: 'up' }));
    expect(error.failure).toBe('unreachable');
    expect(error.message).toContain(`cannot reach Prometheus at http://127.0.0.1:${port}/prom: `);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('--prometheus (or DISKPROBE_PROMETHEUS_URL)');
  });

  it("gives up on a server that never answers at the timeout: 'timeout', and closes the connection", async () => {
    let answer = never;
    const { base, received } = await prometheus((request, res) => answer(request, res));
    const prom = client(`${base}/prom`, { timeoutMs: 300 });
    const started = performance.now();
    const error = await failure(prom.queryAll({ a: 'up', b: 'up' }));
    const elapsed = performance.now() - started;
    expect(error.failure).toBe('timeout');
    expect(error.message).toContain(`Prometheus at ${base}/prom did not answer within 300 ms`);
    expect(error.message).toContain('--prometheus-timeout');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1000);
    // Prometheus is told the same budget, and the requests are not left open.
    expect(received.map((r) => r.form.get('timeout'))).toEqual(['300ms', '300ms']);
    await within(Promise.all(received.map((r) => r.abandoned)), 1000, 'the server seeing the connections closed');
    // The client is not left broken: the next round is answered.
    answer = echo;
    expect(await prom.queryAll({ a: 'up' })).toEqual({ a: [{ labels: { query: 'up' }, value: '1' }] });
  });

  it("gives up on a body that never ends at the timeout: 'timeout'", async () => {
    const { base, received } = await prometheus((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"success","data":{"resultType":"vector","result":[');
    });
    const started = performance.now();
    const error = await failure(client(base, { timeoutMs: 300 }).queryAll({ q: 'up' }));
    expect(error.failure).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(1000);
    await within(received[0]!.abandoned, 1000, 'the server seeing the connection closed');
  });

  it("is refused with 401 or 403: 'refused', pointing to --prometheus-token-file, or to the token given", async () => {
    for (const status of [401, 403]) {
      const { base } = await prometheus((_, res) => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end('Unauthorized\n');
      });
      const error = await failure(client(base).queryAll({ q: 'up' }));
      expect(error.failure).toBe('refused');
      expect(error.message).toContain(`Prometheus at ${base} refused the query: HTTP ${status}`);
      expect(error.message).toContain('give one with --prometheus-token-file <file>');
      const file = tokenFile('stale\n');
      const withToken = await failure(client(base, { tokenFile: file }).queryAll({ q: 'up' }));
      expect(withToken.failure).toBe('refused');
      expect(withToken.message).toContain(`Check the token in ${file}.`);
    }
  });

  it("reports a redirect without following it, so the token goes nowhere else: 'answer'", async () => {
    const elsewhere = await prometheus(echo);
    for (const status of [301, 302, 307, 308]) {
      const location = `${elsewhere.base}/api/v1/query`;
      const { base, received } = await prometheus((_, res) => {
        res.writeHead(status, { location });
        res.end();
      });
      const error = await failure(client(base, { tokenFile: tokenFile('secret-token\n') }).queryAll({ q: 'up' }));
      expect(error.failure).toBe('answer');
      expect(error.message).toContain(`Prometheus at ${base} redirects to ${location}: give that address as --prometheus`);
      expect(received).toHaveLength(1);
    }
    expect(elsewhere.received).toEqual([]);
  });

  it("takes an HTML 404 for a wrong path prefix: 'answer', naming the path asked", async () => {
    const { base } = await prometheus((_, res) => {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Not Found</title><h1>404</h1>\n');
    });
    const error = await failure(client(`${base}/wrong`).queryAll({ q: 'up' }));
    expect(error.failure).toBe('answer');
    expect(error.message).toContain(`${base}/wrong answered HTTP 404 with text/html; charset=utf-8, not Prometheus's JSON API at /wrong/api/v1/query`);
    expect(error.message).toContain('path prefix');
  });

  it("passes on a rejected query with its text: 'query'", async () => {
    const { base } = await prometheus((_, res) => reply(res, 400, { status: 'error', errorType: 'bad_data', error: 'parse error' }));
    const query = 'rate(node_filesystem_avail_bytes{job="node"}[5m]';
    const error = await failure(client(base).queryAll({ q: query }));
    expect(error.failure).toBe('query');
    expect(error.message).toContain(`Prometheus at ${base} rejected a query with HTTP 400 (bad_data: parse error)`);
    expect(error.message).toContain(`The query was: ${query}.`);
  });

  it("takes Prometheus's own timeout as one: 'timeout'", async () => {
    const { base } = await prometheus((_, res) =>
      reply(res, 503, { status: 'error', errorType: 'timeout', error: 'query timed out in expression evaluation' }),
    );
    const error = await failure(client(base).queryAll({ q: 'up' }));
    expect(error.failure).toBe('timeout');
    expect(error.message).toContain(`Prometheus at ${base} gave up evaluating a query (timeout: query timed out in expression evaluation)`);
    expect(error.message).toContain('--prometheus-timeout');
  });

  it("refuses what is not an instant vector: 'answer'", async () => {
    const answers = [
      { status: 'success', data: { resultType: 'matrix', result: [] } },
      { status: 'success', data: { resultType: 'scalar', result: [1, '1'] } },
      { status: 'success', data: { resultType: 'vector' } },
      { status: 'success' },
      { data: { resultType: 'vector', result: [] } },
      [],
      { status: 'success', data: { resultType: 'vector', result: [null] } },
      { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: 'xyz' }] } },
      { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, 2] }] } },
      { status: 'success', data: { resultType: 'vector', result: [{ metric: { a: 1 }, value: [1, '2'] }] } },
    ];
    for (const body of answers) {
      const { base } = await prometheus((_, res) => reply(res, 200, body));
      const error = await failure(client(base).queryAll({ q: 'up' }));
      expect(error.failure, JSON.stringify(body)).toBe('answer');
      expect(error.message).toContain(`${base} answered HTTP 200 without an instant vector`);
    }
    // JSON, but not an object at all: not Prometheus's API.
    for (const body of ['success', null, 42]) {
      const { base } = await prometheus((_, res) => reply(res, 200, body));
      const error = await failure(client(base).queryAll({ q: 'up' }));
      expect(error.failure, JSON.stringify(body)).toBe('answer');
      expect(error.message).toContain("not Prometheus's JSON API");
    }
  });

  it("refuses an answer over 64 MiB while it streams in: 'answer'", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20); // JSON whitespace
    const limit = 80 * chunk.length;
    let sent = 0;
    const { base, received } = await prometheus((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"success","data":{"resultType":"vector","result":[]}');
      const pump = (): void => {
        while (!res.destroyed && sent < limit) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end('}');
      };
      pump();
    });
    const error = await failure(client(base).queryAll({ q: 'up' }));
    expect(error.failure).toBe('answer');
    expect(error.message).toContain(`Prometheus at ${base} sent more than 64 MiB for one query`);
    // It stopped reading: the server never got to send all of it.
    await within(received[0]!.abandoned, 1000, 'the server seeing the connection closed');
    expect(sent).toBeLessThan(limit);
    expect(sent).toBeGreaterThanOrEqual(63 * chunk.length);
  });

  it("cannot read the token file, or finds it empty: 'token', before asking anything", async () => {
    const { base, received } = await prometheus(echo);
    const dir = tempDir('diskprobe-prom-');
    const missing = join(dir, 'missing');
    const cases: [string, string][] = [
      [missing, `cannot read --prometheus-token-file ${missing}: ENOENT`],
      [dir, `cannot read --prometheus-token-file ${dir}: EISDIR`],
      [tokenFile(''), 'is empty: put the bearer token on its first line'],
      [tokenFile('\nsecond-line-token\n'), 'is empty: put the bearer token on its first line'],
      [tokenFile('   \r\n'), 'is empty: put the bearer token on its first line'],
      // fetch could not even send these as a header: a token problem, not an unreachable server.
      [tokenFile('t\u20acken-0123456789'), 'a bearer token is printable ASCII'],
      [tokenFile('tok\u0001en-0123456789'), 'a bearer token is printable ASCII'],
      [tokenFile('two words'), 'a bearer token is printable ASCII'],
    ];
    for (const [file, message] of cases) {
      const error = await failure(client(base, { tokenFile: file }).queryAll({ q: 'up' }));
      expect(error.failure, file).toBe('token');
      expect(error.message).toContain(message);
    }
    expect(received).toEqual([]);
  });
});

describe('PrometheusClient: cancellation', () => {
  it("rejects with the signal's reason as soon as it is aborted, and closes the connection", async () => {
    let arrived: () => void = () => {};
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { base, received } = await prometheus(() => arrived());
    const controller = new AbortController();
    const pending = client(base, { timeoutMs: 5000 }).queryAll({ q: 'up' }, controller.signal);
    const settled = pending.then(
      () => 'answered',
      (reason: unknown) => reason,
    );
    await within(arrival, 1000, 'the request arriving');
    const reason = new Error('the client cancelled the tool call');
    const aborted = performance.now();
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(performance.now() - aborted).toBeLessThan(200);
    await within(received[0]!.abandoned, 1000, 'the server seeing the connection closed');
  });

  it('asks nothing when the signal is already aborted', async () => {
    const { base, received } = await prometheus(echo);
    const controller = new AbortController();
    const reason = new Error('already cancelled');
    controller.abort(reason);
    await expect(client(base).queryAll({ q: 'up' }, controller.signal)).rejects.toBe(reason);
    expect(received).toEqual([]);
  });

  it('cancels the other queries of a round when one fails, and throws that failure', async () => {
    let slowArrived: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      slowArrived = resolve;
    });
    const { base, received } = await prometheus((request, res) => {
      if (request.form.get('query') === 'slow') slowArrived();
      else void slow.then(() => reply(res, 400, { status: 'error', errorType: 'bad_data', error: 'parse error' }));
    });
    const started = performance.now();
    const error = await failure(client(base, { timeoutMs: 5000 }).queryAll({ first: 'slow', second: 'bad(' }));
    expect(error.failure).toBe('query');
    expect(error.message).toContain('The query was: bad(.');
    expect(performance.now() - started).toBeLessThan(1000);
    const slowRequest = received.find((r) => r.form.get('query') === 'slow');
    await within(slowRequest!.abandoned, 1000, 'the slow request being abandoned');
  });
});

const opensslSkip = has('openssl') ? undefined : 'no openssl to make a throwaway CA and server certificate';

describe.skipIf(announceSkip('PrometheusClient over https', opensslSkip))('PrometheusClient: https and --prometheus-ca', () => {
  let dir = '';
  const openssl = (...args: string[]): void => {
    const made = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${made.stderr}`);
  };
  /** A CA's certificate and key, in dir/<name>.pem and dir/<name>.key. */
  const makeCa = (name: string): void =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=diskprobe test ${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
    );

  beforeAll(() => {
    dir = join(tempDir('diskprobe-prom-tls-'), 'pki');
    mkdirSync(dir);
    makeCa('ca');
    makeCa('other-ca');
    openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', 'server.key', '-out', 'server.csr');
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      'server.ext',
      '-out',
      'server.pem',
    );
  });

  async function httpsPrometheus(): Promise<{ base: string; received: Received[] }> {
    const received: Received[] = [];
    const server = createHttpsServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) }, handler(received, echo));
    const port = await listen(server);
    return { base: `https://127.0.0.1:${port}`, received };
  }

  it("fails 'unreachable' without the CA that signed the certificate, pointing to --prometheus-ca", async () => {
    const { base, received } = await httpsPrometheus();
    for (const ca of [undefined, readFileSync(join(dir, 'other-ca.pem'), 'utf8')]) {
      const error = await failure(client(base, { ca }).queryAll({ q: 'up' }));
      expect(error.failure).toBe('unreachable');
      expect(error.message).toContain(`cannot reach Prometheus at ${base}: TLS: `);
      expect(error.message).toContain('--prometheus-ca <file.pem>');
    }
    expect(received).toEqual([]);
  });

  it('asks over https when given that CA', async () => {
    const { base, received } = await httpsPrometheus();
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    expect(await client(`${base}/prom`, { ca }).queryAll({ q: 'up' })).toEqual({ q: [{ labels: { query: 'up' }, value: '1' }] });
    expect(received.map((r) => r.path)).toEqual(['/prom/api/v1/query']);
  });
});
