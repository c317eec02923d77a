// The schema validator is what later MCP tests trust, so it is tested first:
// valid messages pass in every version, broken ones fail with a message that
// points at the problem, and the differences between versions are the
// schemas' own.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  MODERN_VERSION,
  NULL_ID_PROBLEM,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  schemaDir,
  validateDefinition,
  validateServerMessage,
} from '../helpers/mcpSchema.js';

const initializeResult = (version: ProtocolVersion) => ({
  protocolVersion: version,
  capabilities: { tools: { listChanged: false } },
  serverInfo: { name: 'diskprobe', version: '0.1.0' },
});
const response = (result: unknown, id: number | string | null = 1) => ({ jsonrpc: '2.0', id, result });
const errorResponse = (id: number | string | null = 1) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
const logMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'x' } };
const toolResult = { content: [{ type: 'text', text: 'x' }], isError: true };
// Version names are ISO dates, so they compare as strings.
const since = (version: ProtocolVersion, first: ProtocolVersion) => version >= first;

describe('the vendored schemas', () => {
  const sums = readFileSync(join(schemaDir, 'SHA256SUMS'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(/ +/) as [string, string]);

  it('are every version the project names, as published: each file matches SHA256SUMS', () => {
    const versions = readdirSync(schemaDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(sums.map(([, file]) => file)).toEqual(versions.sort().map((version) => `${version}/schema.json`));
    for (const version of PROTOCOL_VERSIONS) expect(versions).toContain(version);
    for (const [sum, file] of sums) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(schemaDir, file)))
          .digest('hex'),
        file,
      ).toBe(sum);
    }
  });
});

