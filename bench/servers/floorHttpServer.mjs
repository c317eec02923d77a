// The floor for `npm run bench:http`: the least a Node HTTP server can do and
// still answer the bench. node:http, read the body, JSON.parse, one
// fs.statfsSync, JSON.stringify, respond. No headers checked, no Origin, no
// limits: not a server to use, only the cost of Node itself answering HTTP.
// Prints "listening PORT" on stdout once it listens on 127.0.0.1.
import { statfsSync } from 'node:fs';
import { createServer } from 'node:http';

import { usageText } from './usageText.mjs';

const http = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const path = message.params.arguments.path;
    const result = { content: [{ type: 'text', text: usageText(path, statfsSync(path)) }], isError: false, resultType: 'complete' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
http.keepAliveTimeout = 5000;
http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
process.on('SIGTERM', () => http.close(() => process.exit(0)));
