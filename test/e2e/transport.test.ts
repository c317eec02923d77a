// stdio as the built server sees it: bytes that arrive in any chunking, CRLF,
// blank lines, oversized lines, invalid UTF-8 and JSON, requests that are
// not valid JSON-RPC, ids echoed exactly, raw UTF-8 output, and the end of
// input (EOF, SIGTERM) with requests still in flight (basic/transports.mdx § stdio).
import { describe, expect } from 'vitest';

import { announceSkip, posixPathsSkipReason } from '../helpers/system.js';
import { isRecord, isResponse, it, LATEST_VERSION, type McpClient, modernMeta, type RequestId, sleep, withId } from './mcpClient.js';

/** And on win32, SIGTERM from Node is TerminateProcess: nothing is answered, the status is not 0. */
const endOfInputSkipReason = posixPathsSkipReason && `${posixPathsSkipReason}, and SIGTERM cannot be caught there`;

const LIMIT = 1000;

/** A path that does not exist, in characters of 3 bytes each in UTF-8. */
const CHINESE_PATH = '/磁盘/不存在';
const ENOENT_TEXT = `ENOENT: ${CHINESE_PATH}: no such file or directory`;

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;
const ping = (id: RequestId): string => line({ jsonrpc: '2.0', id, method: 'ping' });

/** A ping of exactly `bytes` bytes (without its line ending), padded in params. */
function pingOfSize(id: number | string, bytes: number): string {
  const bare = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { pad: '' } });
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { pad: 'x'.repeat(bytes - bare.length) } });
}

async function ready(server: McpClient): Promise<void> {
  await server.initialize(LATEST_VERSION);
}

