// The dispatcher and MCP session in-process, fuzzed with any JSON value and
// with crafted messages, in every lifecycle state and protocol version.
// Each response must be a JSON-RPC response with the request's id (null
// when none could be read), each request answered exactly once, no
// notification answered, nothing reported as a bug.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../../dist/jsonrpc/dispatcher.js';
import { encodeMessage } from '../../dist/jsonrpc/framing.js';
import type { SessionState } from '../../dist/mcp/eras/legacySession.js';
import { RootPolicy } from '../../dist/mcp/roots.js';
import { McpServer } from '../../dist/mcp/server.js';
import { diskUsageTool } from '../../dist/mcp/tools/diskUsageTool.js';
import { listMountsTool } from '../../dist/mcp/tools/listMountsTool.js';
import { systemInfoTool } from '../../dist/mcp/tools/systemInfoTool.js';
import { LEGACY_VERSIONS } from '../../dist/mcp/versions.js';
import { type FuzzFrame, frame, Ids, jsonLine } from './frames.js';
import { compare, type ModelFrame, modelFrames, Owed, Said } from './model.js';
import { check } from './seed.js';

/** Small, so the fuzzer also meets the cap; the deep frames are longer and are tried unframed below. */
const CAP = 64 * 1024;

function connect() {
  const out: unknown[] = [];
  const bugs: string[] = [];
  let dispatcher: Dispatcher;
  const session = new McpServer({
    serverVersion: '0.0.0',
    tools: [diskUsageTool, listMountsTool, systemInfoTool],
    roots: new RootPolicy([]),
    probeTimeout: 2000,
    logLevel: 'warning',
    notify: (notification) => void out.push({ jsonrpc: '2.0', ...notification }),
    cancel: (id, reason) => dispatcher.cancel(id, reason),
    reportBug: (message) => void bugs.push(message),
  });
  dispatcher = new Dispatcher(session, (message) => void out.push(message));
  const feed = (frame: ModelFrame): void => {
    if (frame.kind === 'line') dispatcher.handleLine(frame.text);
    else if (frame.kind === 'oversized') dispatcher.handleOversized(frame.bytes, CAP);
    else dispatcher.handleBadEncoding();
  };
  const settle = async (): Promise<void> => {
    await dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { session, dispatcher, out, bugs, feed, settle };
}

type Connection = ReturnType<typeof connect>;

/** Whether a batch is accepted now, from the spec: never before initialize, and only under 2025-03-26. */
const batchesIn = (state: SessionState, version: string): boolean => state !== 'awaitingInitialize' && version === '2025-03-26';

/** Takes the session to `stage` under `version`, checking each step is answered. */
async function handshake(connection: Connection, version: string, stage: 'none' | 'initialize' | 'ready'): Promise<void> {
  if (stage === 'none') return;
  connection.dispatcher.handleLine(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
    }),
  );
  if (stage === 'ready') connection.dispatcher.handleLine('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await connection.settle();
  expect(connection.out.filter((message) => (message as { id?: unknown }).id !== undefined)).toEqual([
    expect.objectContaining({ id: 'init', result: expect.objectContaining({ protocolVersion: version }) }),
  ]);
  connection.out.length = 0;
}

/** Tallies what the dispatcher sent since `mark`; each message must also encode as exactly one line. */
function said(connection: Connection, mark: number, batches: boolean): Said {
  const tally = new Said();
  for (const message of connection.out.slice(mark)) {
    let line: string;
    try {
      line = encodeMessage(message);
    } catch (error) {
      tally.problems.push(`a message that cannot be encoded: ${(error as Error).message}`);
      continue;
    }
    if (line.indexOf('\n') !== line.length - 1) tally.problems.push(`a message that is not one line: ${line.slice(0, 200)}`);
    tally.line(JSON.parse(line), line, batches);
  }
  tally.problems.push(...connection.bugs.map((bug) => `reported as a bug: ${bug.slice(0, 500)}`));
  connection.bugs.length = 0;
  return tally;
}

const stage = fc.constantFrom('none' as const, 'initialize' as const, 'ready' as const, 'ready' as const);
const version = fc.constantFrom(...LEGACY_VERSIONS);
const frames = fc.array(fc.oneof({ weight: 3, arbitrary: frame }, { weight: 1, arbitrary: jsonLine }), { maxLength: 30 });
const input = (built: FuzzFrame[]): Buffer => {
  const ids = new Ids();
  return Buffer.concat(built.map((build) => build(ids)));
};

describe('Dispatcher and session under fuzzing', () => {
  it('answers line by line as the model says, in every state and version', async () => {
    await check(
      fc.asyncProperty(version, stage, frames, async (v, s, built) => {
        const connection = connect();
        try {
          await handshake(connection, v, s);
          for (const line of modelFrames(input(built), CAP)) {
            // The state may move (a fuzzed initialize), so the model asks before each line.
            const batches = batchesIn(connection.session.legacy.state, connection.session.legacy.version);
            const owed = new Owed();
            owed.frame(line, batches);
            const mark = connection.out.length;
            connection.feed(line);
            await connection.settle();
            const problems = compare(owed, said(connection, mark, batches));
            expect(problems, line.kind === 'line' ? line.text.slice(0, 300) : line.kind).toEqual([]);
          }
        } finally {
          connection.session.close();
        }
      }),
      2_000,
      11,
    );
  });

  it('answers every request exactly once when all arrive at once', async () => {
    await check(
      fc.asyncProperty(version, frames, frames, async (v, a, b) => {
        const connection = connect();
        try {
          await handshake(connection, v, 'ready');
          const owed = new Owed();
          for (const line of modelFrames(input([...a, ...b]), CAP)) {
            owed.frame(line, v === '2025-03-26');
            connection.feed(line);
          }
          await connection.settle();
          expect(compare(owed, said(connection, 0, v === '2025-03-26'))).toEqual([]);
        } finally {
          connection.session.close();
        }
      }),
      1_000,
      12,
    );
  });

  it('answers ping afterwards, whatever came before', async () => {
    await check(
      fc.asyncProperty(version, stage, frames, async (v, s, built) => {
        const connection = connect();
        try {
          await handshake(connection, v, s);
          for (const line of modelFrames(Buffer.concat([input(built), Buffer.from('\n')]), CAP)) connection.feed(line);
          await connection.settle();
          const mark = connection.out.length;
          connection.dispatcher.handleLine('{"jsonrpc":"2.0","id":"last-ping","method":"ping"}');
          await connection.settle();
          expect(connection.out.slice(mark)).toEqual([{ jsonrpc: '2.0', id: 'last-ping', result: {} }]);
        } finally {
          connection.session.close();
        }
      }),
      300,
      13,
    );
  });
});
