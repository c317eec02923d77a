// The v2 reference for `npm run bench:server`: the official v2 SDK's
// McpServer served by its dual-era stdio entry, `serveStdio`, with the same
// disk_usage tool as sdkServer.mjs (one statfs on libuv's pool, the same
// text, no structuredContent or outputSchema), so the two references differ
// only in the SDK around the tool. The bench drives it the 2026-07-28 way,
// each request carrying its own _meta; it would also serve a connection
// that opens with initialize (`legacy: 'serve'`, the default), which the
// bench does not measure.

import { serveStdio } from '@modelcontextprotocol/server/stdio';

import { sdkV2DiskUsageServer } from './sdkV2Reference.mjs';

// One instance per connection, plus one for a server/discover probe that is
// dropped if the client then falls back to initialize.
serveStdio(() => {
  return sdkV2DiskUsageServer('sdk-v2-reference');
});
