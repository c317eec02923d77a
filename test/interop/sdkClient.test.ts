// The official SDK's Client (v1) against our server over stdio and over
// Streamable HTTP (serve --http), through every declared feature: what real
// hosts built on the SDK will do. Progress, through onprogress: sdkProgress.test.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, posixPathsSkipReason, projectRoot } from '../helpers/system.js';

/** `diskprobe serve --http 127.0.0.1:0`, and the URL it says it serves. */
async function startHttpServer(): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, [join(projectRoot, 'dist/bin/diskprobe.js'), 'serve', '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving MCP on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    child.once('exit', () => reject(new Error(`the server exited before listening:\n${stderr}`)));
  });
  return { child, url };
}

for (const kind of ['stdio', 'http'] as const)
  describe.skipIf(announceSkip('the official SDK client on /', posixPathsSkipReason))(`the official SDK client over ${kind}`, () => {
    let client: Client;
    let transport: Transport;
    let server: ChildProcess | undefined;

    beforeAll(async () => {
      if (kind === 'http') {
        const started = await startHttpServer();
        server = started.child;
        transport = new StreamableHTTPClientTransport(started.url);
      } else {
        transport = new StdioClientTransport({ command: process.execPath, args: [join(projectRoot, 'dist/bin/diskprobe.js')], stderr: 'pipe' });
      }
      client = new Client({ name: 'interop-test', version: '1.0.0' });
      await client.connect(transport);
    });
    afterAll(async () => {
      await client?.close();
      if (server !== undefined) {
        const exited = new Promise((resolve) => server!.once('exit', resolve));
        server.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
    });

    it('initializes with the latest version and sees every capability', () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'diskprobe' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {}, completions: {} });
      expect(client.getInstructions()).toMatch(/absolute/);
    });

    it('pings', async () => {
      expect(await client.ping()).toEqual({});
    });

    it('lists and calls the tools, with structured content the SDK validates against outputSchema', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['directory_usage', 'disk_usage', 'explain_disk_usage', 'list_mounts', 'system_info']);
      const usage = await client.callTool({ name: 'disk_usage', arguments: { path: '/' } });
      expect(usage.isError).toBe(false);
      expect(usage.structuredContent).toMatchObject({ mountPoint: '/', path: '/' });
      const missing = await client.callTool({ name: 'disk_usage', arguments: { path: '/no/such/dir' } });
      expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'ENOENT: /no/such/dir: no such file or directory' }] });
      const info = await client.callTool({ name: 'system_info', arguments: {} });
      expect(info.structuredContent).toHaveProperty('memoryAvailable');
    });

    it('lists, templates and reads resources', async () => {
      const { resources } = await client.listResources();
      expect(resources[0]?.uri).toBe('disk://mounts');
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates[0]?.uriTemplate).toBe('disk://usage/{+path}');
      const read = await client.readResource({ uri: 'disk://usage//' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ path: '/' });
      await expect(client.readResource({ uri: 'disk://nothing' })).rejects.toMatchObject({ code: -32002 });
    });

    it('lists and renders the prompt, and completes its argument', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['disk_report']);
      const prompt = await client.getPrompt({ name: 'disk_report', arguments: { path: '/var' } });
      expect(prompt.messages[0]?.role).toBe('user');
      const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: '/us' } });
      expect(completion.completion.values).toContain('/usr');
    });

    it('sets the log level, and refuses one RFC 5424 does not have', async () => {
      await client.setLoggingLevel('debug');
      await expect(client.setLoggingLevel('loud' as never)).rejects.toMatchObject({ code: -32602 });
    });

    it('receives log messages: the fallback backend announces itself at warning', async () => {
      const fallbackLogs: Array<{ level: string; data: unknown }> = [];
      const fallback = new Client({ name: 'interop-test', version: '1.0.0' });
      fallback.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void fallbackLogs.push(notification.params));
      await fallback.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(projectRoot, 'dist/bin/diskprobe.js')],
          env: { ...(process.env as Record<string, string>), DISKPROBE_BACKEND: 'statfs' },
        }),
      );
      await fallback.ping();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await fallback.close();
      expect(fallbackLogs).toContainEqual(expect.objectContaining({ level: 'warning', data: expect.objectContaining({ event: 'fallback backend in use' }) }));
    });

    it('cancels a request: the SDK sends notifications/cancelled and rejects the call', async () => {
      const controller = new AbortController();
      const pending = client.callTool({ name: 'list_mounts', arguments: { all: true } }, undefined, { signal: controller.signal });
      controller.abort('changed my mind');
      await expect(pending).rejects.toThrow();
      // The session goes on.
      expect(await client.ping()).toEqual({});
    });
  });
