// The v2 reference for `npm run bench:server`: the official v2 SDK's
// McpServer served by its dual-era stdio entry, `serveStdio`, with the same
// disk_usage tool as sdkServer.mjs (one statfs on libuv's pool, the same
// text, no structuredContent or outputSchema), so the two references differ
// only in the SDK around the tool. The bench drives it the 2026-07-28 way,
// each request carrying its own _meta; it would also serve a connection
// that opens with initialize (`legacy: 'serve'`, the default), which the
// bench does not measure.
import { statfs } from 'node:fs/promises';

import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

import { usageText } from './usageText.mjs';

// One instance per connection, plus one for a server/discover probe that is
// dropped if the client then falls back to initialize.
serveStdio(() => {
  const server = new McpServer({ name: 'sdk-v2-reference', version: '1' });
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
