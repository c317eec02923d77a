// `diskprobe serve --http` end to end: the built command listening on a free
// loopback port, asked over real sockets. Both eras' routing and statuses
// (basic/transports/streamable-http.mdx; 2025-11-25/basic/transports.mdx),
// the security checks the spec's warning asks for (Origin, Host, the token,
// loopback by default), the limits a slow or hostile client cannot get around
// (body size, header time, connections, sessions), and shutdown.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { type IncomingMessage, request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { announceSkip, has, projectRoot, tempDir } from '../../helpers/system.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const TOKEN = 'test-token-0123456789abcdef';

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

const running: Server[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
});

/** Starts `diskprobe serve --http 127.0.0.1:0 ...args`; resolves once it says where it listens. */
async function start(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const child = spawn(process.execPath, [join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DISKPROBE_TOKEN: '', ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving MCP on https?:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
  });
  const server = { child, port, stderr: () => stderr, exited };
  running.push(server);
  return server;
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** Reads a response whole, into `resolve`. */
const readReply =
  (resolve: (reply: Reply) => void) =>
  (res: IncomingMessage): void => {
    let text = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
  };

/** One request over its own connection, headers exactly as given (Host too). */
function send(port: number, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      readReply(resolve),
    );
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A 2026-07-28 request with the headers it must carry (overridable). */
function modern(port: number, id: number, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Reply> {
  const name = (params.name ?? params.uri) as string | undefined;
  return send(
    port,
    'POST',
    { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }), ...headers },
    JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...META, ...(params._meta as object) } } }),
  );
}

const errorOf = (reply: Reply): { code: number; message: string } => (JSON.parse(reply.body) as { error: { code: number; message: string } }).error;

/** The JSON-RPC messages of an SSE body. */
const events = (body: string): Array<Record<string, unknown>> =>
  body
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => JSON.parse(event.slice(6)) as Record<string, unknown>);

