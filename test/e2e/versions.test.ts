// What changes with the negotiated protocol version, end to end: negotiation,
// capabilities, the fields tools and other primitives carry, tool results and
// structuredContent, SEP-1303 (invalid arguments as isError in 2025-11-25),
// batches (2025-03-26 only), progress and logging (docs/mcp-rules.md §12).

import { Ajv } from 'ajv';
import { describe, expect } from 'vitest';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../helpers/mcpSchema.js';
import { announceSkip, posixPathsSkipReason, projectRoot } from '../helpers/system.js';
import { isRecord, it, LATEST_VERSION, PACKAGE_VERSION, type Result, sleep, withId } from './mcpClient.js';

// Version names are ISO dates, so they compare as strings.
const since = (version: ProtocolVersion, first: ProtocolVersion): boolean => version >= first;

const TOOL_NAMES = ['disk_usage', 'list_mounts', 'directory_usage', 'explain_disk_usage', 'system_info'];
/** A dead mount elsewhere on the machine (another test's) must not stall list_mounts for the default 5 s. */
const PROBE_TIMEOUT_ARGS = ['--probe-timeout', '1000'];

/** Arguments that break a tool's inputSchema, and what the complaint must say. */
const INVALID_ARGUMENTS: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ['disk_usage', { path: 'data' }, 'use an absolute path'],
  ['disk_usage', { path: './磁盘' }, 'use an absolute path'],
  ['disk_usage', { path: '/', unit: 'gb' }, '"unit" must be one of "percent", "mib", "mb", not "gb"'],
  ['disk_usage', { path: '/', color: 'red' }, 'unknown argument "color"'],
  ['disk_usage', {}, '"path" is required'],
  ['disk_usage', { path: 42 }, '"path" must be a string, not number'],
  ['list_mounts', { all: 'yes' }, '"all" must be a boolean, not string'],
  ['system_info', { verbose: true }, 'unknown argument "verbose"'],
];

/** `arguments` that are not an object break CallToolRequest itself, not a tool's inputSchema. */
const NON_OBJECT_ARGUMENTS: readonly unknown[] = ['/', ['/'], null, 5];

