// The end of a session, however it comes: stdin closing with 300
// tools/call requests in flight, SIGTERM in the same state, and the host
// vanishing so that stdout breaks (EPIPE) mid-stream.
import { readFileSync } from 'node:fs';

import { describe, expect } from 'vitest';

import { announceSkip, linuxSkipReason } from '../helpers/system.js';
import { isResponse, it, type McpClient, sleep } from './mcpClient.js';

const IN_FLIGHT = 300;
/** EOF or SIGTERM to exit, with every request answered. */
const EXIT_LIMIT_MS = 2000;

/** 300 tools/call requests of every tool, ids 1000…1299, as one write. */
function calls(): { text: string; ids: number[] } {
  const variants = [
    { name: 'disk_usage', arguments: { path: '/' } },
    { name: 'disk_usage', arguments: { path: '/tmp', unit: 'percent' } },
    { name: 'disk_usage', arguments: { path: '/no/such/path' } },
    { name: 'system_info', arguments: {} },
    { name: 'list_mounts', arguments: {} },
    { name: 'disk_usage', arguments: { path: 'relative' } },
  ];
  const ids = Array.from({ length: IN_FLIGHT }, (_, index) => 1000 + index);
  const text = ids.map((id, index) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: variants[index % variants.length] })}\n`).join('');
  return { text, ids };
}

/** The ids of the answers to `calls()`, in arrival order. */
const answered = (server: McpClient): number[] =>
  server.received
    .map((entry) => entry.message)
    .filter(isResponse)
    .map((response) => response.id)
    .filter((id): id is number => typeof id === 'number' && id >= 1000);

/** CPU ticks (user + system) the process has used so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe.concurrent('the end of a session', () => {
  it(`EOF with ${IN_FLIGHT} tools/call in flight: answers all ${IN_FLIGHT}, each once, then exits 0 within ${EXIT_LIMIT_MS} ms`, async ({ startServer }) => {
    const server = startServer({ args: ['--probe-timeout', '1000'] });
    await server.initialize();
    const { text, ids } = calls();
    server.write(text);
    const start = performance.now();
    expect(await server.close(EXIT_LIMIT_MS)).toEqual({ code: 0, signal: null });
    expect(performance.now() - start).toBeLessThan(EXIT_LIMIT_MS);
    const got = answered(server);
    expect(got).toHaveLength(IN_FLIGHT);
    expect([...got].sort((a, b) => a - b)).toEqual(ids);
  });

  it.skipIf(
    announceSkip('SIGTERM with calls in flight', process.platform === 'win32' ? 'SIGTERM cannot be caught on win32 (Node terminates the process)' : undefined),
  )(`SIGTERM with ${IN_FLIGHT} tools/call read: answers all of them, then exits 0 within ${EXIT_LIMIT_MS} ms`, async ({ startServer }) => {
    const server = startServer({ args: ['--probe-timeout', '1000'] });
    await server.initialize();
    const { text, ids } = calls();
    const mark = server.mark;
    // The ping behind them is answered at once, when all 300 have been read.
    server.write(`${text}${JSON.stringify({ jsonrpc: '2.0', id: 'read-all', method: 'ping' })}\n`);
    await server.response('read-all', mark);
    const start = performance.now();
    server.kill('SIGTERM');
    expect(await server.exited(EXIT_LIMIT_MS)).toEqual({ code: 0, signal: null });
    expect(performance.now() - start).toBeLessThan(EXIT_LIMIT_MS);
    expect([...answered(server)].sort((a, b) => a - b)).toEqual(ids);
  });

  it.skipIf(
    announceSkip('SIGTERM after a flood', process.platform === 'win32' ? 'SIGTERM cannot be caught on win32 (Node terminates the process)' : undefined),
  )('SIGTERM right after a flood of 20,000 pings the server has not all read yet: answers every one it was sent', async ({ startServer }) => {
    const server = startServer();
    await server.initialize();
    const count = 20_000;
    let text = '';
    for (let id = 1; id <= count; id++) text += `{"jsonrpc":"2.0","id":${10_000 + id},"method":"ping"}\n`;
    // Once the write returns, the pings are in the pipe or read; input is paused
    // while 1,024 are unanswered, so many still wait there.
    await new Promise<void>((resolve) => server.writeWithCallback(text, resolve));
    server.kill('SIGTERM');
    expect(await server.exited(EXIT_LIMIT_MS * 2)).toEqual({ code: 0, signal: null });
    const pings = server.received
      .map((entry) => entry.message)
      .filter(isResponse)
      .filter((response) => typeof response.id === 'number' && response.id > 10_000);
    expect(pings).toHaveLength(count);
  });

  it('EPIPE: when the host goes away mid-stream, exits 0 at once, with no crash text and no busy loop', async ({ startServer }) => {
    const server = startServer();
    await server.initialize();
    // A stream of calls whose answers are still being written when stdout breaks.
    const { text } = calls();
    server.write(text.repeat(4).replaceAll('"id":1', '"id":2'));
    await server.waitFor((message) => isResponse(message) && typeof message.id === 'number' && message.id >= 2000, 'the first answers');
    server.closeStdout();
    // stdin stays open: only the broken stdout can end it.
    const start = performance.now();
    const exit = await server.exited(EXIT_LIMIT_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(performance.now() - start).toBeLessThan(EXIT_LIMIT_MS);
    expect(server.stderr).toBe('');
  });

  it.skipIf(announceSkip('EPIPE while idle (CPU from /proc/<pid>/stat)', linuxSkipReason))(
    'EPIPE while idle: the next answer finds stdout gone, and the server exits 0 quietly without spinning',
    async ({ startServer }) => {
      const server = startServer();
      await server.initialize();
      server.closeStdout();
      await sleep(300);
      // Idle with a broken stdout, before anything is written: no CPU burnt.
      const before = cpuTicks(server.pid);
      await sleep(500);
      expect(cpuTicks(server.pid) - before).toBeLessThanOrEqual(5); // 10 ms ticks: at most 50 ms of CPU in 500 ms
      server.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(await server.exited(EXIT_LIMIT_MS)).toEqual({ code: 0, signal: null });
      expect(server.stderr).toBe('');
    },
  );
});
