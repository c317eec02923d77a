// The e2e tests trust Transcript to catch every bad line a server writes, so
// it is tested on its own first: lines fed in as bytes, no server involved.
import { describe, expect, it } from 'vitest';

import { NULL_ID_PROBLEM } from '../helpers/mcpSchema.js';
import { Transcript } from './transcript.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const line = (message: unknown): Buffer => bytes(`${JSON.stringify(message)}\n`);

const initialize = (version: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const initializeResult = (version: string) => ({
  jsonrpc: '2.0',
  id: 1,
  result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 'diskprobe', version: '0.1.0' } },
});

describe('Transcript', () => {
  it('accepts valid lines however they are split, and checks results against the method they answer', () => {
    const transcript = new Transcript('2025-11-25');
    transcript.sent(line({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } }));
    const answer = line({ jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: '磁盘' }], isError: false } });
    for (const byte of answer) transcript.output(Buffer.of(byte));
    expect(transcript.problems).toEqual([]);
    expect(transcript.received).toMatchObject([{ index: 0, requestMethod: 'tools/call', version: '2025-11-25' }]);
    expect(transcript.received[0]!.line).toContain('磁盘');
  });

  it('reports a result that does not fit the method it answers', () => {
    const transcript = new Transcript('2025-11-25');
    transcript.sent(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    transcript.output(line({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'x' }] } }));
    expect(transcript.problems.join('\n')).toMatch(/answering tools\/list.*inputSchema/s);
  });

  it('reports lines that are not UTF-8, not JSON, padded, or unfinished', () => {
    const transcript = new Transcript('2025-11-25');
    transcript.output(Buffer.from([0xff, 0x0a]));
    transcript.output(bytes('debug: hello\n'));
    transcript.output(bytes('{"jsonrpc":"2.0","id":1,"result":{}}\r\n'));
    transcript.output(bytes('{"jsonrpc":"2.0"'));
    expect(transcript.problems).toEqual([
      'line 0 is not valid UTF-8',
      'line 1 is not JSON: debug: hello',
      expect.stringContaining('line 2 has whitespace around the message'),
    ]);
    expect(transcript.unfinishedBytes).toBe(16);
  });

  it('excuses id null on an error response, once per error, and nothing else', () => {
    const transcript = new Transcript('2024-11-05');
    transcript.output(line({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    expect(transcript.problems).toEqual([]);
    transcript.output(line({ jsonrpc: '2.0', id: null, error: { code: 'x', message: 'Parse error' } }));
    expect(transcript.problems).toHaveLength(1);
    expect(transcript.problems[0]).not.toContain(NULL_ID_PROBLEM);
  });

  it('checks against the version asked for, then the version the initialize result announces', () => {
    const transcript = new Transcript('2025-11-25');
    transcript.sent(line(initialize('1999-01-01')));
    expect(transcript.version).toBe('2025-11-25');
    const older = new Transcript('2025-11-25');
    older.sent(line(initialize('2024-11-05')));
    expect(older.version).toBe('2024-11-05');
    older.output(line(initializeResult('2024-11-05')));
    // A batch is no message in 2024-11-05.
    older.output(line([{ jsonrpc: '2.0', id: 3, result: {} }]));
    expect(older.problems.join('\n')).toMatch(/a batch \(JSON array\) is not a message in 2024-11-05/);
  });

  it('checks each element of a batch against the method it answers', () => {
    const transcript = new Transcript('2025-03-26');
    transcript.sent(line(initialize('2025-03-26')));
    transcript.output(line(initializeResult('2025-03-26')));
    transcript.sent(line([{ jsonrpc: '2.0', id: 'p', method: 'ping' }, { jsonrpc: '2.0', id: 'l', method: 'tools/list' }, 1]));
    transcript.output(
      line([
        { jsonrpc: '2.0', id: 'p', result: {} },
        { jsonrpc: '2.0', id: 'l', result: { tools: 'none' } },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
      ]),
    );
    expect(transcript.problems).toHaveLength(1);
    expect(transcript.problems[0]).toMatch(/\/1: ListToolsResult/);
  });
});