describe.skipIf(announceSkip('protocol versions (disk_usage of /)', posixPathsSkipReason)).concurrent.each(PROTOCOL_VERSIONS)('protocol %s', (version) => {
  it('negotiates it and shows what this version defines: capabilities, tools, resources, prompts', async ({ startServer }) => {
    const server = startServer({ version });
    expect(await server.initialize(version)).toEqual({
      protocolVersion: version,
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: false, listChanged: false },
        prompts: { listChanged: false },
        logging: {},
        // The completions capability came with 2025-03-26.
        ...(since(version, '2025-03-26') && { completions: {} }),
      },
      serverInfo: { name: 'diskprobe', version: PACKAGE_VERSION },
      instructions: expect.stringContaining('disk_usage'),
    });

    const { tools } = await server.result('tools/list');
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      // annotations from 2025-03-26; title and outputSchema from 2025-06-18.
      const expected = ['name', 'description', 'inputSchema'];
      if (since(version, '2025-03-26')) expected.push('annotations');
      if (since(version, '2025-06-18')) expected.push('title', 'outputSchema');
      expect(Object.keys(tool).sort(), tool.name).toEqual(expected.sort());
      if (since(version, '2025-03-26')) {
        expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      }
    }
    // The form of docs/baseline.md §4: every property described, only path required, nothing else accepted.
    expect(tools[0].inputSchema).toMatchObject({
      type: 'object',
      properties: {
        path: { type: 'string', description: expect.any(String) },
        unit: { type: 'string', enum: ['percent', 'mib', 'mb'], description: expect.any(String) },
      },
      required: ['path'],
      additionalProperties: false,
    });

    // title on resources, templates and prompts from 2025-06-18 too.
    const hasTitle = (item: Record<string, unknown>): boolean => 'title' in item;
    const { resources } = await server.result('resources/list');
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every(hasTitle)).toBe(since(version, '2025-06-18'));
    const { resourceTemplates } = await server.result('resources/templates/list');
    expect(resourceTemplates.every(hasTitle)).toBe(since(version, '2025-06-18'));
    const { prompts } = await server.result('prompts/list');
    expect(prompts.every(hasTitle)).toBe(since(version, '2025-06-18'));
  });

  it('answers each tool with text, and from 2025-06-18 with structuredContent matching its outputSchema', async ({ startServer }) => {
    const server = startServer({ version, args: PROBE_TIMEOUT_ARGS });
    await server.initialize(version);
    const { tools } = await server.result('tools/list');
    const ajv = new Ajv({ allErrors: true, strict: false });
    const check = (name: string, result: Result): void => {
      expect(result.isError, name).toBe(false);
      expect(result.content, name).toEqual([{ type: 'text', text: expect.any(String) }]);
      expect('structuredContent' in result, name).toBe(since(version, '2025-06-18'));
      if (!since(version, '2025-06-18')) return;
      const schema = tools.find((tool: { name: string }) => tool.name === name).outputSchema;
      const validate = ajv.compile(schema);
      expect(validate(result.structuredContent) ? [] : validate.errors, name).toEqual([]);
    };
    const usage = (await server.callTool('disk_usage', { path: '/' })).result!;
    check('disk_usage', usage);
    expect(usage.content[0].text).toMatch(/^\/ \(.+\): \d+% used, .+ used, .+ available, .+ total\. directory_usage shows what fills it\.$/);
    const percent = (await server.callTool('disk_usage', { path: '/', unit: 'percent' })).result!;
    check('disk_usage', percent);
    expect(percent.content[0].text).toMatch(/^\d+%$/);
    const mb = (await server.callTool('disk_usage', { path: '/', unit: 'mb' })).result!;
    check('disk_usage', mb);
    expect(mb.content[0].text).toMatch(/^\d+ MB free$/);
    const mib = (await server.callTool('disk_usage', { path: '/', unit: 'mib' })).result!;
    check('disk_usage', mib);
    expect(mib.content[0].text).toMatch(/^\d+ MiB free$/);
    check('list_mounts', (await server.callTool('list_mounts', {})).result!);
    check('list_mounts', (await server.callTool('list_mounts', { all: true })).result!);
    check('system_info', (await server.callTool('system_info')).result!);
    check('directory_usage', (await server.callTool('directory_usage', { path: projectRoot, depth: 1, top: 3 })).result!);
  });

  it(`reports invalid arguments ${since(version, '2025-11-25') ? 'as a result with isError (SEP-1303)' : 'as -32602'}, and an unknown tool as -32602`, async ({
    startServer,
  }) => {
    const server = startServer({ version });
    await server.initialize(version);
    for (const [name, args, detail] of INVALID_ARGUMENTS) {
      const response = await server.callTool(name, args);
      const what = `${name} ${JSON.stringify(args)}`;
      if (since(version, '2025-11-25')) {
        expect(response.error, what).toBeUndefined();
        // No structuredContent: there is no output to describe.
        expect(response.result, what).toEqual({ content: [{ type: 'text', text: expect.stringContaining(detail) }], isError: true });
      } else {
        expect(response.result, what).toBeUndefined();
        expect(response.error, what).toEqual({ code: -32602, message: expect.stringContaining(detail) });
      }
    }
    // Finding the tool is the protocol's business in every version (server/tools.mdx § Error Handling).
    expect((await server.callTool('rm_rf', { path: '/' })).error).toEqual({ code: -32602, message: expect.stringContaining('unknown tool "rm_rf"') });
    expect((await server.request('tools/call', { arguments: { path: '/' } })).error?.code).toBe(-32602);
    expect((await server.request('tools/call', { name: 7 })).error?.code).toBe(-32602);
    // And the isError results of probe failures stay results in every version.
    expect((await server.callTool('disk_usage', { path: '/nonexistent-diskprobe-e2e' })).result?.isError).toBe(true);
  });

  // docs/mcp-rules.md R4.7: SEP-1303 covers arguments that fail the tool's inputSchema; `arguments`
  // that are not an object break the CallToolRequest schema and stay -32602, in 2025-11-25 too.
  it('refuses arguments that are not an object with -32602', async ({ startServer }) => {
    const server = startServer({ version });
    await server.initialize(version);
    for (const args of NON_OBJECT_ARGUMENTS) {
      expect((await server.request('tools/call', { name: 'disk_usage', arguments: args })).error?.code, JSON.stringify(args)).toBe(-32602);
    }
  });

  it(
    since(version, '2025-03-26') && !since(version, '2025-06-18') ? 'answers a batch with an array of responses' : 'refuses a batch with one -32600, id null',
    async ({ startServer }) => {
      const server = startServer({ version });
      // Before initialize no version is agreed, and initialize may not be batched: refused in every version.
      server.send([{ jsonrpc: '2.0', id: 'early', method: 'ping' }]);
      expect((await server.response(null)).error).toMatchObject({ code: -32600 });
      await server.initialize(version);
      const mark = server.mark;
      server.send([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
        { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'disk_usage', arguments: { path: '/' } } },
        { jsonrpc: '2.0', id: 'd', method: 'no/such/method' },
        1,
      ]);
      server.send([
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      ]);
      server.send([]);
      await server.request('ping', undefined, 'barrier');
      await sleep(50);
      const answers = server.since(mark).filter((message) => !withId('barrier')(message));
      const emptyBatch = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } };
      if (since(version, '2025-03-26') && !since(version, '2025-06-18')) {
        // One array for the first batch (no entry for its notification), nothing for the all-notification
        // batch, and for [] a single error, not an array (JSON-RPC 2.0 §6).
        expect(answers).toHaveLength(2);
        expect(answers).toContainEqual(emptyBatch);
        const batch = answers.find(Array.isArray) as Array<Record<string, unknown>>;
        expect(batch.map((response) => response.id)).toEqual(['a', 'b', 'c', 'd', null]);
        expect(batch[0]).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
        expect((batch[1]!.result as Result).tools).toHaveLength(TOOL_NAMES.length);
        expect((batch[2]!.result as Result).isError).toBe(false);
        expect(batch[3]!.error).toMatchObject({ code: -32601 });
        expect(batch[4]!.error).toMatchObject({ code: -32600 });
      } else {
        const refused = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batches are not supported in this protocol version' } };
        // Nothing inside a refused batch is run, so nothing else is answered.
        expect(answers).toEqual([refused, refused, emptyBatch]);
      }
    },
  );

  it('reports list_mounts progress when asked: for its token only, increasing, and none after the response', async ({ startServer }) => {
    const server = startServer({ version, args: PROBE_TIMEOUT_ARGS });
    await server.initialize(version);
    const progressOf =
      (token: unknown) =>
      (message: unknown): boolean =>
        isRecord(message) && message.method === 'notifications/progress' && isRecord(message.params) && message.params.progressToken === token;

    for (const token of ['mounts-1', 0, 9007199254740991]) {
      const mark = server.mark;
      const response = await server.callTool('list_mounts', {}, { _meta: { progressToken: token } });
      await server.request('ping');
      await sleep(50);
      const entries = server.received.slice(mark);
      const answeredAt = entries.find((entry) => withId(response.id)(entry.message))!.index;
      const notes = entries.filter((entry) => progressOf(token)(entry.message));
      expect(notes.length, String(token)).toBeGreaterThan(0);
      expect(
        notes.every((entry) => entry.index < answeredAt),
        'progress after the response',
      ).toBe(true);
      const params = notes.map((entry) => (entry.message as { params: Record<string, unknown> }).params);
      const values = params.map((p) => p.progress as number);
      expect(
        values.every((value, i) => i === 0 || value > values[i - 1]!),
        `increasing: ${values.join(', ')}`,
      ).toBe(true);
      // The first is progress 0, sent as the call starts (issue 27), before the mount table is read:
      // no total yet. The probes' carry the total, the number of mounts probed: those listed, and any
      // found empty (which df leaves out); the last notification reaches it.
      expect(params[0]).toEqual({ progressToken: token, progress: 0 });
      expect(params.length).toBeGreaterThanOrEqual(2);
      const mounts = response.result!.content[0].text.split('\n').length;
      const total = params[1]!.total as number;
      expect(params.slice(1).every((p) => p.total === total)).toBe(true);
      expect(total).toBeGreaterThanOrEqual(mounts);
      expect(values.at(-1)).toBe(total);
      // `message` came with 2025-03-26.
      expect(params.slice(1).every((p) => 'message' in p)).toBe(since(version, '2025-03-26'));
    }
    // Without a token, no progress at all.
    const mark = server.mark;
    await server.callTool('list_mounts', {});
    expect(server.since(mark).filter((message) => isRecord(message) && message.method === 'notifications/progress')).toEqual([]);
  });

  it('logs: logging/setLevel takes the 8 levels, refuses others with -32602, and messages go out once initialized', async ({ startServer }) => {
    // The fs.statfs backend logs a warning that it is in use, at notifications/initialized.
    const server = startServer({ version, env: { DISKPROBE_BACKEND: 'statfs' } });
    await server.initialize(version, { initialized: false });
    const isLog = (message: unknown): boolean => isRecord(message) && message.method === 'notifications/message';
    expect((await server.quietFor(100)).filter(isLog)).toEqual([]);
    server.notify('notifications/initialized');
    const log = await server.waitFor(isLog, 'the fallback backend warning');
    expect(log.message).toMatchObject({ params: { level: 'warning', logger: 'diskprobe', data: { event: 'fallback backend in use' } } });

    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']) {
      expect(await server.request('logging/setLevel', { level }), level).toMatchObject({ result: {} });
    }
    for (const params of [{ level: 'verbose' }, { level: 'WARNING' }, { level: 3 }, {}]) {
      expect((await server.request('logging/setLevel', params)).error, JSON.stringify(params)).toEqual({
        code: -32602,
        message: expect.stringContaining('level must be one of'),
      });
    }
  });
});

describe.concurrent('negotiation of versions it does not support', () => {
  it.for(['1999-01-01', '2026-06-30', '2025-11-25-draft', ''])('answers %j with 2025-11-25 and speaks it', async (asked, { startServer }) => {
    const server = startServer();
    expect((await server.initialize(asked)).protocolVersion).toBe(LATEST_VERSION);
    const { tools } = await server.result('tools/list');
    expect(Object.keys(tools[0]).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
    // 2025-11-25's SEP-1303, and no batches.
    expect((await server.callTool('disk_usage', { path: 'data' })).result?.isError).toBe(true);
    server.send([{ jsonrpc: '2.0', id: 'batched', method: 'ping' }]);
    expect((await server.response(null)).error?.code).toBe(-32600);
  });

  it('sends no log messages below --log-level', async ({ startServer }) => {
    const server = startServer({ args: ['--log-level', 'error'], env: { DISKPROBE_BACKEND: 'statfs' } });
    await server.initialize();
    await server.request('ping');
    expect(await server.quietFor(100)).toEqual([]);
  });
});
