// Progress of a tool that reports it, through the real server and the stdio
// transport, in both eras: progress 0 as the call starts, the result written
// apart from it and PROGRESS_LEAD_MS after the last of it (issue 27: the
// official SDK clients lose progress read together with its result), nothing
// when the client asked for none or cancelled the call.
import { PassThrough, Writable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../../dist/jsonrpc/dispatcher.js';
import { META } from '../../dist/mcp/protocol/requestScope.js';
import { RootPolicy } from '../../dist/mcp/protocol/roots.js';
import type { Tool } from '../../dist/mcp/protocol/tool.js';
import { PROGRESS_LEAD_MS } from '../../dist/mcp/protocol/toolContext.js';
import { McpServer } from '../../dist/mcp/server.js';
import { StdioTransport } from '../../dist/transport/stdio/stdioTransport.js';

/** Answers within the turn it is called in, as list_mounts does when every mount reads only memory; reports `steps` first. */
function quickTool(steps: readonly number[], reportsProgress = true): Tool {
  return {
    name: 'quick',
    title: 'Quick',
    description: 'Answers at once.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    ...(reportsProgress && { reportsProgress: true as const }),
    async call(_args, context) {
      await undefined;
      for (const step of steps) context.progress(step, steps.at(-1), `step ${step}`);
      return { text: 'done' };
    },
  };
}

/** One write the transport made: its lines, and when (performance.now()). */
interface Write {
  readonly at: number;
  readonly messages: Array<Record<string, any>>;
}

/** The built server behind a StdioTransport whose output records each write; initialized when `era` is legacy. */
async function serve(tool: Tool, era: 'legacy' | 'modern') {
  const input = new PassThrough();
  const writes: Write[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const messages = chunk
        .toString()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, any>);
      writes.push({ at: performance.now(), messages });
      done();
    },
  });
  const transport = new StdioTransport({ input, output, maxMessageBytes: 1 << 20 });
  let dispatcher: Dispatcher | undefined;
  const server = new McpServer({
    serverVersion: '9.9.9',
    tools: [tool],
    roots: new RootPolicy([]),
    probeTimeout: 1000,
    logLevel: 'warning',
    notify: (notification) => transport.send({ jsonrpc: '2.0', ...notification }),
    cancel: (id) => dispatcher?.cancel(id),
    reportBug: (message) => {
      throw new Error(message);
    },
  });
  dispatcher = new Dispatcher(server, (message) => transport.send(message));
  void transport.run(dispatcher);
  const line = (message: object): string => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
  if (era === 'legacy') {
    input.write(
      line({ id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    );
    input.write(line({ method: 'notifications/initialized' }));
    await dispatcher.idle();
    await transport.flush();
    writes.length = 0;
  }
  /** The line of a tools/call of the tool, with a progress token if given. */
  const callLine = (id: number, progressToken?: string): string => {
    const meta = {
      ...(era === 'modern' && { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} }),
      ...(progressToken !== undefined && { progressToken }),
    };
    return line({ id, method: 'tools/call', params: { name: tool.name, arguments: {}, _meta: meta } });
  };
  return { input, writes, dispatcher, transport, callLine, line };
}

const isProgress = (message: Record<string, any>): boolean => message.method === 'notifications/progress';

describe.for(['legacy', 'modern'] as const)('a %s call of a tool that reports progress', (era) => {
  it('hears progress 0 as it starts, then the steps, increasing, in a write before the result, which follows PROGRESS_LEAD_MS later', async () => {
    const { input, writes, dispatcher, transport, callLine } = await serve(quickTool([1, 2]), era);
    input.write(callLine(1, 'tok'));
    await dispatcher.idle();
    await transport.flush();
    const answer = writes.findIndex((write) => write.messages.some((message) => message.id === 1));
    expect(answer).toBeGreaterThan(0);
    // The result goes in a write of its own: nothing of the call's progress reaches the client with it.
    expect(writes[answer]!.messages).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ isError: false }) })]);
    const progress = writes.slice(0, answer).flatMap((write) => write.messages.filter(isProgress));
    expect(progress.map((message) => message.params)).toEqual([
      { progressToken: 'tok', progress: 0 },
      { progressToken: 'tok', progress: 1, total: 2, message: 'step 1' },
      { progressToken: 'tok', progress: 2, total: 2, message: 'step 2' },
    ]);
    const lastProgress = writes
      .slice(0, answer)
      .filter((write) => write.messages.some(isProgress))
      .at(-1)!;
    // The timer may fire a fraction of a millisecond early (libuv rounds), hence the 1.
    expect(writes[answer]!.at - lastProgress.at).toBeGreaterThanOrEqual(PROGRESS_LEAD_MS - 1);
  });

  it('hears only progress 0 from a tool that has nothing more to say, and still a write apart from its result', async () => {
    const { input, writes, dispatcher, transport, callLine } = await serve(quickTool([]), era);
    input.write(callLine(2, 'tok'));
    await dispatcher.idle();
    await transport.flush();
    expect(writes.map((write) => write.messages.map((message) => (isProgress(message) ? message.params.progress : message.id)))).toEqual([[0], [2]]);
  });

  it('hears nothing, and is answered at once, when it asked for no progress', async () => {
    const { input, writes, dispatcher, transport, callLine } = await serve(quickTool([1, 2]), era);
    input.write(callLine(3));
    await dispatcher.idle();
    // No timer stands between the call and its answer: it is out within a turn, before any timer could fire.
    await turn();
    expect(writes.flatMap((write) => write.messages)).toEqual([expect.objectContaining({ id: 3 })]);
    await transport.flush();
  });

  it('hears nothing when cancelled in the same read as the call', async () => {
    const { input, writes, dispatcher, transport, callLine, line } = await serve(quickTool([1, 2]), era);
    // notifications/cancelled, in both eras over stdio (basic/utilities/cancellation.mdx).
    input.write(callLine(4, 'tok') + line({ method: 'notifications/cancelled', params: { requestId: 4 } }));
    await dispatcher.idle();
    await turn();
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_LEAD_MS + 5));
    await transport.flush();
    expect(writes).toEqual([]);
  });
});

describe('a call of a tool that does not report progress', () => {
  it('hears only what the tool says, with no progress 0 before it, and no wait for a result with no progress before it', async () => {
    const { input, writes, dispatcher, transport, callLine } = await serve(quickTool([], false), 'legacy');
    input.write(callLine(5, 'tok'));
    await dispatcher.idle();
    await turn();
    expect(writes.flatMap((write) => write.messages)).toEqual([expect.objectContaining({ id: 5 })]);
    await transport.flush();
  });
});
