// `diskprobe serve`: the MCP server on stdin/stdout. The one place the
// layers meet: transport → JSON-RPC dispatcher → MCP server → tools → probe.
import { fstatSync, readSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { Dispatcher } from '../../jsonrpc/dispatcher.js';
import { McpServer } from '../../mcp/server.js';
import { StdioTransport } from '../../transport/stdio/stdioTransport.js';
import { onStopSignal } from '../stopSignals.js';
import type { ServeOptions } from './serveCommandLine.js';
import { type ServerSettings, serverSettings } from './serverSettings.js';

/** stdout belongs to the protocol: a stray console.log must not corrupt it. */
function keepConsoleOffStdout(): void {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/**
 * Said on stderr when stdin is a terminal: someone typed `diskprobe`, and a
 * server that waits in silence looks hung (issue 27). Never on stdout, which
 * is the protocol's; never to a host, which pipes stdin.
 */
function terminalNote(): string {
  // End of input at a Windows console is Ctrl-Z then Enter.
  const endOfInput = process.platform === 'win32' ? 'Ctrl-Z then Enter' : 'Ctrl-D';
  return (
    'diskprobe: this is an MCP server, speaking JSON-RPC on stdin and stdout; it is waiting for an MCP client (a host) to talk to it.\n' +
    `diskprobe: ${endOfInput} or Ctrl-C stops it. Disk usage at a terminal: \`diskprobe df\`, \`diskprobe du\`; every command: \`diskprobe --help\`.\n`
  );
}

/**
 * DISKPROBE_DEBUG_EVENT_LOOP=1 (for `npm run test:load`): samples the event
 * loop from startup with a 10 ms timer; the returned function writes one JSON
 * line to stderr: the gaps between the timer's runs in ms (an idle loop reads
 * 10, a stall of T ms between T and T + 10) and process.memoryUsage().
 * Unset: nothing runs.
 */
function debugEventLoop(): (() => void) | undefined {
  const flag = process.env.DISKPROBE_DEBUG_EVENT_LOOP;
  if (flag === undefined || flag === '' || flag === '0') return undefined;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return () => {
    delay.disable();
    const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
    const eventLoopDelay = {
      resolutionMs: 10,
      samples: delay.count,
      maxMs: ms(delay.max),
      p50Ms: ms(delay.percentile(50)),
      p99Ms: ms(delay.percentile(99)),
      meanMs: ms(delay.mean),
    };
    process.stderr.write(`${JSON.stringify({ eventLoopDelay, memory: process.memoryUsage() })}\n`);
  };
}

/**
 * What a pipe or socket on `fd` holds now, without waiting: libuv keeps such
 * descriptors non-blocking, so a read of an empty one fails with EAGAIN at
 * once. Undefined for anything else (a TTY or a file could block or be long).
 */
function pipeReader(fd: number): (() => Buffer | undefined) | undefined {
  // On Windows a pipe read blocks, and would race libuv's own reader thread.
  if (process.platform === 'win32') return undefined;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFIFO() && !stat.isSocket()) return undefined;
  } catch {
    return undefined;
  }
  const buffer = Buffer.allocUnsafe(64 * 1024);
  return () => {
    try {
      const bytes = readSync(fd, buffer, 0, buffer.length, null);
      return bytes > 0 ? Buffer.from(buffer.subarray(0, bytes)) : undefined;
    } catch {
      return undefined; // EAGAIN: empty for now
    }
  };
}

/** Serves until stdin ends (or SIGTERM/SIGINT at any moment), answers what was received, and resolves with the exit status. */
export async function serve(options: ServeOptions): Promise<number> {
  if (options.http !== undefined) {
    const { serveHttp } = await import('./serveHttp.js');
    return serveHttp(options, options.http);
  }
  let settings: ServerSettings;
  try {
    settings = serverSettings(options);
  } catch (error) {
    process.stderr.write(`diskprobe: ${(error as Error).message}\n`);
    return 2;
  }
  keepConsoleOffStdout();
  if (process.stdin.isTTY) process.stderr.write(terminalNote());
  const reportEventLoop = debugEventLoop();
  const transport = new StdioTransport({
    input: process.stdin,
    output: process.stdout,
    maxMessageBytes: options.maxMessageBytes,
    readAvailable: pipeReader(0),
  });
  // The host is gone (EPIPE): nobody is left to answer, so leave quietly.
  process.stdout.on('error', () => {
    transport.outputGone();
    process.exit(0);
  });
  let dispatcher: Dispatcher | undefined;
  const server = new McpServer({
    ...settings,
    notify: (notification) => transport.send({ jsonrpc: '2.0', ...notification }),
    cancel: (id, reason) => dispatcher?.cancel(id, reason),
    reportBug: (message) => process.stderr.write(`${message}\n`),
    logLine: (line) => process.stderr.write(`${line}\n`),
  });
  dispatcher = new Dispatcher(
    server,
    (message) => transport.send(message),
    () => transport.settled(),
  );

  const running = transport.run(dispatcher);
  // SIGTERM and SIGINT end the input as EOF does: finish what was asked, then
  // exit. One that came during start-up ends it now, after what stdin holds.
  // The signals stay handled to the end (stopSignals.ts).
  onStopSignal(() => transport.endInput?.());
  await running;
  // Open subscriptions/listen streams end with their graceful-close result, then every other request is answered.
  server.shutdown();
  await dispatcher.idle();
  await transport.flush();
  server.close();
  process.stdin.destroy();
  reportEventLoop?.();
  return 0;
}