describe('MCP schema validator', () => {
  describe.each(PROTOCOL_VERSIONS)('%s', (version) => {
    describe('accepts valid server messages', () => {
      it('an initialize result', () => {
        expect(validateServerMessage(version, response(initializeResult(version)), 'initialize')).toEqual([]);
        expect(validateDefinition(version, 'InitializeResult', initializeResult(version))).toEqual([]);
      });

      it('a tool result that reports a failure', () => {
        expect(validateServerMessage(version, response(toolResult), 'tools/call')).toEqual([]);
      });

      it('a ping result', () => {
        expect(validateServerMessage(version, response({}), 'ping')).toEqual([]);
      });

      it('an error response', () => {
        expect(validateServerMessage(version, errorResponse())).toEqual([]);
        expect(validateServerMessage(version, errorResponse('req-7'))).toEqual([]);
      });

      it('a log message notification', () => {
        expect(validateServerMessage(version, logMessage)).toEqual([]);
        expect(validateDefinition(version, 'LoggingMessageNotification', logMessage)).toEqual([]);
      });

      it('a resource list with a well-formed URI', () => {
        const resources = { resources: [{ uri: 'file:///srv/data', name: 'data' }] };
        expect(validateServerMessage(version, response(resources), 'resources/list')).toEqual([]);
      });
    });

    describe('rejects broken ones and says what is wrong', () => {
      it('an initialize result without serverInfo', () => {
        const { serverInfo: _, ...withoutServerInfo } = initializeResult(version);
        const problems = validateServerMessage(version, response(withoutServerInfo), 'initialize');
        expect(problems).toEqual([`InitializeResult at /result: must have required property 'serverInfo'`]);
      });

      it('a content block of an unknown type, naming the allowed types', () => {
        const problems = validateServerMessage(version, response({ content: [{ type: 'video', text: 'x' }] }), 'tools/call');
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(/^\w+ at \/result\/content\/0: type "video" is none of "text", "image", /);
      });

      it('a text block without its text, naming the field, not every content type', () => {
        const problems = validateServerMessage(version, response({ content: [{ type: 'text' }] }), 'tools/call');
        expect(problems).toEqual([`TextContent at /result/content/0: must have required property 'text'`]);
      });

      it('jsonrpc other than "2.0"', () => {
        const problems = validateServerMessage(version, { ...response({}), jsonrpc: '1.0' }, 'ping');
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(/ at \/jsonrpc: must be equal to constant "2\.0", got "1\.0"$/);
      });

      it('a notification with a method no server sends', () => {
        const problems = validateServerMessage(version, { jsonrpc: '2.0', method: 'notifications/disk_full', params: {} });
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(/^ServerNotification at \/: method "notifications\/disk_full" is none of .*"notifications\/message"/);
      });

      it('a log message with a level the protocol does not have', () => {
        const problems = validateServerMessage(version, { ...logMessage, params: { level: 'loud', data: 'x' } });
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(/^LoggingMessageNotification at \/params\/level: .*"warning".*got "loud"$/);
      });

      it('a resource URI that is not a URI (formats are checked)', () => {
        const problems = validateServerMessage(version, response({ resources: [{ uri: 'not a uri', name: 'x' }] }), 'resources/list');
        expect(problems).toEqual([`ListResourcesResult at /result/resources/0/uri: must match format "uri", got "not a uri"`]);
      });

      it('an error response with a string code', () => {
        const problems = validateServerMessage(version, { jsonrpc: '2.0', id: 1, error: { code: 'oops', message: 'x' } });
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(/ at \/error\/code: must be integer, got "oops"$/);
      });

      it('a response to a method it has no result definition for', () => {
        expect(validateServerMessage(version, response({}), 'disks/format')).toEqual(['/: no result definition is known for method disks/format']);
      });

      it('something that is not a JSON-RPC message', () => {
        expect(validateServerMessage(version, 'hello')).toEqual(['/: a message must be a JSON object, got "hello"']);
        expect(validateServerMessage(version, { jsonrpc: '2.0', id: 1 })).toHaveLength(1);
      });
    });

    // JSON-RPC 2.0 §5 wants id null when the request's id could not be read;
    // no MCP schema allows it, so the validator names it separately.
    it('reports id: null in an error response as the one tolerable problem', () => {
      expect(validateServerMessage(version, errorResponse(null))).toEqual([NULL_ID_PROBLEM]);
      const broken = { jsonrpc: '2.0', id: null, error: { code: -32700 } };
      const problems = validateServerMessage(version, broken);
      expect(problems[0]).toBe(NULL_ID_PROBLEM);
      expect(problems.slice(1)).toEqual([expect.stringMatching(/ at \/error: must have required property 'message'$/)]);
    });

    it('but not in a result', () => {
      expect(validateServerMessage(version, response({}, null), 'ping')).not.toContain(NULL_ID_PROBLEM);
      expect(validateServerMessage(version, response({}, null), 'ping')).not.toEqual([]);
    });

    it('requires an error response to have an id up to 2025-06-18 only', () => {
      const { id: _, ...withoutId } = errorResponse();
      const problems = validateServerMessage(version, withoutId);
      if (since(version, '2025-11-25')) expect(problems).toEqual([]);
      else expect(problems).toEqual([`JSONRPCError at /: must have required property 'id'`]);
    });

    it('names the error envelope as the version does', () => {
      const [current, other] = since(version, '2025-11-25') ? ['JSONRPCErrorResponse', 'JSONRPCError'] : ['JSONRPCError', 'JSONRPCErrorResponse'];
      expect(validateDefinition(version, current, errorResponse())).toEqual([]);
      expect(() => validateDefinition(version, other, errorResponse())).toThrow(`MCP ${version} has no definition named ${other}`);
    });

    it('throws for a definition the version does not have', () => {
      expect(() => validateDefinition(version, 'NoSuchResult', {})).toThrow(/has no definition named NoSuchResult/);
    });

    it('knows structured tool output only from 2025-06-18', () => {
      const knows = since(version, '2025-06-18');
      // The schemas never forbid extra properties, so structuredContent is
      // accepted by older versions too; a malformed one shows whether the
      // version knows the field.
      expect(validateDefinition(version, 'CallToolResult', { ...toolResult, structuredContent: { free: 1 } })).toEqual([]);
      expect(validateDefinition(version, 'CallToolResult', { ...toolResult, structuredContent: 'free' })).toHaveLength(knows ? 1 : 0);
      const tool = { name: 'disk_usage', inputSchema: { type: 'object' }, outputSchema: { type: 'string' } };
      expect(validateDefinition(version, 'Tool', tool)).toHaveLength(knows ? 1 : 0);
      // ...and the content blocks that came with it.
      for (const definition of ['ContentBlock', 'ResourceLink']) {
        if (knows) expect(validateDefinition(version, definition, { type: 'resource_link', uri: 'file:///', name: 'root' })).toEqual([]);
        else expect(() => validateDefinition(version, definition, {})).toThrow(/has no definition named/);
      }
    });

    it('accepts a batch response in 2025-03-26 only', () => {
      const batch = [response({}, 1), errorResponse(2)];
      const problems = validateServerMessage(version, batch);
      if (version === '2025-03-26') expect(problems).toEqual([]);
      else expect(problems).toEqual([`a batch (JSON array) is not a message in ${version}: its schema has no JSONRPCBatchResponse`]);
    });
  });

  describe('batches in 2025-03-26', () => {
    it('checks each element and allows only responses', () => {
      const problems = validateServerMessage('2025-03-26', [{ ...response({}), jsonrpc: '1.0' }, logMessage]);
      expect(problems).toEqual([
        expect.stringMatching(/^JSONRPCResponse at \/0\/jsonrpc: must be equal to constant "2\.0"/),
        '/1: a batch response may hold only responses (result or error)',
      ]);
    });

    it('refuses an empty batch', () => {
      expect(validateServerMessage('2025-03-26', [])).toEqual(['an empty batch: JSON-RPC 2.0 §6 says to send nothing instead']);
    });
  });
});

describe('MCP schema validator, 2026-07-28', () => {
  const discover = {
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'diskprobe', version: '0.1.0' } },
  };

  it('accepts a server/discover result and a subscription acknowledgment', () => {
    expect(validateServerMessage(MODERN_VERSION, response(discover), 'server/discover')).toEqual([]);
    const ack = {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 }, notifications: { resourcesListChanged: true } },
    };
    expect(validateServerMessage(MODERN_VERSION, ack)).toEqual([]);
  });

  it('refuses a result without resultType, and a cacheable one without its hints', () => {
    const { resultType: _, ...untyped } = discover;
    expect(validateServerMessage(MODERN_VERSION, response(untyped), 'server/discover').join('\n')).toMatch(/resultType/);
    const { ttlMs: __, ...unhinted } = discover;
    expect(validateServerMessage(MODERN_VERSION, response(unhinted), 'server/discover').join('\n')).toMatch(/ttlMs/);
    expect(validateServerMessage(MODERN_VERSION, response({ tools: [], resultType: 'complete' }), 'tools/list').join('\n')).toMatch(/ttlMs|cacheScope/);
  });
});
