// The SDK reference for `npm run bench:http`: the official v2 SDK's dual-era
// HTTP entry (createMcpHandler, stateless for 2026-07-28, with its legacy
// fallback) mounted on node:http by the SDK's own adapter (toNodeHandler,
// @modelcontextprotocol/node), with the Origin and Host checks the SDK asks
// for in front, and the same disk_usage tool as sdkV2Server.mjs.
// Prints "listening PORT" on stdout once it listens on 127.0.0.1.
import { createServer } from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';

import { sdkV2DiskUsageServer } from './sdkV2Reference.mjs';

const handler = createMcpHandler(() => {
  return sdkV2DiskUsageServer('sdk-v2-http-reference');
});
const serve = toNodeHandler(handler);
const http = createServer((req, res) => void serve(req, res));
http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
process.on('SIGTERM', () => http.close(() => process.exit(0)));
