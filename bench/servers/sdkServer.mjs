// The reference for `npm run bench:server`: the official MCP SDK's McpServer
// on its StdioServerTransport, with one disk_usage tool doing the floor's
// work (one statfs, the same text). What it costs above the floor is the
// SDK's: zod validation of every message and of the tool's arguments, the
// Protocol class's request bookkeeping, and the transport.
import { statfs } from 'node:fs/promises';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

import { usageText } from './usageText.mjs';

const server = new McpServer({ name: 'sdk-reference', version: '1' });
server.registerTool(
  'disk_usage',
  {
    description: 'How full the file system holding a path is.',
    inputSchema: { path: z.string().describe('Absolute path of a mount point, directory or file') },
  },
  async ({ path }) => ({ content: [{ type: 'text', text: usageText(path, await statfs(path)) }], isError: false }),
);
await server.connect(new StdioServerTransport());
