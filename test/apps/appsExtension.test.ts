// MCP Apps (the extension io.modelcontextprotocol/ui, ext-apps
// specification/2026-01-26/apps.mdx) over the protocol, against the built
// server, in every version: declared, listed, linked and read for a client
// that renders apps; for one that does not, nothing differs from before.
// Every line is checked against the official MCP schema of its version by
// the startServer fixture; the declarations also against the extension's own
// JSON Schema, from the official @modelcontextprotocol/ext-apps package.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect } from 'vitest';

import { it, type McpClient, modernMeta, type Result } from '../e2e/mcpClient.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../helpers/mcpSchema.js';

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const UI_MIME_TYPE = 'text/html;profile=mcp-app';
const RENDERS_APPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };
const VIEW_OF = {
  directory_usage: 'ui://diskprobe/directory-usage',
  list_mounts: 'ui://diskprobe/mounts',
  explain_disk_usage: 'ui://diskprobe/explain',
} as const;
const VIEW_BUDGET = 60_000;

const appsSchema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/schema.json'), 'utf8')) as {
  $defs: Record<string, object>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
for (const [name, definition] of Object.entries(appsSchema.$defs)) {
  const { $schema: _dialect, ...rest } = definition as Record<string, unknown>;
  ajv.addSchema(rest, name);
}
/** What the extension's schema finds wrong with `value` as its definition `name`. */
function appsProblems(name: string, value: unknown): string[] {
  const validate = ajv.getSchema(name);
  if (validate === undefined) throw new Error(`the ext-apps schema has no ${name}`);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

type Era = { version: ProtocolVersion; modern: boolean };
const ERAS: Era[] = [...PROTOCOL_VERSIONS.map((version) => ({ version, modern: false })), { version: '2026-07-28', modern: true }];

/** A server in `era`, for a client that renders apps or not; `ask` sends a request as that client. */
async function connect(
  startServer: (options: { version: ProtocolVersion }) => McpClient,
  era: Era,
  apps: boolean,
): Promise<{ server: McpClient; capabilities: Record<string, unknown>; ask: (method: string, params?: Record<string, unknown>) => Promise<Result> }> {
  const server = startServer({ version: era.version });
  const clientCapabilities = apps ? RENDERS_APPS : {};
  if (era.modern) {
    const ask = async (method: string, params: Record<string, unknown> = {}): Promise<Result> => {
      const response = await server.modern(method, params, { 'io.modelcontextprotocol/clientCapabilities': clientCapabilities });
      expect(response.error, JSON.stringify(response.error)).toBeUndefined();
      return response.result as Result;
    };
    const discovered = await ask('server/discover');
    return { server, capabilities: discovered.capabilities as Record<string, unknown>, ask };
  }
  const initialized = await server.initialize(era.version, { capabilities: clientCapabilities });
  return { server, capabilities: initialized.capabilities as Record<string, unknown>, ask: (method, params) => server.result(method, params) };
}

describe.concurrent.for(ERAS)('MCP Apps in $version', (era) => {
  it('declares the extension, links directory_usage and list_mounts to their views, and lists and serves both', async ({ startServer }) => {
    const { capabilities, ask } = await connect(startServer, era, true);
    expect(capabilities.extensions).toEqual({ [UI_EXTENSION]: {} });

    const { tools } = (await ask('tools/list')) as { tools: Array<{ name: string; _meta?: Record<string, unknown> }> };
    for (const tool of tools) {
      const view = VIEW_OF[tool.name as keyof typeof VIEW_OF];
      if (view === undefined) {
        expect(tool._meta, tool.name).toBeUndefined();
        continue;
      }
      expect(tool._meta).toEqual({ ui: { resourceUri: view }, 'ui/resourceUri': view });
      expect(appsProblems('McpUiToolMeta', tool._meta!.ui)).toEqual([]);
    }

    const listed: Array<Record<string, unknown>> = [];
    let cursor: unknown;
    do {
      const page = (await ask('resources/list', cursor === undefined ? {} : { cursor })) as { resources: Array<Record<string, unknown>>; nextCursor?: unknown };
      listed.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const views = listed.filter((resource) => String(resource.uri).startsWith('ui://'));
    expect(views.map((view) => view.uri)).toEqual(Object.values(VIEW_OF));
    for (const view of views) {
      expect(view.mimeType).toBe(UI_MIME_TYPE);
      expect(appsProblems('McpUiResourceMeta', (view._meta as { ui: unknown }).ui)).toEqual([]);

      const read = (await ask('resources/read', { uri: view.uri })) as { contents: Array<Record<string, unknown>> };
      expect(read.contents).toHaveLength(1);
      const [page] = read.contents;
      expect(page).toMatchObject({ uri: view.uri, mimeType: UI_MIME_TYPE });
      expect(appsProblems('McpUiResourceMeta', (page!._meta as { ui: unknown }).ui)).toEqual([]);
      const html = page!.text as string;
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(Buffer.byteLength(html), `${view.uri} within the 60 KB a view may weigh`).toBeLessThanOrEqual(VIEW_BUDGET);
      // Self-contained: nothing for the host's default CSP (no network) to refuse.
      expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    }
  });

  it('gives a client that renders apps structuredContent, where its view reads the result', async ({ startServer }) => {
    const { ask } = await connect(startServer, era, true);
    const result = (await ask('tools/call', { name: 'list_mounts', arguments: {} })) as { structuredContent?: { mounts?: unknown[] } };
    expect(result.structuredContent?.mounts?.length).toBeGreaterThan(0);
  });

  it('shows a client that does not render apps nothing of them: no extension, no links, no ui:// listed', async ({ startServer }) => {
    const { capabilities, ask } = await connect(startServer, era, false);
    expect(capabilities).not.toHaveProperty('extensions');
    const { tools } = (await ask('tools/list')) as { tools: Array<Record<string, unknown>> };
    for (const tool of tools) expect(tool, String(tool.name)).not.toHaveProperty('_meta');
    const { resources } = (await ask('resources/list')) as { resources: Array<{ uri: string }> };
    expect(resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([]);
    // A view can still be read by its URI, as any resource.
    const read = (await ask('resources/read', { uri: VIEW_OF.list_mounts })) as { contents: Array<{ mimeType: string }> };
    expect(read.contents[0]!.mimeType).toBe(UI_MIME_TYPE);
  });
});

describe('MCP Apps: what a client cannot have', () => {
  it('answers a ui:// URI that names no view as not found', async ({ startServer }) => {
    const server = startServer({ version: '2026-07-28' });
    const response = await server.modern('resources/read', { uri: 'ui://diskprobe/nothing' }, modernMeta());
    expect(response.error).toMatchObject({ code: -32602 });
  });

  it('takes a client that lists the extension without the HTML profile as one that does not render apps', async ({ startServer }) => {
    const server = startServer({ version: '2025-11-25' });
    const initialized = await server.initialize('2025-11-25', { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/plain'] } } } });
    expect(initialized.capabilities).not.toHaveProperty('extensions');
  });
});
