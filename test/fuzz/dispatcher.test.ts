// The dispatcher and MCP server in-process, fuzzed with any JSON value and
// with crafted messages of both eras, in every lifecycle state and legacy
// protocol version, and with no handshake at all (a 2026-07-28 client's
// stream). Each response must be a JSON-RPC response with the request's id
// (null when none could be read), each request answered exactly once (an
// open subscriptions/listen only when it is closed), no notification
// answered, nothing reported as a bug; where the rules decide the answer
// (2026-07-28 requests), it must be that answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Dispatcher } from '../../dist/jsonrpc/dispatcher.js';
import { encodeMessage } from '../../dist/jsonrpc/framing.js';
import { diskUsageTool } from '../../dist/mcp/features/tools/diskUsageTool.js';
import { listMountsTool } from '../../dist/mcp/features/tools/listMountsTool.js';
import { systemInfoTool } from '../../dist/mcp/features/tools/systemInfoTool.js';
import { RootPolicy } from '../../dist/mcp/protocol/roots.js';
import { LEGACY_VERSIONS } from '../../dist/mcp/protocol/versions.js';
import { McpServer } from '../../dist/mcp/server.js';
import { build, type FuzzFrame, frame, jsonLine, modernFrame, printable } from './frames.js';
import { HANDSHAKE_ID, type Ids } from './ids.js';
import { type ModelFrame, modelFrames, Owed } from './model.js';
import { cancelListenText, listenText, modernRequestText } from './modernFrames.js';
import { goodMeta } from './modernMeta.js';
import { answerProblem, expectation } from './modernModel.js';
import { compare, Said } from './said.js';
import { check } from './seed.js';

/** Small, so the fuzzer also meets the cap; the deep frames are longer and are tried unframed below. */
const CAP = 64 * 1024;

/** Resolves after a turn of the event loop (0), or after `ms` milliseconds. */
const later = (ms: number): Promise<void> => new Promise((resolve) => (ms === 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));

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
  /**
   * The subscriptions/listen streams the server holds open. A private field,
   * read on purpose: waiting on the model's count instead would hang where
   * the two differ, which is what the test must report.
   */
  const streams = (): number => (session as unknown as { subscriptions: { size: number } }).subscriptions.size;
  /**
   * Waits until every answer owed so far is out: all requests have finished
   * but the open streams (which idle() would wait for forever), and their
   * answers, a few microtasks away, have had a turn.
   */
  const settle = async (): Promise<void> => {
    if (streams() === 0) await dispatcher.idle();
    const deadline = Date.now() + 10_000;
    for (let turn = 0; dispatcher.pending > streams() && Date.now() < deadline; turn++) await later(turn < 100 ? 0 : 1);
    await later(0);
  };
  /** Ends every stream as EOF does (their graceful results), then waits for all answers; false if some never came. */
  const end = async (): Promise<boolean> => {
    session.shutdown();
    const drained = await Promise.race([dispatcher.idle().then(() => true), later(10_000).then(() => false)]);
    await later(0);
    return drained;
  };
  return { session, dispatcher, out, bugs, feed, settle, end, streams };
}

type Connection = ReturnType<typeof connect>;

