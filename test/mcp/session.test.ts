// The MCP session in-process: lifecycle, what each version shows, input
// validation, progress, logging and cancellation, with a fake tool.
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../../dist/jsonrpc/dispatcher.js';
import type { Notification } from '../../dist/mcp/protocol/requestScope.js';
import { RootPolicy } from '../../dist/mcp/protocol/roots.js';
import type { Tool } from '../../dist/mcp/protocol/tool.js';
import { LEGACY_VERSIONS } from '../../dist/mcp/protocol/versions.js';
import { McpServer } from '../../dist/mcp/server.js';
import { announceSkip, linuxSkipReason, posixPathsSkipReason } from '../helpers/system.js';

const slowTool: Tool = {
  name: 'slow',
  title: 'Slow',
  description: 'Counts to three, slowly, unless cancelled.',
  inputSchema: { type: 'object', properties: { label: { type: 'string', description: 'A label', pattern: '^/' } }, additionalProperties: false },
  hints: { label: 'start it with a slash' },
  outputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  async call(_args, context) {
    for (let n = 1; n <= 3; n++) {
      if (context.signal.aborted) throw context.signal.reason;
      await new Promise((resolve) => setTimeout(resolve, 5));
      context.progress(n, 3, `step ${n}`);
      context.progress(n, 3); // repeated: must not go out twice
    }
    context.log('debug', 'finished');
    return { text: 'three', structured: { n: 3 } };
  },
};

function connect(logLevel: 'warning' | 'debug' = 'warning', tools: Tool[] = [slowTool], roots: string[] = []) {
  const out: unknown[] = [];
  let dispatcher: Dispatcher;
  const session = new McpServer({
    serverVersion: '9.9.9',
    tools,
    roots: new RootPolicy(roots),
    probeTimeout: 1000,
    logLevel,
    notify: (notification: Notification) => void out.push({ jsonrpc: '2.0', ...notification }),
    cancel: (id) => dispatcher.cancel(id),
    reportBug: () => {},
  });
  dispatcher = new Dispatcher(session, (message) => void out.push(message));
  let nextId = 1;
  const request = async (method: string, params?: unknown): Promise<Record<string, any>> => {
    const id = nextId++;
    dispatcher.handleLine(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) }));
    await dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
    return out.find((message) => (message as { id?: number }).id === id) as Record<string, any>;
  };
  const notify = (method: string, params?: unknown): void =>
    dispatcher.handleLine(JSON.stringify({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) }));
  return { session, dispatcher, out, request, notify };
}

describe('McpServer, legacy: lifecycle', () => {
  it('serves only initialize and ping before initialize, only ping until initialized', async () => {
    const { session, request, notify } = connect();
    expect((await request('tools/list')).error).toMatchObject({ code: -32600, message: expect.stringContaining('send initialize') });
    expect((await request('ping')).result).toEqual({});
    expect((await request('nope')).error.code).toBe(-32601);
    expect(session.legacy.state).toBe('awaitingInitialize');
    expect((await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } })).result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'diskprobe', version: '9.9.9' },
    });
    expect((await request('tools/list')).error).toMatchObject({ code: -32600, message: expect.stringContaining('send notifications/initialized first') });
    expect((await request('initialize', { protocolVersion: '2025-06-18' })).error.code).toBe(-32600);
    notify('notifications/initialized');
    expect(session.legacy.state).toBe('ready');
    expect((await request('tools/list')).result.tools).toHaveLength(1);
    expect((await request('initialize', { protocolVersion: '2025-06-18' })).error.code).toBe(-32600);
  });

  it("negotiates: the client's version when supported, the latest otherwise, and needs one", async () => {
    for (const [asked, answered] of [...LEGACY_VERSIONS.map((v) => [v, v]), ['1999-01-01', '2025-11-25'], ['2025-11-25-draft', '2025-11-25']]) {
      const { request } = connect();
      expect((await request('initialize', { protocolVersion: asked })).result.protocolVersion).toBe(answered);
    }
    expect((await connect().request('initialize', {})).error.code).toBe(-32602);
  });
});

async function ready(version: string, logLevel: 'warning' | 'debug' = 'warning') {
  const client = connect(logLevel);
  await client.request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } });
  client.notify('notifications/initialized');
  return client;
}

