// The HTTP transport, fuzzed: a real `diskprobe serve --http` gets, over raw
// sockets, malformed request lines and headers, bodies of every content type,
// chunked encoding abused (bad sizes, huge sizes, no terminator), bodies cut
// short of their Content-Length, and random bytes; and, over well-formed
// HTTP, interleaved 2026-07-28 requests and 2025-era sessions (real, ended
// and made-up session ids). Invariants: the process never dies; every
// well-formed request gets exactly one answer, with its own id, and the
// status its era's rules give; after it all the server still answers, and
// its memory is flat.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { projectRoot } from '../helpers/system.js';
import { check } from './seed.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let child: ChildProcess;
let port: number;

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0', '--max-message-bytes', '65536', '--header-timeout', '2000'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  port = await new Promise<number>((resolve, reject) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving MCP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${stderr}`)));
  });
});
afterAll(async () => {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});

const rssMb = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;

/** Writes `bytes` on a fresh connection in `pieces`, then waits for the server to answer or close, at most 1 s. */
function raw(bytes: Buffer, pieces: number, end: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(done, 1000);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('connect', () => {
      const size = Math.max(1, Math.ceil(bytes.length / pieces));
      for (let at = 0; at < bytes.length; at += size) socket.write(bytes.subarray(at, at + size));
      if (end) socket.end();
    });
  });
}

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

function post(body: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...JSON_HEADERS, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of a JSON or SSE answer. */
function messagesOf(reply: Reply): Array<{ id?: unknown; result?: unknown; error?: { code: number } }> {
  if (reply.body === '') return [];
  if (String(reply.headers['content-type']).startsWith('text/event-stream')) {
    return reply.body
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => JSON.parse(event.slice(6)));
  }
  return [JSON.parse(reply.body)];
}

const discover = (id: number): Promise<Reply> =>
  post(JSON.stringify({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: META } }), {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'server/discover',
  });

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    'application/json',
    'text/event-stream',
    'application/json; charset=utf-8',
    '2026-07-28',
    'tools/call',
    '=?base64?ZGlza191c2FnZQ==?=',
    '=?base64?!!?=',
  ),
);
const headerName = fc.oneof(
  fc.constantFrom(
    'Content-Type',
    'Accept',
    'MCP-Protocol-Version',
    'Mcp-Method',
    'Mcp-Name',
    'Mcp-Session-Id',
    'Origin',
    'Authorization',
    'Transfer-Encoding',
    'Content-Length',
    'Host',
  ),
  fc.string({ minLength: 1, maxLength: 20 }),
);
const bodyText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.json({ maxDepth: 4 }),
  fc.constantFrom(
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}',
    '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
  ),
);

