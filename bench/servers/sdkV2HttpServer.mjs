// The SDK reference for `npm run bench:http`: the official v2 SDK's dual-era
// HTTP entry (createMcpHandler, stateless for 2026-07-28, with its legacy
// fallback) mounted on node:http by the SDK's own adapter (toNodeHandler,
// @modelcontextprotocol/node), with the Origin and Host checks the SDK asks
// for in front, and the same disk_usage tool as sdkV2Server.mjs.
// Prints "listening PORT" on stdout once it listens on 127.0.0.1.
import { statfs } from 'node:fs/promises';
import { createServer } from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

import { usageText } from './usageText.mjs';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'sdk-v2-http-reference', version: '1' });
  server.registerTool(
    'disk_usage',
    {
      description: 'How full the file system holding a path is.',
      inputSchema: z.object({ path: z.string().describe('Absolute path of a mount point, directory or file') }),
    },
    async ({ path }) => ({ content: [{ type: 'text', text: usageText(path, await statfs(path)) }], isError: false }),
  );
  return server;
});
const serve = toNodeHandler(handler);
const http = createServer((req, res) => void serve(req, res));
http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
process.on('SIGTERM', () => http.close(() => process.exit(0)));