describe.each(LEGACY_VERSIONS)('McpServer, legacy: under %s', (version) => {
  const newer = (since: string): boolean => version >= since;

  it('shows the tool fields this version knows, and no newer ones', async () => {
    const { request } = await ready(version);
    const [tool] = (await request('tools/list')).result.tools;
    expect(tool.name).toBe('slow');
    expect('annotations' in tool).toBe(newer('2025-03-26'));
    if (newer('2025-03-26')) expect(tool.annotations.readOnlyHint).toBe(true);
    expect('title' in tool).toBe(newer('2025-06-18'));
    expect('outputSchema' in tool).toBe(newer('2025-06-18'));
  });

  it('keeps structuredContent for versions that know it, and the text alongside', async () => {
    const { request } = await ready(version);
    const { result } = await request('tools/call', { name: 'slow', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'three' }]);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual(newer('2025-06-18') ? { n: 3 } : undefined);
  });

  it('refuses bad arguments as -32602, or from 2025-11-25 as a result the model can read', async () => {
    const { request } = await ready(version);
    const response = await request('tools/call', { name: 'slow', arguments: { label: 'relative', extra: 1 } });
    const text = 'invalid arguments for slow: "label" is "relative": start it with a slash; unknown argument "extra"; expected only "label"';
    if (newer('2025-11-25')) expect(response.result).toEqual({ content: [{ type: 'text', text }], isError: true });
    else expect(response.error).toEqual({ code: -32602, message: `Invalid params: ${text}` });
    expect((await request('tools/call', { name: 'missing' })).error.code).toBe(-32602);
    expect((await request('tools/call', {})).error.code).toBe(-32602);
  });

  it('accepts batches only under 2025-03-26', async () => {
    const { dispatcher, out } = await ready(version);
    out.length = 0;
    dispatcher.handleLine('[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]');
    await dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
    if (version === '2025-03-26') expect(out).toEqual([[{ jsonrpc: '2.0', id: 'b1', result: {} }]]);
    else expect(out).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }]);
  });
});

describe('McpServer, legacy: utilities', () => {
  it('reports progress in increasing steps, and none after the response', async () => {
    const { out, request } = await ready('2025-11-25');
    const response = await request('tools/call', { name: 'slow', arguments: {}, _meta: { progressToken: 'tok' } });
    const at = out.indexOf(response);
    const progress = out.filter((m) => (m as { method?: string }).method === 'notifications/progress') as Array<{ params: Record<string, unknown> }>;
    expect(progress.map((m) => m.params)).toEqual([1, 2, 3].map((n) => ({ progressToken: 'tok', progress: n, total: 3, message: `step ${n}` })));
    expect(out.slice(at + 1).some((m) => (m as { method?: string }).method === 'notifications/progress')).toBe(false);
  });

  it('leaves the progress message out under 2024-11-05', async () => {
    const { out, request } = await ready('2024-11-05');
    await request('tools/call', { name: 'slow', _meta: { progressToken: 7 } });
    const first = out.find((m) => (m as { method?: string }).method === 'notifications/progress') as { params: Record<string, unknown> };
    expect(first.params).toEqual({ progressToken: 7, progress: 1, total: 3 });
  });

  it('sends log messages at or above the level, and refuses unknown levels', async () => {
    const quiet = await ready('2025-06-18');
    await quiet.request('tools/call', { name: 'slow' });
    expect(quiet.out.some((m) => (m as { method?: string }).method === 'notifications/message')).toBe(false);
    expect((await quiet.request('logging/setLevel', { level: 'debug' })).result).toEqual({});
    await quiet.request('tools/call', { name: 'slow' });
    expect(quiet.out).toContainEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', logger: 'diskprobe', data: 'finished' } });
    expect((await quiet.request('logging/setLevel', { level: 'verbose' })).error.code).toBe(-32602);
  });

  it('cancels a call: its signal aborts and it is never answered', async () => {
    const { dispatcher, out, notify } = await ready('2025-06-18');
    dispatcher.handleLine('{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"slow"}}');
    notify('notifications/cancelled', { requestId: 'long', reason: 'enough' });
    notify('notifications/cancelled', { requestId: 'never-sent' });
    notify('notifications/cancelled', {});
    await dispatcher.idle();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(out.some((m) => (m as { id?: string }).id === 'long')).toBe(false);
  });
});

describe('McpServer, legacy: and deeply nested params (found by fuzzing)', () => {
  it('answers -32600 with the id, not -32603, where a handler would quote a value 5,000 levels deep', async () => {
    const { request, notify, dispatcher, out } = connect();
    await request('initialize', { protocolVersion: '2025-03-26' });
    notify('notifications/initialized');
    // As text: JSON.stringify itself cannot write a value this deep.
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const cases = [
      ['prompts/get', `{"name":${deep}}`],
      ['completion/complete', `{"ref":{"type":"ref/prompt","name":${deep}},"argument":{"name":"x","value":"/"}}`],
      ['resources/list', `{"cursor":${deep}}`],
      ['tools/list', `{"cursor":${deep}}`],
      ['tools/call', `{"name":${deep}}`],
      ['logging/setLevel', `{"level":${deep}}`],
    ];
    const mark = out.length;
    for (const [method, params] of cases) dispatcher.handleLine(`{"jsonrpc":"2.0","id":"${method}","method":"${method}","params":${params}}`);
    await dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.slice(mark)).toEqual(
      cases.map(([method]) => ({
        jsonrpc: '2.0',
        id: method,
        error: { code: -32600, message: 'Invalid Request: the message nests more than 1000 levels deep' },
      })),
    );
  });
});