/** Takes the session to `stage` under `version`, checking each step is answered; returns the lines sent, for the model. */
async function handshake(connection: Connection, version: string, stage: 'none' | 'initialize' | 'ready'): Promise<string[]> {
  if (stage === 'none') return [];
  const lines = [
    JSON.stringify({
      jsonrpc: '2.0',
      id: HANDSHAKE_ID,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
    }),
  ];
  if (stage === 'ready') lines.push('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  for (const line of lines) connection.dispatcher.handleLine(line);
  await connection.settle();
  expect(connection.out.filter((message) => (message as { id?: unknown }).id !== undefined)).toEqual([
    expect.objectContaining({ id: HANDSHAKE_ID, result: expect.objectContaining({ protocolVersion: version }) }),
  ]);
  return lines;
}

/** Tallies into `tally` what the dispatcher sent from `mark` on, each message checked to encode as exactly one line; returns the new mark. */
function said(connection: Connection, tally: Said, mark: number, batches: boolean): number {
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
  return connection.out.length;
}

/** A model fed the handshake's lines. */
function modelAfter(lines: readonly string[]): Owed {
  const owed = new Owed();
  for (const text of lines) owed.frame({ kind: 'line', text });
  return owed;
}

const stage = fc.constantFrom('none' as const, 'initialize' as const, 'ready' as const, 'ready' as const);
const version = fc.constantFrom(...LEGACY_VERSIONS);
/** Either era's frames in one stream: a dual-era server serves 2026-07-28 requests beside (or without) a legacy session. */
const anyFrame = fc.oneof({ weight: 3, arbitrary: frame }, { weight: 3, arbitrary: modernFrame }, { weight: 1, arbitrary: jsonLine });
const frames = printable(fc.array(anyFrame, { maxLength: 30 }));
const shown = (line: ModelFrame): string => (line.kind === 'line' ? line.text.slice(0, 300) : line.kind);
/** A message as one line of input. */
const line = (message: fc.Arbitrary<(ids: Ids) => string>): fc.Arbitrary<FuzzFrame> => message.map((text) => (ids: Ids) => Buffer.from(`${text(ids)}\n`));

/**
 * Feeds `lines` one at a time, comparing all that was said with all that was
 * owed after each; then ends the streams still open, as EOF would, and
 * compares once more.
 */
async function lineByLine(connection: Connection, owed: Owed, lines: readonly ModelFrame[]): Promise<void> {
  const tally = new Said();
  let mark = 0;
  for (const line of lines) {
    owed.frame(line);
    connection.feed(line);
    await connection.settle();
    mark = said(connection, tally, mark, owed.batchesSeen);
    expect(compare(owed, tally), shown(line)).toEqual([]);
    expect(connection.streams(), `streams open after ${shown(line)}`).toBe(owed.open.size);
    // The model's lifecycle is the session's (a fuzzed initialize may move it).
    expect(connection.session.legacy.state, shown(line)).toBe(owed.session.state);
  }
  const open = owed.open.size;
  owed.end();
  expect(await connection.end(), `answers still pending after closing ${open} stream(s)`).toBe(true);
  said(connection, tally, mark, owed.batchesSeen);
  expect(compare(owed, tally), `after closing ${open} stream(s)`).toEqual([]);
}

describe('Dispatcher and session under fuzzing', () => {
  it('answers line by line as the model says, in every state and version, and closes open streams at the end', async () => {
    await check(
      fc.asyncProperty(version, stage, frames, async (v, s, built) => {
        const connection = connect();
        try {
          await lineByLine(connection, modelAfter(await handshake(connection, v, s)), modelFrames(build(built), CAP));
        } finally {
          connection.session.shutdown();
          connection.session.close();
        }
      }),
      2_000,
      11,
    );
  });

  it('holds at most 64 subscriptions/listen streams open, refusing the next with -32603 until a cancel frees one', async () => {
    // Listens outnumber cancels, so most runs reach the limit; a few other modern frames between them.
    const streams = printable(
      fc.array(
        fc.oneof(
          { weight: 6, arbitrary: line(listenText) },
          { weight: 2, arbitrary: line(cancelListenText) },
          { weight: 1, arbitrary: line(modernRequestText) },
        ),
        { minLength: 60, maxLength: 160 },
      ),
    );
    await check(
      fc.asyncProperty(streams, async (built) => {
        const connection = connect();
        try {
          await lineByLine(connection, new Owed(), modelFrames(build(built), CAP));
        } finally {
          connection.session.shutdown();
          connection.session.close();
        }
      }),
      60,
      14,
    );
  });

  it('answers every request exactly once when all arrive at once', async () => {
    await check(
      fc.asyncProperty(version, printable(fc.array(anyFrame, { maxLength: 60 })), async (v, built) => {
        const connection = connect();
        try {
          const owed = modelAfter(await handshake(connection, v, 'ready'));
          for (const line of modelFrames(build(built), CAP)) {
            owed.frame(line);
            connection.feed(line);
          }
          await connection.settle();
          const tally = new Said();
          const mark = said(connection, tally, 0, owed.batchesSeen);
          expect(compare(owed, tally)).toEqual([]);
          owed.end();
          expect(await connection.end()).toBe(true);
          said(connection, tally, mark, owed.batchesSeen);
          expect(compare(owed, tally)).toEqual([]);
        } finally {
          connection.session.shutdown();
          connection.session.close();
        }
      }),
      1_000,
      12,
    );
  });

  it('answers ping and a 2026-07-28 server/discover afterwards, whatever came before', async () => {
    const discover = expectation('server/discover');
    await check(
      fc.asyncProperty(version, stage, frames, async (v, s, built) => {
        const connection = connect();
        try {
          await handshake(connection, v, s);
          for (const line of modelFrames(Buffer.concat([build(built), Buffer.from('\n')]), CAP)) connection.feed(line);
          await connection.settle();
          const mark = connection.out.length;
          connection.dispatcher.handleLine('{"jsonrpc":"2.0","id":"last-ping","method":"ping"}');
          connection.dispatcher.handleLine(`{"jsonrpc":"2.0","id":"last-discover","method":"server/discover","params":{"_meta":${goodMeta()}}}`);
          await connection.settle();
          // Notifications (a stream's, a log message) may come too; the answers are what counts.
          const answers = connection.out.slice(mark).filter((message) => Object.hasOwn(message as object, 'id')) as Record<string, unknown>[];
          expect(answers.map((answer) => answer.id)).toEqual(['last-ping', 'last-discover']);
          expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 'last-ping', result: {} });
          expect(answerProblem(discover, answers[1]!), JSON.stringify(answers[1]).slice(0, 500)).toBeUndefined();
        } finally {
          connection.session.shutdown();
          connection.session.close();
        }
      }),
      300,
      13,
    );
  });
});