/** A request as bytes, broken in one of the ways a hostile client breaks them. */
const hostileRequest = fc
  .record({
    method: fc.constantFrom('POST', 'GET', 'DELETE', 'PUT', 'OPTIONS', 'POST', 'BREW'),
    path: fc.constantFrom('/mcp', '/mcp?x=1', '/', '/mcp/..', '*', '/%00'),
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }),
    body: bodyText,
    framing: fc.constantFrom('length', 'chunked', 'bad-chunk', 'huge-chunk', 'short', 'none', 'garbage'),
    pieces: fc.integer({ min: 1, max: 20 }),
    end: fc.boolean(),
  })
  .map(({ method, path, headers, body, framing, pieces, end }) => {
    const lines = [
      `${method} ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      ...headers.map(([name, value]) => `${name.replace(/[\r\n]/g, '')}: ${value.replace(/[\r\n]/g, ' ')}`),
    ];
    const payload = Buffer.from(body);
    let tail: Buffer;
    switch (framing) {
      case 'length':
        lines.push(`Content-Length: ${payload.length}`);
        tail = payload;
        break;
      case 'chunked':
        lines.push('Transfer-Encoding: chunked');
        tail = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')]);
        break;
      case 'bad-chunk':
        lines.push('Transfer-Encoding: chunked');
        tail = Buffer.concat([Buffer.from('zz;ext=1\r\n'), payload]);
        break;
      case 'huge-chunk':
        lines.push('Transfer-Encoding: chunked');
        tail = Buffer.concat([Buffer.from('fffffffffff\r\n'), payload]);
        break;
      case 'short':
        lines.push(`Content-Length: ${payload.length + 1000}`);
        tail = payload;
        break;
      case 'garbage':
        return { bytes: Buffer.concat([payload, Buffer.from('\r\n\r\n')]), pieces, end };
      default:
        tail = Buffer.alloc(0);
    }
    return { bytes: Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), tail]), pieces, end };
  });

describe('serve --http under fuzzing', () => {
  it('survives malformed headers, bodies, content types, chunked abuse and bodies cut short, and answers right after', async () => {
    let probes = 0;
    await check(
      fc.asyncProperty(fc.array(hostileRequest, { minLength: 1, maxLength: 6 }), async (requests) => {
        await Promise.all(requests.map(({ bytes, pieces, end }) => raw(bytes, pieces, end)));
        const reply = await discover(++probes);
        expect(reply.status).toBe(200);
        expect(messagesOf(reply)).toMatchObject([{ id: probes, result: { supportedVersions: ['2026-07-28'] } }]);
      }),
      120,
      101,
    );
    expect(child.exitCode).toBeNull();
  });

  it('answers every well-formed request exactly once, with its own id and its era’s status, across interleaved sessions', async () => {
    const before = rssMb();
    let nextId = 1000;
    const action = fc.constantFrom(
      'modern-call',
      'modern-bad-header',
      'modern-unknown',
      'initialize',
      'session-call',
      'session-bogus',
      'session-delete',
      'no-session',
    );
    await check(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30 }), async (actions) => {
        const sessions: string[] = [];
        await Promise.all(
          actions.map(async (kind) => {
            const id = nextId++;
            const call = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'disk_usage', arguments: { path: '/' } } };
            const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'disk_usage' };
            let reply: Reply;
            let expected: { status: number[]; code?: number };
            switch (kind) {
              case 'modern-call':
                reply = await post(JSON.stringify({ ...call, params: { ...call.params, _meta: META } }), modernHeaders);
                expected = { status: [200] };
                break;
              case 'modern-bad-header':
                reply = await post(JSON.stringify({ ...call, params: { ...call.params, _meta: META } }), { ...modernHeaders, 'mcp-name': 'list_mounts' });
                expected = { status: [400], code: -32020 };
                break;
              case 'modern-unknown':
                reply = await post(JSON.stringify({ jsonrpc: '2.0', id, method: 'no/such', params: { _meta: META } }), {
                  ...modernHeaders,
                  'mcp-method': 'no/such',
                });
                expected = { status: [404], code: -32601 };
                break;
              case 'initialize': {
                reply = await post(
                  JSON.stringify({
                    jsonrpc: '2.0',
                    id,
                    method: 'initialize',
                    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'f', version: '1' } },
                  }),
                  {},
                );
                const session = reply.headers['mcp-session-id'];
                if (typeof session === 'string') sessions.push(session);
                expected = { status: [200] };
                break;
              }
              case 'session-call': {
                const session = sessions[id % Math.max(1, sessions.length)];
                if (session === undefined) return;
                reply = await post(JSON.stringify(call), { 'mcp-session-id': session });
                // The session may have been ended by a DELETE running alongside, or not be initialized yet.
                expected = { status: [200, 404] };
                break;
              }
              case 'session-bogus':
                reply = await post(JSON.stringify(call), { 'mcp-session-id': `bogus-${id}` });
                expected = { status: [404] };
                break;
              case 'session-delete': {
                const session = sessions.shift();
                if (session === undefined) return;
                await new Promise<void>((resolve) => {
                  const req = request(
                    { host: '127.0.0.1', port, path: '/mcp', method: 'DELETE', headers: { 'mcp-session-id': session }, agent: false },
                    (res) => {
                      expect([204, 404]).toContain(res.statusCode);
                      res.resume().on('end', resolve);
                    },
                  );
                  req.end();
                });
                return;
              }
              default:
                reply = await post(JSON.stringify(call), {});
                expected = { status: [400], code: -32600 };
            }
            expect(expected.status).toContain(reply.status);
            const messages = messagesOf(reply);
            const answers = messages.filter((message) => 'result' in message || 'error' in message);
            expect(answers).toHaveLength(1);
            expect(answers[0]!.id).toBe(id);
            if (expected.code !== undefined) expect(answers[0]!.error?.code).toBe(expected.code);
          }),
        );
        for (const session of sessions)
          await new Promise<void>((resolve) =>
            request({ host: '127.0.0.1', port, path: '/mcp', method: 'DELETE', headers: { 'mcp-session-id': session }, agent: false }, (res) =>
              res.resume().on('end', resolve),
            ).end(),
          );
      }),
      150,
      202,
    );
    const after = rssMb();
    expect(after - before, `RSS ${before.toFixed(1)} → ${after.toFixed(1)} MB`).toBeLessThan(40);
    expect((await discover(1)).status).toBe(200);
  });
});