describe.skipIf(announceSkip('framing (disk_usage of a POSIX path)', posixPathsSkipReason)).concurrent('framing', () => {
  it('reads a message split at every byte position, inside "磁盘" and between CR and LF', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    const message = (id: number): Buffer =>
      Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'disk_usage', arguments: { path: CHINESE_PATH } } })}\r\n`);
    const positions = message(1000).length;
    for (let at = 0; at <= positions; at++) {
      const id = 1000 + at;
      const bytes = message(id);
      const mark = server.mark;
      // The first part rides with a ping: once the ping is answered, the server has read it, so
      // the second part is sure to arrive in a later chunk.
      server.write(Buffer.concat([Buffer.from(ping(`split-${at}`)), bytes.subarray(0, at)]));
      await server.response(`split-${at}`, mark);
      server.write(bytes.subarray(at));
      const response = await server.response(id, mark);
      expect(response.result, `split at byte ${at}`).toEqual({ content: [{ type: 'text', text: ENOENT_TEXT }], isError: true });
    }
  });

  it('reads a message written one byte at a time', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    const bytes = Buffer.from(
      line({ jsonrpc: '2.0', id: 'bytewise', method: 'tools/call', params: { name: 'disk_usage', arguments: { path: CHINESE_PATH } } }),
    );
    for (const byte of bytes) {
      server.write(Uint8Array.of(byte));
      await sleep(1); // lets the server read each byte on its own (likely, not certain)
    }
    expect((await server.response('bytewise')).result?.content[0].text).toBe(ENOENT_TEXT);
  });

  it('takes CRLF line endings and skips blank lines', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    const mark = server.mark;
    server.write(`${ping('crlf-1').trimEnd()}\r\n\r\n   \n\n\t\r\n${ping('crlf-2').trimEnd()}\r\n`);
    await server.response('crlf-2', mark);
    await sleep(50);
    expect(server.since(mark)).toEqual([
      { jsonrpc: '2.0', id: 'crlf-1', result: {} },
      { jsonrpc: '2.0', id: 'crlf-2', result: {} },
    ]);
  });

  it(`answers a line over --max-message-bytes ${LIMIT} with -32600, id null, and reads on`, async ({ startServer }) => {
    const server = startServer({ args: ['--max-message-bytes', String(LIMIT)] });
    await ready(server);
    const tooLong = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid Request: message of ${LIMIT + 1} bytes exceeds the limit of ${LIMIT} bytes` },
    };

    // Exactly the limit is accepted; one byte more is not.
    let mark = server.mark;
    server.write(`${pingOfSize(1, LIMIT)}\n${pingOfSize(2, LIMIT + 1)}\n${ping('after-1')}`);
    await server.response('after-1', mark);
    expect(server.since(mark)).toEqual(expect.arrayContaining([{ jsonrpc: '2.0', id: 1, result: {} }, tooLong]));
    expect(server.since(mark).filter(withId(2))).toEqual([]);

    // A long line spread over several reads, and the next message in the same read as its end.
    mark = server.mark;
    const long = pingOfSize(3, 3 * LIMIT);
    server.write(long.slice(0, LIMIT - 10));
    await sleep(10);
    server.write(long.slice(LIMIT - 10, 2 * LIMIT));
    await sleep(10);
    server.write(`${long.slice(2 * LIMIT)}\n${ping('after-2')}`);
    await server.response('after-2', mark);
    expect(server.since(mark)).toContainEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid Request: message of ${3 * LIMIT} bytes exceeds the limit of ${LIMIT} bytes` },
    });
    expect(server.since(mark).filter(withId(3))).toEqual([]);
  });

  // The CR of a CRLF ending is part of the line ending, not of the message: it does not count
  // against --max-message-bytes.
  it(`accepts a message of exactly ${LIMIT} bytes with a CRLF ending`, async ({ startServer }) => {
    const server = startServer({ args: ['--max-message-bytes', String(LIMIT)] });
    await ready(server);
    const mark = server.mark;
    server.write(`${pingOfSize('crlf', LIMIT)}\r\n`);
    expect(await server.response('crlf', mark)).toEqual({ jsonrpc: '2.0', id: 'crlf', result: {} });
  });

  it('answers an oversized last line without a newline at EOF, then exits 0', async ({ startServer }) => {
    const server = startServer({ args: ['--max-message-bytes', String(LIMIT)] });
    await ready(server);
    server.write(pingOfSize(1, 2 * LIMIT));
    expect(await server.close()).toEqual({ code: 0, signal: null });
    expect(server.received.at(-1)!.message).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe.concurrent('bad input', () => {
  it.for([
    ['0xff 0xfe', [0xff, 0xfe]],
    ['an overlong "/" (0xc0 0xaf)', [0xc0, 0xaf]],
    ['a UTF-16 surrogate (0xed 0xa0 0x80)', [0xed, 0xa0, 0x80]],
    ['"磁" cut after 2 of its 3 bytes', [...Buffer.from('磁').subarray(0, 2)]],
  ] as const)('answers a line that is not UTF-8 with -32700, id null, and reads on: %s', async ([, bad], { startServer }) => {
    const server = startServer();
    await ready(server);
    const mark = server.mark;
    // Inside a JSON string of an otherwise valid request: the whole line is refused.
    server.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"bad","method":"ping","params":{"s":"'),
        Buffer.from(bad),
        Buffer.from('"}}\n'),
        Buffer.from(ping('next')),
      ]),
    );
    await server.response('next', mark);
    expect(server.since(mark)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid UTF-8' } },
      { jsonrpc: '2.0', id: 'next', result: {} },
    ]);
  });

  it('answers what is not JSON with -32700, id null', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    for (const text of ['hello', '{"jsonrpc":"2.0","id":1,"method":"ping"', '{"jsonrpc":"2.0","id":1,"method":"ping"}}', "{'jsonrpc':'2.0'}", '[1,]']) {
      const mark = server.mark;
      server.write(`${text}\n${ping('next')}`);
      await server.response('next', mark);
      expect(server.since(mark)[0], text).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    }
  });

  it.for([
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }, 1],
    ['no jsonrpc', { id: 2, method: 'ping' }, 2],
    ['a method that is a number', { jsonrpc: '2.0', id: 3, method: 5 }, 3],
    ['no method', { jsonrpc: '2.0', id: 'm' }, 'm'],
    ['params that are a string', { jsonrpc: '2.0', id: 4, method: 'ping', params: 'x' }, 4],
    ['an id that is not an integer', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
    ['an id that is null', { jsonrpc: '2.0', id: null, method: 'ping' }, null],
    ['an id that is an object', { jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, null],
    ['an id that is a boolean', { jsonrpc: '2.0', id: true, method: 'ping' }, null],
    ['a number', 42, null],
    ['a string', 'ping', null],
    ['null', null, null],
  ] as const)('answers an invalid request with -32600, echoing a readable id: %s', async ([, message, id], { startServer }) => {
    const server = startServer();
    await ready(server);
    const mark = server.mark;
    server.write(`${line(message)}${ping('next')}`);
    await server.response('next', mark);
    const [answer] = server.since(mark);
    expect(answer).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) } });
  });

  it('answers a second request with an id still in flight with -32600 and that id', async ({ startServer }) => {
    const server = startServer({ args: ['--probe-timeout', '1000'] });
    const mark = server.mark;
    // A 2026-07-28 subscriptions/listen stays in flight until cancelled, however the server's turns fall.
    const params = { _meta: modernMeta() };
    const listen = line({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { ...params, notifications: {} } });
    const call = line({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...params, name: 'list_mounts', arguments: {} } });
    server.write(listen + call);
    await server.waitFor((message) => withId(7)(message) && isRecord(message) && 'error' in message, 'the error for the second id 7', { after: mark });
    server.write(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: modernMeta(), requestId: 7 } }));
    await server.request('ping', { _meta: modernMeta() });
    const answers = server.since(mark).filter(withId(7)) as Array<Record<string, unknown>>;
    // The error, and nothing for the listen: a cancelled stream ends silently.
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringContaining('already in use') } }]);
  });
});

describe.skipIf(announceSkip('ids and names (POSIX paths)', posixPathsSkipReason)).concurrent('ids and names', () => {
  it('echoes every id exactly: strings, 0, negative and the largest safe integers', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    for (const id of ['abc', '', '磁盘', '0', 0, -1, 9007199254740991, -9007199254740991, 1e3]) {
      const mark = server.mark;
      server.write(ping(id));
      const found = await server.waitFor(isResponse, `the answer to ${JSON.stringify(id)}`, { after: mark });
      expect(found.message, JSON.stringify(id)).toEqual({ jsonrpc: '2.0', id, result: {} });
      // As written: a number stays a number of the same digits, a string stays a string.
      expect(found.line).toBe(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`);
    }
  });

  it('treats the names of Object.prototype as unknown methods, tools, arguments and levels', async ({ startServer }) => {
    const server = startServer();
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
    for (const method of names)
      expect((await server.request(method)).error, `${method} before initialize`).toEqual({ code: -32601, message: `Method not found: ${method}` });
    await ready(server);
    for (const method of names) expect((await server.request(method)).error, method).toEqual({ code: -32601, message: `Method not found: ${method}` });
    for (const name of names) expect((await server.callTool(name, {})).error?.code, `tool ${name}`).toBe(-32602);
    for (const level of names) expect((await server.request('logging/setLevel', { level })).error?.code, `level ${level}`).toBe(-32602);
    // A "__proto__" key in JSON is an own property, not a prototype: still an unknown argument.
    server.write('{"jsonrpc":"2.0","id":"proto","method":"tools/call","params":{"name":"disk_usage","arguments":{"__proto__":{"path":"/"}}}}\n');
    expect((await server.response('proto')).result).toEqual({
      content: [{ type: 'text', text: expect.stringMatching(/"path" is required.*unknown argument "__proto__"/) }],
      isError: true,
    });
  });

  it('writes non-ASCII as raw UTF-8, never as \\u escapes', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    expect((await server.callTool('disk_usage', { path: CHINESE_PATH })).result?.content[0].text).toBe(ENOENT_TEXT);
    expect((await server.request('磁盘/列表')).error?.message).toBe('Method not found: 磁盘/列表');
    await server.close();
    const stdout = server.stdout;
    expect(stdout.includes(Buffer.from(`"text":"${ENOENT_TEXT}"`, 'utf8'))).toBe(true);
    expect(stdout.includes(Buffer.from('Method not found: 磁盘/列表', 'utf8'))).toBe(true);
    expect(stdout.toString('latin1')).not.toMatch(/\\u[0-9a-fA-F]{4}/);
  });
});

