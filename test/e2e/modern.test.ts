// MCP 2026-07-28 over stdio, against the built server: no handshake, every
// request naming its version and the client's capabilities in _meta, and
// every line the server writes checked against the official 2026-07-28
// schema (transcript.ts) by the startServer fixture. The legacy era is
// tested elsewhere (lifecycle, versions); here it appears only where the two
// meet in one process.
import { describe, expect } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse, mountTmpfs, posixPathsSkipReason, rootSkipReason } from '../helpers/system.js';
import { isRecord, it, type McpClient, modernMeta, PACKAGE_VERSION, type Result, sleep } from './mcpClient.js';

const VERSION = '2026-07-28';
const SERVER_INFO = { name: 'diskprobe', version: PACKAGE_VERSION };
const HOUR = 3_600_000;
const modern = { version: VERSION } as const;

const META_PROTOCOL = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

/** The fields every 2026-07-28 result carries. */
const completeResult = expect.objectContaining({
  resultType: 'complete',
  _meta: expect.objectContaining({ 'io.modelcontextprotocol/serverInfo': SERVER_INFO }),
});

describe.concurrent('MCP 2026-07-28: server/discover and results', () => {
  it('answers server/discover first, with versions, capabilities, instructions, serverInfo and caching hints', async ({ startServer }) => {
    const server = startServer(modern);
    const response = await server.modern('server/discover');
    expect(response.result).toEqual({
      supportedVersions: [VERSION],
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: false },
        logging: {},
        completions: {},
      },
      instructions: expect.stringContaining('disk_usage'),
      ttlMs: HOUR,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('gives every method its result with resultType and serverInfo, and caching hints where the spec asks for them', async ({ startServer }) => {
    const server = startServer(modern);
    const hints = (result: Result | undefined) => (result ? { ttlMs: result.ttlMs, cacheScope: result.cacheScope } : undefined);
    const cached: Array<[string, Record<string, unknown>, { ttlMs: number; cacheScope: string }]> = [
      ['tools/list', {}, { ttlMs: HOUR, cacheScope: 'public' }],
      ['prompts/list', {}, { ttlMs: HOUR, cacheScope: 'public' }],
      ['resources/templates/list', {}, { ttlMs: HOUR, cacheScope: 'public' }],
      ['resources/list', {}, { ttlMs: 60_000, cacheScope: 'private' }],
      ['resources/read', { uri: 'disk://mounts' }, { ttlMs: 0, cacheScope: 'private' }],
    ];
    for (const [method, params, expected] of cached) {
      const { result } = await server.modern(method, params);
      expect(result, method).toEqual(completeResult);
      expect(hints(result), method).toEqual(expected);
    }
    // Not cacheable: no hints.
    for (const [method, params] of [
      ['tools/call', { name: 'system_info', arguments: {} }],
      ['prompts/get', { name: 'disk_report' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: '/' } }],
    ] as const) {
      const { result } = await server.modern(method, params);
      expect(result, method).toEqual(completeResult);
      expect(result, method).not.toHaveProperty('ttlMs');
      expect(result, method).not.toHaveProperty('cacheScope');
    }
  });

  it('lists the tools in the same order every time, with titles, output schemas and annotations', async ({ startServer }) => {
    const server = startServer(modern);
    const first = (await server.modern('tools/list')).result!;
    expect(first.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'disk_usage',
      'list_mounts',
      'directory_usage',
      'explain_disk_usage',
      'system_info',
    ]);
    expect(first.tools[0]).toMatchObject({ title: expect.any(String), outputSchema: expect.any(Object), annotations: { readOnlyHint: true } });
    for (let i = 0; i < 3; i++) expect((await server.modern('tools/list')).result!.tools).toEqual(first.tools);
  });

  it.skipIf(announceSkip('2026-07-28 tools/call of / (POSIX paths)', posixPathsSkipReason))(
    'answers tools/call with content, structuredContent and isError, and input errors as a result the model can read',
    async ({ startServer }) => {
      const server = startServer(modern);
      const { result } = await server.modern('tools/call', { name: 'disk_usage', arguments: { path: '/' } });
      expect(result).toEqual({
        content: [{ type: 'text', text: expect.stringMatching(/^\/ \(/) }],
        structuredContent: expect.objectContaining({ mountPoint: '/' }),
        isError: false,
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
      const invalid = await server.modern('tools/call', { name: 'disk_usage', arguments: { path: 'relative' } });
      expect(invalid.result).toMatchObject({ isError: true, resultType: 'complete' });
    },
  );
});

describe.concurrent('MCP 2026-07-28: the per-request fields', () => {
  it.for([
    ['a missing protocolVersion', { [META_CAPABILITIES]: {} }, /protocolVersion"\] is required/],
    ['a protocolVersion that is not a string', { [META_PROTOCOL]: 20260728, [META_CAPABILITIES]: {} }, /protocolVersion"\] must be a string/],
    ['missing clientCapabilities', { [META_PROTOCOL]: VERSION }, /clientCapabilities"\] is required/],
    ['clientCapabilities that are not an object', { [META_PROTOCOL]: VERSION, [META_CAPABILITIES]: [] }, /clientCapabilities"\] must be an object/],
    [
      'a clientInfo without a version',
      { [META_PROTOCOL]: VERSION, [META_CAPABILITIES]: {}, 'io.modelcontextprotocol/clientInfo': { name: 'x' } },
      /clientInfo/,
    ],
    ['an unknown logLevel', { [META_PROTOCOL]: VERSION, [META_CAPABILITIES]: {}, 'io.modelcontextprotocol/logLevel': 'loud' }, /logLevel.*one of debug/],
  ] as const)('refuses %s with -32602 naming the field', async ([, meta, message], { startServer }) => {
    const server = startServer(modern);
    for (const method of ['tools/list', 'server/discover']) {
      const { error } = await server.request(method, { _meta: meta });
      expect(error, method).toMatchObject({ code: -32602, message: expect.stringMatching(message) });
    }
  });

  it('answers -32022 with the supported and requested versions, on every request that names another version', async ({ startServer }) => {
    const server = startServer(modern);
    await server.modern('server/discover');
    for (const requested of ['2030-01-01', '2025-11-25', '2024-11-05', '']) {
      for (const method of ['tools/list', 'tools/call', 'server/discover', 'subscriptions/listen', 'no/such/method']) {
        const { error } = await server.request(method, { _meta: { [META_PROTOCOL]: requested, [META_CAPABILITIES]: {} } });
        expect(error, `${method} naming ${JSON.stringify(requested)}`).toEqual({
          code: -32022,
          message: expect.stringContaining('initialize'),
          data: { supported: [VERSION], requested },
        });
      }
      // Checked before the other fields: a client learns what to retry with.
      expect((await server.request('tools/list', { _meta: { [META_PROTOCOL]: requested } })).error?.code).toBe(-32022);
    }
    expect((await server.modern('tools/list')).result).toEqual(completeResult);
  });

  it('checks inputResponses and requestState it never asked for, then ignores them', async ({ startServer }) => {
    const server = startServer(modern);
    const call = (extra: Record<string, unknown>) => server.modern('tools/call', { name: 'system_info', arguments: {}, ...extra });
    expect((await call({ inputResponses: {}, requestState: 'opaque' })).result).toMatchObject({ isError: false, resultType: 'complete' });
    expect((await call({ inputResponses: 'no' })).error).toMatchObject({ code: -32602, message: expect.stringContaining('inputResponses') });
    expect((await call({ requestState: 7 })).error).toMatchObject({ code: -32602, message: expect.stringContaining('requestState') });
    const read = await server.modern('resources/read', { uri: 'disk://mounts', requestState: 'x', inputResponses: { a: { action: 'accept' } } });
    expect(read.result).toEqual(completeResult);
  });
});

describe.concurrent('MCP 2026-07-28: what the revision removed or changed', () => {
  it('answers ping, logging/setLevel, resources/subscribe and /unsubscribe, and initialize with -32601', async ({ startServer }) => {
    const server = startServer(modern);
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'initialize']) {
      const params = method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } : {};
      expect((await server.modern(method, { ...params, level: 'debug', uri: 'disk://mounts' })).error, method).toMatchObject({ code: -32601 });
    }
    // Ignored, as any notification this server has no use for.
    server.notify('notifications/roots/list_changed');
    server.notify('notifications/roots/list_changed', { _meta: modernMeta() });
    expect((await server.modern('server/discover')).result).toEqual(completeResult);
  });

  it('answers a missing resource with -32602 and data.uri, where a legacy session gets -32002', async ({ startServer }) => {
    const server = startServer(modern);
    for (const uri of ['disk://nothing', 'file:///etc/passwd', 'disk://usage/relative']) {
      expect((await server.modern('resources/read', { uri })).error).toEqual({ code: -32602, message: `Resource not found: ${uri}`, data: { uri } });
    }
    const legacy = startServer({ version: '2025-11-25' });
    await legacy.initialize();
    expect((await legacy.request('resources/read', { uri: 'disk://nothing' })).error).toMatchObject({ code: -32002, data: { uri: 'disk://nothing' } });
  });
});

describe.concurrent('MCP 2026-07-28 beside a legacy session in one process', () => {
  it('serves 2026-07-28 requests statelessly before, during and after a legacy session, and the session as before', async ({ startServer }) => {
    const server = startServer({ version: '2025-06-18' });
    // No initialize yet: a legacy request is refused, a modern one served.
    expect((await server.request('tools/list')).error).toMatchObject({ code: -32600, message: expect.stringContaining('send initialize') });
    expect((await server.modern('tools/list')).result).toEqual(completeResult);
    await server.initialize('2025-06-18');
    const legacyTools = (await server.result('tools/list')).tools;
    expect(legacyTools[0]).toHaveProperty('outputSchema');
    const legacyList = await server.result('tools/list');
    expect(legacyList).not.toHaveProperty('resultType');
    expect(legacyList).not.toHaveProperty('ttlMs');
    // The modern request is still 2026-07-28 in shape, whatever the session agreed.
    const modernList = (await server.modern('tools/list')).result!;
    expect(modernList).toMatchObject({ resultType: 'complete', ttlMs: HOUR });
    // Removed in 2026-07-28, but the legacy session still has it.
    expect((await server.request('ping')).result).toEqual({});
    expect((await server.modern('ping')).error?.code).toBe(-32601);
  });

  it('refuses a 2026-07-28 request inside a batch, and answers the rest of the batch', async ({ startServer }) => {
    const server = startServer({ version: '2025-03-26' });
    await server.initialize('2025-03-26');
    const mark = server.mark;
    server.send([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list', params: { _meta: modernMeta() } },
    ]);
    const batch = (await server.waitFor(Array.isArray, 'the batch response', { after: mark })).message as Array<Record<string, unknown>>;
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', error: { code: -32600, message: expect.stringContaining('batch') } },
    ]);
  });
});

describe.concurrent('MCP 2026-07-28: logging, progress and cancellation per request', () => {
  it('sends no log message to a request that asked for none, and the fallback warning only to one that asked', async ({ startServer }) => {
    const server = startServer({ ...modern, env: { DISKPROBE_BACKEND: 'statfs' } });
    const isLog = (message: unknown) => isRecord(message) && message.method === 'notifications/message';
    let mark = server.mark;
    await server.modern('server/discover');
    expect(server.since(mark).filter(isLog)).toEqual([]);
    mark = server.mark;
    await server.modern('server/discover', {}, { 'io.modelcontextprotocol/logLevel': 'error' });
    expect(server.since(mark).filter(isLog)).toEqual([]);
    mark = server.mark;
    await server.modern('server/discover', {}, { 'io.modelcontextprotocol/logLevel': 'warning' });
    expect(server.since(mark).filter(isLog)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'warning', logger: 'diskprobe', data: expect.objectContaining({ event: 'fallback backend in use' }) },
      },
    ]);
    // Nothing carries over: the next request asked for nothing, and gets nothing.
    mark = server.mark;
    await server.modern('server/discover');
    expect(server.since(mark).filter(isLog)).toEqual([]);
  });

  it('reports list_mounts progress for the request that asked, increasing, and none after the response', async ({ startServer }) => {
    const server = startServer(modern);
    const mark = server.mark;
    const response = await server.modern('tools/call', { name: 'list_mounts', arguments: {} }, { progressToken: 'p1' });
    expect(response.result).toMatchObject({ isError: false });
    const lines = server.since(mark);
    const progress = lines.filter((message) => isRecord(message) && message.method === 'notifications/progress') as Array<{
      params: { progressToken: string; progress: number };
    }>;
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((message) => message.params.progressToken === 'p1')).toBe(true);
    const values = progress.map((message) => message.params.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(lines.indexOf(progress.at(-1)!)).toBeLessThan(lines.indexOf(response));
  });
});

