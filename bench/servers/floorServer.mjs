// The floor for `npm run bench:server`: the least a Node MCP server on stdio
// can do and still answer the bench. Lines split by hand, JSON.parse, one
// fs.statfsSync per tools/call, JSON.stringify, process.stdout.write. No
// validation, no lifecycle, no backpressure: not a server to use, only the
// cost of Node itself answering over pipes.
import { statfsSync } from 'node:fs';

import { usageText } from './usageText.mjs';

const INITIALIZE_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: {} },
  serverInfo: { name: 'floor', version: '1' },
};

function answer(message) {
  if (message.id === undefined) return; // a notification
  let result;
  if (message.method === 'initialize') result = INITIALIZE_RESULT;
  else if (message.method === 'tools/call') {
    const path = message.params.arguments.path;
    result = { content: [{ type: 'text', text: usageText(path, statfsSync(path)) }], isError: false };
  } else result = {};
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) if (line !== '') answer(JSON.parse(line));
});
