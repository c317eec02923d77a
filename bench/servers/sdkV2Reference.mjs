// The v2 SDK reference server of bench:server (stdio) and bench:http: the
// official McpServer with one disk_usage tool, one statfs on libuv's pool,
// the same text as the other servers, and no structuredContent or
// outputSchema, so the benches compare the SDK around the tool.
import { statfs } from 'node:fs/promises';

import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

import { usageText } from './usageText.mjs';

/** A fresh McpServer named `name` with the disk_usage tool. */
export function sdkV2DiskUsageServer(name) {
  const server = new McpServer({ name, version: '1' });
  server.registerTool(
    'disk_usage',
    {
      description: 'How full the file system holding a path is.',
      inputSchema: z.object({ path: z.string().describe('Absolute path of a mount point, directory or file') }),
    },
    async ({ path }) => ({ content: [{ type: 'text', text: usageText(path, await statfs(path)) }], isError: false }),
  );
  return server;
}
