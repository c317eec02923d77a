// `diskprobe serve`: the MCP server on stdin/stdout. The one place the
// layers meet: transport → JSON-RPC dispatcher → MCP session → tools → probe.
import { readFileSync } from 'node:fs';

import { Dispatcher } from '../jsonrpc/dispatcher.js';
import { RootPolicy } from '../mcp/roots.js';
import { McpSession } from '../mcp/session.js';
import { diskUsageTool } from '../mcp/tools/diskUsageTool.js';
import { listMountsTool } from '../mcp/tools/listMountsTool.js';
import { systemInfoTool } from '../mcp/tools/systemInfoTool.js';
import { StdioTransport } from '../stdioTransport.js';
import type { ServeOptions } from './commandLine.js';

/** stdout belongs to the protocol: a stray console.log must not corrupt it. */
function keepConsoleOffStdout(): void {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Serves until stdin ends (or SIGTERM/SIGINT), answers what was received, and resolves with the exit status. */
export async function serve(options: ServeOptions): Promise<number> {
  let roots: RootPolicy;
  try {
    roots = new RootPolicy(options.roots);
  } catch (error) {
    process.stderr.write(`diskprobe: ${(error as Error).message}\n`);
    return 2;
  }
  keepConsoleOffStdout();
  const transport = new StdioTransport({ input: process.stdin, output: process.stdout, maxMessageBytes: options.maxMessageBytes });
  // The host is gone (EPIPE): nobody is left to answer, so leave quietly.
  process.stdout.on('error', () => {
    transport.outputGone();
    process.exit(0);
  });
  let dispatcher: Dispatcher | undefined;
  const session = new McpSession({
    serverVersion: packageVersion(),
    tools: [diskUsageTool, listMountsTool, systemInfoTool],
    probeTimeout: options.probeTimeout,
    roots,
    logLevel: options.logLevel,
    notify: (notification) => transport.send({ jsonrpc: '2.0', ...notification }),
    cancel: (id, reason) => dispatcher?.cancel(id, reason),
    reportBug: (message) => process.stderr.write(`${message}\n`),
  });
  dispatcher = new Dispatcher(session, (message) => transport.send(message));

  // SIGTERM and SIGINT end the input as EOF does: finish what was asked, then exit.
  const stop = (): void => {
    process.stdin.pause();
    process.stdin.emit('end');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  await transport.run(dispatcher);
  await dispatcher.idle();
  await transport.flush();
  session.close();
  process.stdin.destroy();
  process.removeListener('SIGTERM', stop);
  process.removeListener('SIGINT', stop);
  return 0;
}