describe.skipIf(announceSkip('end of input (disk_usage of /, SIGTERM)', endOfInputSkipReason)).concurrent('end of input', () => {
  /** 50 requests of every kind, in one write. */
  function fifty(): { text: string; ids: number[] } {
    const params = [
      { method: 'tools/call', params: { name: 'disk_usage', arguments: { path: '/' } } },
      { method: 'tools/call', params: { name: 'disk_usage', arguments: { path: CHINESE_PATH } } },
      { method: 'tools/call', params: { name: 'list_mounts', arguments: {} } },
      { method: 'tools/call', params: { name: 'system_info', arguments: {} } },
      { method: 'resources/read', params: { uri: 'disk://usage//' } },
      { method: 'tools/list' },
      { method: 'ping' },
    ];
    const ids = Array.from({ length: 50 }, (_, index) => 100 + index);
    return { text: ids.map((id, index) => line({ jsonrpc: '2.0', id, ...params[index % params.length] })).join(''), ids };
  }

  const answeredIds = (server: McpClient): unknown[] =>
    server.received
      .map((entry) => entry.message)
      .filter(isResponse)
      .map((response) => response.id)
      .filter((id) => typeof id === 'number' && id >= 100);

  it('answers all of 50 requests in flight at EOF, then exits 0', async ({ startServer }) => {
    const server = startServer({ args: ['--probe-timeout', '1000'] });
    await ready(server);
    const { text, ids } = fifty();
    server.write(text);
    expect(await server.close()).toEqual({ code: 0, signal: null });
    expect(answeredIds(server).sort()).toEqual(ids);
  });

  it('answers a last line that has no newline', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    server.write(ping('last').trimEnd());
    expect(await server.close()).toEqual({ code: 0, signal: null });
    expect(server.received.at(-1)!.message).toEqual({ jsonrpc: '2.0', id: 'last', result: {} });
  });

  it('on SIGTERM, like EOF: answers all 50 requests it has read, then exits 0', async ({ startServer }) => {
    const server = startServer({ args: ['--probe-timeout', '1000'] });
    await ready(server);
    const { text, ids } = fifty();
    const mark = server.mark;
    // Once the ping behind them is answered, the server has read all 50; many are still in flight.
    server.write(text + ping('read-all'));
    await server.response('read-all', mark);
    server.kill('SIGTERM');
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(answeredIds(server).sort()).toEqual(ids);
  });

  it('on SIGTERM while idle, exits 0', async ({ startServer }) => {
    const server = startServer();
    await ready(server);
    server.kill('SIGTERM');
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });
});
