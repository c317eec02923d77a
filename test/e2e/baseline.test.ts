// The server's baseline (docs/baseline.md) against the built server: every
// example message of §1 (the three message shapes), §2 (initialize) and §5
// (the two kinds of tool failure) gets the answer the baseline shows, in the
// same shape, and every error code of its §8 table is produced by the input
// the table describes. The baseline speaks 2024-11-05.
import { describe, expect } from 'vitest';

import { announceSkip, posixPathsSkipReason } from '../helpers/system.js';
import { it, LATEST_VERSION, PACKAGE_VERSION } from './mcpClient.js';

const VERSION = '2024-11-05';
/** A path that exists on no test machine, like the article's unmounted /data. */
const MISSING = '/nonexistent-diskprobe-e2e/data';

// -32603 is what a handler's unexpected exception becomes (src/jsonrpc/errors.ts).
// No input provokes it from outside: every failure a request can cause is an
// RpcError or a tool result, and the one other exception (the AbortError of a
// cancelled call) belongs to a request whose response is never sent. So the
// article's -32603 rows are tested in-process, with a handler that throws
// (test/jsonrpc/dispatcher.test.ts, "hides a bug behind -32603").

describe.skipIf(announceSkip('baseline §1 (disk_usage of /)', posixPathsSkipReason)).concurrent('baseline §1: three message shapes', () => {
  it('answers the example tools/call disk_usage {path:"/"} with content text and isError false', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    const mark = server.mark;
    server.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"}}}');
    const response = await server.response(1, mark);
    // {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"/ used=61.2%"}],"isError":false}}
    expect(Object.keys(response).sort()).toEqual(['id', 'jsonrpc', 'result']);
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: expect.any(String) }], isError: false } });
    expect(response.result!.content[0].text).toMatch(/^\/ \(.+\): \d+% used, /);
  });

  it('echoes the id unchanged, a string or a number', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    for (const id of ['req-1', 1, '1']) {
      const response = await server.request('ping', undefined, id);
      expect(response).toEqual({ jsonrpc: '2.0', id, result: {} });
    }
  });

  it('answers no notification: notifications/initialized and notifications/cancelled', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize(VERSION, { initialized: false });
    const mark = server.mark;
    server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    server.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"user gave up"}}');
    await server.request('ping', undefined, 'after');
    expect(server.since(mark)).toEqual([{ jsonrpc: '2.0', id: 'after', result: {} }]);
  });
});

describe.concurrent('baseline §2: initialize, both halves of the offer', () => {
  it('answers the example initialize with 2024-11-05, its capabilities, serverInfo and instructions', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    server.send(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{' +
        '"protocolVersion":"2024-11-05",' +
        '"capabilities":{"sampling":{},"roots":{"listChanged":true}},' +
        '"clientInfo":{"name":"host","version":"1.4.0"}}}',
    );
    const response = await server.response(1);
    expect(Object.keys(response).sort()).toEqual(['id', 'jsonrpc', 'result']);
    expect(response.result).toEqual({
      protocolVersion: VERSION,
      // completions came with 2025-03-26, so a 2024-11-05 session is not offered them.
      capabilities: { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false }, prompts: { listChanged: false }, logging: {} },
      serverInfo: { name: 'diskprobe', version: PACKAGE_VERSION },
      instructions: expect.any(String),
    });
    // Like the article's: which tool to prefer, and no relative paths.
    expect(response.result!.instructions).toContain('disk_usage');
    expect(response.result!.instructions).toMatch(/relative paths are refused/);
  });

  it('answers a version it does not support with its own, not an error, and the client decides', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    const result = await server.initialize('2023-01-01');
    expect(result.protocolVersion).toBe(LATEST_VERSION);
  });

  it('refuses tools/list until notifications/initialized, then answers it', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize(VERSION, { initialized: false });
    const refused = await server.request('tools/list');
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining('send notifications/initialized first') });
    server.notify('notifications/initialized');
    const listed = await server.request('tools/list');
    expect(listed.result!.tools.map((tool: { name: string }) => tool.name)).toContain('disk_usage');
  });
});

describe.skipIf(announceSkip('baseline §5 (POSIX paths)', posixPathsSkipReason)).concurrent('baseline §5: the two kinds of tool failure', () => {
  it.for([
    ['a relative path', { path: 'data' }, 'use an absolute path'],
    ['an argument the schema does not have (additionalProperties: false)', { path: '/', color: 'red' }, 'unknown argument "color"'],
    ['a unit outside the enum', { path: '/', unit: 'gb' }, '"unit" must be one of "percent", "mib", "mb"'],
    ['no path at all (required)', {}, '"path" is required'],
  ] as const)('answers arguments that break the inputSchema with -32602: %s', async ([, args, detail], { startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    const response = await server.callTool('disk_usage', args);
    expect(response.result).toBeUndefined();
    expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining(detail) });
  });

  it('answers a path that does not exist with a result: content text and isError true', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    const response = await server.callTool('disk_usage', { path: MISSING });
    // {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"FileNotFoundError: /data 未挂载"}],"isError":true}}
    expect(response.error).toBeUndefined();
    expect(response.result).toEqual({ content: [{ type: 'text', text: `ENOENT: ${MISSING}: no such file or directory` }], isError: true });
  });
});

describe.concurrent('baseline §8: error codes', () => {
  it.for([
    ['stdout pollution: a line that is not JSON', 'debug: starting up'],
    ['a message cut short', '{"jsonrpc":"2.0","id":1,"method":"ping"'],
  ] as const)('-32700 Parse error, id null: %s', async ([, line], { startServer }) => {
    const server = startServer({ version: VERSION });
    server.send(line);
    const response = await server.response(null);
    expect(response.error).toMatchObject({ code: -32700, message: expect.stringMatching(/^Parse error/) });
  });

  it.for([
    ['no method', '{"jsonrpc":"2.0","id":3}', 3],
    ['no jsonrpc', '{"id":4,"method":"ping"}', 4],
    ['a method that is not a string', '{"jsonrpc":"2.0","id":"m","method":7}', 'm'],
  ] as const)('-32600 Invalid Request, echoing the id: %s', async ([, line, id], { startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    server.send(line);
    expect((await server.response(id)).error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Invalid Request/) });
  });

  it('-32601 Method not found for methods of capabilities it does not declare', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    // completions is not a 2024-11-05 capability; resources are declared with subscribe: false; the rest are the client's.
    const completion = { ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: '/' } };
    for (const [method, params] of [
      ['completion/complete', completion],
      ['resources/subscribe', { uri: 'disk://mounts' }],
      ['sampling/createMessage', { messages: [], maxTokens: 1 }],
      ['roots/list', {}],
    ] as const) {
      const response = await server.request(method, params);
      expect(response.error, method).toEqual({ code: -32601, message: `Method not found: ${method}` });
    }
  });

  it('-32602 Invalid params for arguments that break the inputSchema, and a bad log level', async ({ startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    expect((await server.callTool('disk_usage', { path: 'relative/path' })).error?.code).toBe(-32602);
    expect((await server.request('logging/setLevel', { level: 'loud' })).error?.code).toBe(-32602);
  });

  it.for([
    ['a scheme the server does not serve', 'file:///nonexistent.txt'],
    ['the usage of a path that does not exist', `disk://usage/${MISSING}`],
    ['a usage URI whose path is relative', 'disk://usage/data'],
  ] as const)('-32002 Resource not found for resources/read of %s, with the uri as data', async ([, uri], { startServer }) => {
    const server = startServer({ version: VERSION });
    await server.initialize();
    const response = await server.request('resources/read', { uri });
    expect(response.error).toEqual({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
  });
});