describe.skipIf(announceSkip('McpServer, legacy: resources, prompts and completion on /', posixPathsSkipReason))(
  'McpServer, legacy: resources, prompts and completion',
  () => {
    it('declares them, with completions from 2025-03-26', async () => {
      for (const version of LEGACY_VERSIONS) {
        const { result } = await connect().request('initialize', { protocolVersion: version });
        expect(result.capabilities).toEqual({
          tools: { listChanged: false },
          resources: { subscribe: false, listChanged: false },
          prompts: { listChanged: false },
          logging: {},
          ...(version >= '2025-03-26' && { completions: {} }),
        });
      }
      const old = await ready('2024-11-05');
      expect(
        (await old.request('completion/complete', { ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: '/' } })).error.code,
      ).toBe(-32601);
    });

    it('pages resources/list with an opaque cursor, and refuses a made-up one', async () => {
      const { request } = await ready('2025-11-25');
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const { result } = await request('resources/list', cursor === undefined ? {} : { cursor });
        expect(result.resources.length).toBeLessThanOrEqual(10);
        seen.push(...result.resources.map((r: { uri: string }) => r.uri));
        cursor = result.nextCursor;
      } while (cursor !== undefined);
      expect(seen[0]).toBe('disk://mounts');
      expect(seen).toContain('disk://usage//');
      expect(new Set(seen).size).toBe(seen.length);
      expect((await request('resources/list', { cursor: 'bm9wZQ' })).error.code).toBe(-32602);
    });

    it('reads disk://mounts and disk://usage/{+path}, and answers -32002 with the uri for an unknown one', async () => {
      const { request } = await ready('2025-11-25');
      const mounts = JSON.parse((await request('resources/read', { uri: 'disk://mounts' })).result.contents[0].text);
      expect(mounts.mounts.map((m: { mountPoint: string }) => m.mountPoint)).toContain('/');
      const [content] = (await request('resources/read', { uri: 'disk://usage//' })).result.contents;
      expect(content).toMatchObject({ uri: 'disk://usage//', mimeType: 'application/json' });
      expect(JSON.parse(content.text)).toMatchObject({ path: '/', mountPoint: '/' });
      for (const uri of ['disk://elsewhere', 'disk://usage/relative', 'disk://usage//no/such/path', 'file:///etc']) {
        expect((await request('resources/read', { uri })).error).toEqual({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
      }
      expect((await request('resources/templates/list')).result.resourceTemplates[0].uriTemplate).toBe('disk://usage/{+path}');
    });

    it('renders disk_report, with or without a path, and refuses a relative one', async () => {
      const { request } = await ready('2025-06-18');
      expect((await request('prompts/list')).result.prompts[0]).toMatchObject({
        name: 'disk_report',
        title: 'Disk usage report',
        arguments: [{ name: 'path', required: false }],
      });
      const focused = (await request('prompts/get', { name: 'disk_report', arguments: { path: '/var' } })).result;
      expect(focused.messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: expect.stringContaining('/var') } });
      expect((await request('prompts/get', { name: 'disk_report' })).result.messages[0].content.text).toContain('list_mounts');
      expect((await request('prompts/get', { name: 'disk_report', arguments: { path: 'var' } })).error.code).toBe(-32602);
      expect((await request('prompts/get', { name: 'other' })).error.code).toBe(-32602);
    });

    it.skipIf(announceSkip('completion of /us and /dev/s', linuxSkipReason))(
      'completes paths from mount points and directories, for the prompt and the template',
      async () => {
        const { request } = await ready('2025-11-25');
        const prompt = await request('completion/complete', { ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: '/us' } });
        expect(prompt.result.completion).toEqual({ values: ['/usr'], total: 1, hasMore: false });
        const template = await request('completion/complete', {
          ref: { type: 'ref/resource', uri: 'disk://usage/{+path}' },
          argument: { name: 'path', value: '/dev/s' },
        });
        expect(template.result.completion.values).toContain('/dev/shm');
        const many = await request('completion/complete', {
          ref: { type: 'ref/prompt', name: 'disk_report' },
          argument: { name: 'path', value: '/usr/share/' },
        });
        expect(many.result.completion.values.length).toBeLessThanOrEqual(100);
        expect(many.result.completion.hasMore).toBe(many.result.completion.total > 100);
        expect(
          (await request('completion/complete', { ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'other', value: '' } })).error.code,
        ).toBe(-32602);
      },
    );
  },
);