/** Waits until a notification of `method` tagged with `subscription` (and `uri`, if given) arrives after `after`. */
function subscriptionEvent(server: McpClient, subscription: number, method: string, after: number, uri?: string) {
  return server.waitFor(
    (message) =>
      isRecord(message) &&
      message.method === method &&
      isRecord(message.params) &&
      isRecord(message.params._meta) &&
      message.params._meta[SUBSCRIPTION] === subscription &&
      (uri === undefined || message.params.uri === uri),
    `${method} on subscription ${subscription}`,
    { after, timeoutMs: 10_000 },
  );
}

describe('MCP 2026-07-28: subscriptions/listen', () => {
  it('acknowledges what it honours, ends a cancelled stream silently, and the others at EOF with their result', async ({ startServer }) => {
    const server = startServer(modern);
    const listen = (id: number, notifications: Record<string, unknown>) =>
      server.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications } });
    let mark = server.mark;
    listen(101, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['disk://mounts', 'disk://usage//'] });
    const ack = await subscriptionEvent(server, 101, 'notifications/subscriptions/acknowledged', mark);
    expect((ack.message as Result).params).toEqual({
      _meta: { [SUBSCRIPTION]: 101 },
      notifications: { resourcesListChanged: true, resourceSubscriptions: ['disk://mounts'] },
    });
    listen(102, { toolsListChanged: true });
    expect(((await subscriptionEvent(server, 102, 'notifications/subscriptions/acknowledged', mark)).message as Result).params.notifications).toEqual({});
    listen(103, {});
    await subscriptionEvent(server, 103, 'notifications/subscriptions/acknowledged', mark);
    // A bad filter is refused; the stream it would have opened does not exist.
    expect((await server.modern('subscriptions/listen', { notifications: { resourceSubscriptions: 'disk://mounts' } })).error?.code).toBe(-32602);
    expect((await server.modern('subscriptions/listen', {})).error?.code).toBe(-32602);
    // The streams stay open while other requests are answered.
    expect((await server.modern('tools/list')).result).toEqual(completeResult);
    mark = server.mark;
    server.notify('notifications/cancelled', { requestId: 102, reason: 'done with it' });
    await sleep(300);
    const ofTheCancelled = (message: unknown) =>
      isRecord(message) && (message.id === 102 || (isRecord(message.params) && isRecord(message.params._meta) && message.params._meta[SUBSCRIPTION] === 102));
    expect(server.since(mark).filter(ofTheCancelled)).toEqual([]);
    // EOF: the open ones end with their graceful result, the cancelled one with nothing.
    mark = server.mark;
    expect(await server.close()).toEqual({ code: 0, signal: null });
    const ends = server.since(mark) as Result[];
    expect(ends).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 101, result: { resultType: 'complete', _meta: { [SUBSCRIPTION]: 101, 'io.modelcontextprotocol/serverInfo': SERVER_INFO } } },
        { jsonrpc: '2.0', id: 103, result: { resultType: 'complete', _meta: { [SUBSCRIPTION]: 103, 'io.modelcontextprotocol/serverInfo': SERVER_INFO } } },
      ]),
    );
    expect(ends.filter(ofTheCancelled)).toEqual([]);
  });

  it('cancels a stream that reuses the id of an answered initialize', async ({ startServer }) => {
    const server = startServer({ version: '2025-11-25' });
    await server.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }, 'init');
    server.notify('notifications/initialized');
    const mark = server.mark;
    server.send({ jsonrpc: '2.0', id: 'init', method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications: { resourcesListChanged: true } } });
    await server.waitFor((message) => isRecord(message) && message.method === 'notifications/subscriptions/acknowledged', 'the acknowledgment', {
      after: mark,
    });
    server.notify('notifications/cancelled', { requestId: 'init' });
    expect((await server.request('ping')).result).toEqual({});
    // Closed by the cancel: EOF finds no stream to end, so nothing ever answers it.
    expect(await server.close()).toEqual({ code: 0, signal: null });
    expect(server.since(mark).filter((message) => isRecord(message) && message.id === 'init')).toEqual([]);
  });

  it.skipIf(announceSkip('subscriptions/listen with real mounts', rootSkipReason))(
    'tells each stream that asked when a file system is mounted and unmounted, tagged with its own id',
    async ({ startServer }) => {
      const server = startServer(modern);
      let mark = server.mark;
      // Log messages belong to the request that asked, never to a stream (logging.mdx): this one asks, and gets none.
      const listenMeta = modernMeta({ 'io.modelcontextprotocol/logLevel': 'debug' });
      server.send({ jsonrpc: '2.0', id: 10, method: 'subscriptions/listen', params: { _meta: listenMeta, notifications: { resourcesListChanged: true } } });
      server.send({
        jsonrpc: '2.0',
        id: 11,
        method: 'subscriptions/listen',
        params: { _meta: modernMeta(), notifications: { resourceSubscriptions: ['disk://mounts'] } },
      });
      await subscriptionEvent(server, 10, 'notifications/subscriptions/acknowledged', mark);
      await subscriptionEvent(server, 11, 'notifications/subscriptions/acknowledged', mark);
      const expectEvents = async (after: number): Promise<void> => {
        await subscriptionEvent(server, 10, 'notifications/resources/list_changed', after);
        await subscriptionEvent(server, 11, 'notifications/resources/updated', after, 'disk://mounts');
        // Each stream gets only what it asked for.
        const lines = server.since(after) as Result[];
        const tagged = (method: string, id: number) => lines.filter((message) => message.method === method && message.params._meta[SUBSCRIPTION] === id);
        expect(tagged('notifications/resources/updated', 10)).toEqual([]);
        expect(tagged('notifications/resources/list_changed', 11)).toEqual([]);
        expect(lines.filter((message) => message.method === 'notifications/message')).toEqual([]);
      };
      mark = server.mark;
      const disk = mountTmpfs('size=1m');
      try {
        await expectEvents(mark);
      } finally {
        mark = server.mark;
        disk.cleanup();
      }
      await expectEvents(mark);
      // Cancelled, they hear nothing more.
      server.notify('notifications/cancelled', { requestId: 10 });
      server.notify('notifications/cancelled', { requestId: 11 });
      await sleep(100);
      mark = server.mark;
      const again = mountTmpfs('size=1m');
      try {
        await sleep(1500);
        expect(server.since(mark)).toEqual([]);
      } finally {
        again.cleanup();
      }
    },
  );
});