describe('serve --http, 2026-07-28: stateless, headers checked against the body', () => {
  it('answers tools/call with JSON, and with an SSE stream once the request asks for progress', async () => {
    const { port } = await start();
    const usage = await modern(port, 1, 'tools/call', { name: 'disk_usage', arguments: { path: '/' } });
    expect(usage.status).toBe(200);
    expect(usage.headers['content-type']).toBe('application/json');
    expect(usage.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(usage.body)).toMatchObject({ id: 1, result: { isError: false, resultType: 'complete', structuredContent: { mountPoint: '/' } } });

    const listed = await modern(port, 2, 'tools/call', { name: 'list_mounts', arguments: { all: true }, _meta: { progressToken: 'p' } });
    expect(listed.status).toBe(200);
    expect(listed.headers['content-type']).toBe('text/event-stream');
    const messages = events(listed.body);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.slice(0, -1).every((message) => message.method === 'notifications/progress')).toBe(true);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { resultType: 'complete' } });
  });

  it('refuses a missing or mismatched header with 400 and -32020, echoing the id; an unknown method with 404 and -32601', async () => {
    const { port } = await start();
    const missing = await modern(port, 3, 'tools/list', {}, { 'mcp-protocol-version': '' });
    expect([missing.status, errorOf(missing).code, JSON.parse(missing.body).id]).toEqual([400, -32020, 3]);
    const method = await modern(port, 4, 'tools/list', {}, { 'mcp-method': 'prompts/list' });
    expect([method.status, errorOf(method).code]).toEqual([400, -32020]);
    expect(errorOf(method).message).toContain("Mcp-Method header value 'prompts/list' does not match body value 'tools/list'");
    const name = await modern(port, 5, 'tools/call', { name: 'disk_usage', arguments: { path: '/' } }, { 'mcp-name': 'list_mounts' });
    expect([name.status, errorOf(name).code]).toEqual([400, -32020]);
    const encoded = await modern(
      port,
      6,
      'tools/call',
      { name: 'disk_usage', arguments: { path: '/' } },
      { 'mcp-name': `=?base64?${Buffer.from('disk_usage').toString('base64')}?=` },
    );
    expect(encoded.status).toBe(200);
    const unknown = await modern(port, 7, 'initialize', {});
    expect([unknown.status, errorOf(unknown).code]).toEqual([404, -32601]);
    const noMeta = await send(
      port,
      'POST',
      { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      '{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{}}',
    );
    expect([noMeta.status, errorOf(noMeta).code]).toEqual([400, -32602]);
  });

  it('answers GET and DELETE as each era says: 405 with Allow: POST on 2026-07-28, else 400 without a session; refuses bad bodies with a JSON-RPC error', async () => {
    const { port } = await start();
    // 2026-07-28 has no GET stream and no DELETE (streamable-http.mdx, "Earlier Streamable HTTP Revisions"): 405, and Allow agrees.
    for (const method of ['GET', 'DELETE']) {
      const modern = await send(port, method, { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' });
      expect([method, modern.status, modern.headers.allow]).toEqual([method, 405, 'POST']);
    }
    // A session-based server answers a request without Mcp-Session-Id with 400 (2025-11-25 transports.mdx, "Session Management").
    for (const headers of [{ accept: 'text/event-stream' }, { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' }]) {
      const get = await send(port, 'GET', headers);
      expect([get.status, get.headers.allow, errorOf(get).message]).toEqual([400, undefined, expect.stringContaining('Mcp-Session-Id')]);
      expect((await send(port, 'DELETE', headers)).status).toBe(400);
    }
    // A method the endpoint never serves: 405, and Allow lists the ones it does.
    const put = await send(port, 'PUT', JSON_HEADERS, '{}');
    expect([put.status, put.headers.allow]).toEqual([405, 'GET, POST, DELETE']);
    const parse = await send(port, 'POST', JSON_HEADERS, '{"jsonrpc":');
    expect([parse.status, errorOf(parse).code]).toEqual([400, -32700]);
    const type = await send(port, 'POST', { ...JSON_HEADERS, 'content-type': 'text/plain' }, '{}');
    expect([type.status, errorOf(type).code]).toEqual([415, -32600]);
    const accept = await send(port, 'POST', { ...JSON_HEADERS, accept: 'application/json' }, '{}');
    expect(accept.status).toBe(406);
    const batch = await send(port, 'POST', JSON_HEADERS, '[]');
    expect([batch.status, errorOf(batch).code]).toEqual([400, -32600]);
    expect(await send(port, 'POST', JSON_HEADERS, '{}').then((reply) => reply.status)).toBe(400);
  });
});

describe('serve --http, 2025-11-25: sessions', () => {
  const initialize = (port: number, headers: Record<string, string> = {}): Promise<Reply> =>
    send(
      port,
      'POST',
      { ...JSON_HEADERS, ...headers },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    );
  const inSession = (port: number, session: string, body: object, headers: Record<string, string> = {}): Promise<Reply> =>
    send(port, 'POST', { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...headers }, JSON.stringify(body));

  it('opens a session with a random id, serves it, and ends it with DELETE, after which it is 404', async () => {
    const { port } = await start();
    const opened = await initialize(port);
    expect(opened.status).toBe(200);
    const session = opened.headers['mcp-session-id'] as string;
    expect(session).toMatch(/^[0-9a-f]{32}$/);
    expect((await initialize(port)).headers['mcp-session-id']).not.toBe(session);
    expect((await inSession(port, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const tools = await inSession(port, session, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(tools.status).toBe(200);
    expect(JSON.parse(tools.body).result.tools.map((tool: { name: string }) => tool.name)).toContain('disk_usage');
    const wrongVersion = await inSession(port, session, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-protocol-version': '2025-06-18' });
    expect(wrongVersion.status).toBe(400);
    const stream = await new Promise<number>((resolve) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session }, agent: false },
        (res) => {
          resolve(res.statusCode!);
          res.destroy();
        },
      );
      req.end();
    });
    expect(stream).toBe(200);
    expect((await send(port, 'DELETE', { 'mcp-session-id': session })).status).toBe(204);
    const gone = await inSession(port, session, { jsonrpc: '2.0', id: 4, method: 'ping' });
    expect([gone.status, errorOf(gone).code]).toEqual([404, -32600]);
    const none = await send(port, 'POST', JSON_HEADERS, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
    expect(none.status).toBe(400);
    expect(errorOf(none).message).toContain('no Mcp-Session-Id');
  });

  it('takes a batch in a 2025-03-26 session, answering it with one array, and refuses one in a later version', async () => {
    const { port } = await start();
    const open = async (version: string): Promise<string> => {
      const opened = await send(
        port,
        'POST',
        JSON_HEADERS,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      );
      const session = opened.headers['mcp-session-id'] as string;
      await inSession(port, session, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': version });
      return session;
    };
    const old = await open('2025-03-26');
    const batch = [
      { jsonrpc: '2.0', id: 10, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
      { jsonrpc: '2.0', id: 11, method: 'tools/list' },
    ];
    const answered = await send(port, 'POST', { ...JSON_HEADERS, 'mcp-session-id': old, 'mcp-protocol-version': '2025-03-26' }, JSON.stringify(batch));
    expect(answered.status).toBe(200);
    const answers = JSON.parse(answered.body) as Array<{ id: number; result: unknown }>;
    expect(answers.map((answer) => answer.id).sort()).toEqual([10, 11]);
    const notes = await send(port, 'POST', { ...JSON_HEADERS, 'mcp-session-id': old, 'mcp-protocol-version': '2025-03-26' }, JSON.stringify([batch[1]]));
    expect(notes.status).toBe(202);
    const later = await open('2025-11-25');
    const refused = await send(port, 'POST', { ...JSON_HEADERS, 'mcp-session-id': later }, JSON.stringify(batch));
    expect([refused.status, errorOf(refused).message]).toEqual([
      400,
      'Invalid Request: batches are accepted only in a 2025-03-26 session: send each message in a POST of its own',
    ]);
  });

  it('bounds the sessions: beyond --max-sessions, 503; idle past --session-idle-timeout, ended', async () => {
    const { port } = await start(['--max-sessions', '2', '--session-idle-timeout', '200']);
    const first = (await initialize(port)).headers['mcp-session-id'] as string;
    expect((await initialize(port)).status).toBe(200);
    const third = await initialize(port);
    expect([third.status, third.headers['retry-after']]).toEqual([503, '5']);
    expect(errorOf(third).message).toContain('the most sessions');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await inSession(port, first, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(404);
    expect((await initialize(port)).status).toBe(200);
  });
});

describe('serve --http: security', () => {
  it('refuses a foreign Origin and a foreign Host with 403 (DNS rebinding), and takes its own', async () => {
    const { port } = await start();
    const discover = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    const origin = await send(port, 'POST', { ...headers, origin: 'http://evil.example.com' }, discover);
    expect([origin.status, errorOf(origin).message]).toEqual([
      403,
      'Invalid Request: Origin http://evil.example.com may not use this server (DNS rebinding protection)',
    ]);
    const host = await send(port, 'POST', { ...headers, host: 'evil.example.com' }, discover);
    expect(host.status).toBe(403);
    expect((await send(port, 'POST', { ...headers, origin: `http://localhost:${port}`, host: `localhost:${port}` }, discover)).status).toBe(200);
  });

  it('with a token, refuses a request without it or with another with 401 and WWW-Authenticate', async () => {
    const { port } = await start([], { DISKPROBE_TOKEN: TOKEN });
    const none = await modern(port, 1, 'server/discover');
    expect([none.status, none.headers['www-authenticate']]).toEqual([401, 'Bearer realm="diskprobe"']);
    const wrong = await modern(port, 2, 'server/discover', {}, { authorization: `Bearer ${TOKEN}x` });
    expect([wrong.status, wrong.headers['www-authenticate']]).toEqual([401, 'Bearer realm="diskprobe", error="invalid_token"']);
    expect((await modern(port, 3, 'server/discover', {}, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('will not listen off loopback without a token: it exits 2 and says why', async () => {
    const child = spawn(process.execPath, [join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '0.0.0.0:0'], {
      env: { ...process.env, DISKPROBE_TOKEN: '' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('is not a loopback address');
    expect(stderr).toContain('--token-file');
  });
});

describe.skipIf(announceSkip('serve --http with TLS', has('openssl') ? undefined : 'no openssl to make a test certificate'))('serve --http: TLS', () => {
  it('serves HTTPS with --tls-cert and --tls-key, and says so', async () => {
    const dir = tempDir('diskprobe-tls-');
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { encoding: 'utf8' },
    );
    expect(made.status, made.stderr).toBe(0);
    const server = await start(['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
    expect(server.stderr()).toContain(`serving MCP on https://127.0.0.1:${server.port}/mcp`);
    const reply = await new Promise<Reply>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          rejectUnauthorized: false,
          headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
        },
        readReply(resolve),
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ id: 1, result: { supportedVersions: ['2026-07-28'] } });
  });

  it('refuses --tls-cert without --tls-key, and a certificate it cannot read, with exit 2', async () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0', ...args], { encoding: 'utf8' });
    const half = run(['--tls-cert', '/nonexistent.pem']);
    expect([half.status, half.stderr.trim()]).toEqual([2, "diskprobe: options --tls-cert and --tls-key go together. Run 'diskprobe --help' for usage."]);
    const missing = run(['--tls-cert', '/nonexistent-cert.pem', '--tls-key', '/nonexistent-key.pem']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('/nonexistent-cert.pem');
  });
});

describe('serve --http: limits', () => {
  it('answers an oversized body with 413 and a JSON-RPC error, and goes on', async () => {
    const { port } = await start(['--max-message-bytes', '1000']);
    const big = await modern(port, 1, 'tools/call', { name: 'disk_usage', arguments: { path: `/${'a'.repeat(5000)}` } });
    expect([big.status, errorOf(big).code]).toEqual([413, -32600]);
    expect(errorOf(big).message).toContain('exceeds the limit of 1000 bytes');
    expect((await modern(port, 2, 'tools/call', { name: 'disk_usage', arguments: { path: '/' } })).status).toBe(200);
  });

  it('cuts a client that sends its headers too slowly (slowloris) at --header-timeout', async () => {
    const { port } = await start(['--header-timeout', '300']);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {}); // the server's cut may meet a write in flight (EPIPE)
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = performance.now();
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(trickle);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('bounds the connections open at once to --max-connections', async () => {
    const { port } = await start(['--max-connections', '4']);
    const sockets: Socket[] = [];
    let closed = 0;
    for (let i = 0; i < 20; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => closed++);
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(closed).toBeGreaterThanOrEqual(16);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await modern(port, 1, 'server/discover')).status).toBe(200);
  });
});

describe('serve --http: what stdio has', () => {
  it('applies --root exactly as on stdio', async () => {
    const { port } = await start(['--root', '/tmp']);
    const inside = await modern(port, 1, 'tools/call', { name: 'disk_usage', arguments: { path: '/tmp' } });
    expect(JSON.parse(inside.body).result.isError).toBe(false);
    const outside = await modern(port, 2, 'tools/call', { name: 'disk_usage', arguments: { path: '/etc' } });
    expect(JSON.parse(outside.body).result).toMatchObject({ isError: true });
    expect(JSON.parse(outside.body).result.content[0].text).toMatch(/^EACCES: \/etc: outside the allowed roo/);
  });
});

/** Opens a subscriptions/listen stream; resolves once it is acknowledged, with a way to read the rest. */
function listen(port: number, id: number): Promise<{ rest: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      },
      (res) => {
        let text = '';
        let acknowledged = false;
        const rest = new Promise<string>((done) => res.on('end', () => done(text)));
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (!acknowledged && text.includes('notifications/subscriptions/acknowledged')) {
            acknowledged = true;
            resolve({ rest });
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { resourcesListChanged: true }, _meta: META } }));
  });
}

describe('serve --http: requests in flight', () => {
  it('answers 503 with Retry-After beyond --max-requests, streams included', async () => {
    const server = await start(['--max-requests', '2']);
    await listen(server.port, 1);
    await listen(server.port, 2);
    const refused = await modern(server.port, 3, 'server/discover');
    expect([refused.status, refused.headers['retry-after']]).toEqual([503, '1']);
    expect(errorOf(refused).message).toContain('2 requests are in flight');
  });
});

describe('serve --http: shutdown', () => {
  it('on SIGTERM ends a subscriptions/listen stream with its result, and exits 0', async () => {
    const server = await start();
    const stream = new Promise<string>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          agent: false,
          headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
        },
        (res) => {
          let text = '';
          let signalled = false;
          res.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk;
            // Once is enough: a second signal during shutdown changes nothing (stopSignals.ts).
            if (!signalled && text.includes('notifications/subscriptions/acknowledged')) {
              signalled = true;
              server.child.kill('SIGTERM');
            }
          });
          res.on('end', () => resolve(text));
        },
      );
      req.end(
        JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: { notifications: { resourcesListChanged: true }, _meta: META } }),
      );
    });
    const messages = events(await stream);
    expect(messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    expect(messages.at(-1)).toMatchObject({ id: 9, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 9 } } });
    expect(await server.exited).toBe(0);
  });
});