describe.skipIf(announceSkip('2026-07-28 with a dead mount', fuseSkipReason))('MCP 2026-07-28 with a dead mount', () => {
  it("logs the server's own events only to the requests in flight that asked, at their level", async ({ startServer }) => {
    const dead: FuseMount = await mountFuse('hang');
    try {
      const server = startServer({ ...modern, args: ['--probe-timeout', '500'] });
      const mark = server.mark;
      const call = (meta: Record<string, unknown>) => server.modern('tools/call', { name: 'disk_usage', arguments: { path: dead.dir } }, meta);
      // Warnings and above: other tests mounting meanwhile log at info, which must not reach this one.
      const asked = call({ 'io.modelcontextprotocol/logLevel': 'warning' });
      const tooSevere = call({ 'io.modelcontextprotocol/logLevel': 'error' });
      const silent = call({});
      for (const response of await Promise.all([asked, tooSevere, silent])) {
        expect(response.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('ETIMEDOUT') }] });
      }
      const logs = server.since(mark).filter((message) => isRecord(message) && message.method === 'notifications/message') as Result[];
      // One event (the mount went stuck), to the one request that asked for warnings.
      expect(logs).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'warning', logger: 'diskprobe', data: expect.objectContaining({ event: 'probe timed out', mountPoint: dead.dir }) },
        },
      ]);
      expect(server.stderr).toContain('probe timed out');
    } finally {
      dead.cleanup();
    }
  });

  it('cancels a call that waits on it: no answer, and the server goes on', async ({ startServer }) => {
    const dead: FuseMount = await mountFuse('hang');
    try {
      const server = startServer({ ...modern, args: ['--probe-timeout', '2000'] });
      const id = server.newId();
      const mark = server.mark;
      server.send({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: `disk://usage/${dead.dir}`, _meta: modernMeta() } });
      await sleep(100);
      server.notify('notifications/cancelled', { requestId: id, reason: 'user pressed stop' });
      expect((await server.modern('server/discover')).result).toEqual(completeResult);
      await sleep(2500);
      expect(server.since(mark).filter((message) => isRecord(message) && message.id === id)).toEqual([]);
    } finally {
      dead.cleanup();
    }
  });
});
