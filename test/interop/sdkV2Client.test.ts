// The official v2 SDK client (@modelcontextprotocol/client) against our
// server over stdio and over Streamable HTTP (serve --http, the SDK's
// StreamableHTTPClientTransport), through every declared feature, in each way the SDK
// can connect: pinned to 2026-07-28, auto (a server/discover probe), and
// legacy (the initialize handshake). What hosts built on the v2 SDK will do.
// Progress, through onprogress: sdkProgress.test.ts.
// The subscription tests mount real tmpfs file systems, so they need root.
import { realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  type Client,
  type CompleteResult,
  isJSONRPCResultResponse,
  type ProtocolEra,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { announceSkip, mountTmpfs, posixPathsSkipReason, rootSkipReason, type TestMount } from '../helpers/system.js';
import { type Connection, cacheHintsOf, connect, type TransportKind, type Wire } from './sdkV2.js';

interface Mode {
  readonly title: string;
  readonly negotiation: VersionNegotiationMode;
  readonly version: string;
  readonly era: ProtocolEra;
  /** resources/read of a URI that does not exist, on the wire (server/resources.mdx, "Error Handling"). */
  readonly notFoundCode: number;
}

const MODES: readonly Mode[] = [
  { title: 'pinned to 2026-07-28', negotiation: { pin: '2026-07-28' }, version: '2026-07-28', era: 'modern', notFoundCode: -32602 },
  { title: 'in auto mode', negotiation: 'auto', version: '2026-07-28', era: 'modern', notFoundCode: -32602 },
  { title: 'in legacy mode', negotiation: 'legacy', version: '2025-11-25', era: 'legacy', notFoundCode: -32002 },
];

const MOUNTS_URI = 'disk://mounts';
/** The server polls the kernel's change flag every 500 ms while a subscription is open; this leaves room for a loaded machine. */
const CHANGE_DEADLINE_MS = 5_000;
/** How long notifications written before a closed stream was seen to close may take to arrive. */
const CLOSE_DRAIN_MS = 300;

/** The resource of a path's usage: the template disk://usage/{+path}, whose reserved expansion keeps "/". */
const usageUri = (path: string): string => `disk://usage/${encodeURI(path)}`;
const uris = (listed: { resources: readonly { uri: string }[] }): string[] => listed.resources.map((resource) => resource.uri);
const textOf = (read: ReadResourceResult): string => (read.contents[0] as { text: string }).text;
const mountPointsIn = (read: ReadResourceResult): string[] =>
  (JSON.parse(textOf(read)) as { mounts: { mountPoint: string }[] }).mounts.map((mount) => mount.mountPoint);

// Everything a test spawns or mounts is undone after it, whatever happened in it.
const spawned: Connection[] = [];
const mounted: TestMount[] = [];
afterEach(async () => {
  await Promise.all(spawned.splice(0).map(({ client }) => client.close()));
  for (const mount of mounted.splice(0).reverse()) mount.cleanup();
});

async function spawn(mode: Mode, kind: TransportKind): Promise<Connection> {
  const connection = await connect(mode.negotiation, kind);
  spawned.push(connection);
  return connection;
}

/** A fresh tmpfs, and its mount point as the kernel names it. */
function mountScratch(): { mount: TestMount; point: string } {
  const mount = mountTmpfs('size=1m');
  mounted.push(mount);
  return { mount, point: realpathSync(mount.dir) };
}

/**
 * Lists the resources afresh until `uri` is among them. The server learns that the mount table
 * changed from a thread of its own, in poll() on /proc/self/mountinfo, which may not have run yet
 * when mount(8) returns; until it has, a listing can still be the one from before the mount.
 */
async function listedSoon(client: Client, uri: string): Promise<void> {
  await vi.waitFor(async () => expect(uris(await client.listResources(undefined, { cacheMode: 'bypass' }))).toContain(uri), {
    timeout: CHANGE_DEADLINE_MS,
    interval: 50,
  });
}

function unmount(mount: TestMount): void {
  mounted.splice(mounted.indexOf(mount), 1);
  mount.cleanup();
}

for (const kind of ['stdio', 'http'] as const)
  for (const mode of MODES) {
    const modern = mode.era === 'modern';

    describe.skipIf(announceSkip(`the v2 SDK client ${mode.title} on /`, posixPathsSkipReason))(`the v2 SDK client over ${kind} ${mode.title}`, () => {
      let client: Client;
      let wire: Wire;

      beforeAll(async () => {
        ({ client, wire } = await connect(mode.negotiation, kind));
      });
      afterAll(async () => {
        await client?.close();
      });

      it(`negotiates ${mode.version} and knows the server`, () => {
        expect(client.getNegotiatedProtocolVersion()).toBe(mode.version);
        expect(client.getProtocolEra()).toBe(mode.era);
        expect(client.getServerVersion()).toMatchObject({ name: 'diskprobe' });
        expect(client.getInstructions()).toMatch(/absolute/);
        // 2026-07-28 delivers resource changes through subscriptions/listen; the legacy session has no such thing.
        expect(client.getServerCapabilities()).toMatchObject({
          tools: {},
          prompts: {},
          completions: {},
          resources: { subscribe: modern, listChanged: modern },
        });
        if (modern) {
          // No handshake: the server/discover result is the whole offer (server/discover.mdx).
          const discovered = client.getDiscoverResult();
          expect(discovered?.supportedVersions).toEqual(['2026-07-28']);
          expect(discovered?._meta?.[SERVER_INFO_META_KEY]).toMatchObject({ name: 'diskprobe' });
          expect(wire.requests('initialize')).toEqual([]);
        } else {
          expect(client.getDiscoverResult()).toBeUndefined();
          const [initialize] = wire.requests('initialize');
          expect(initialize?.params).toMatchObject({ protocolVersion: '2025-11-25' });
          expect(wire.responseTo(initialize!.id)).toMatchObject({ result: { protocolVersion: '2025-11-25', serverInfo: { name: 'diskprobe' } } });
        }
      });

      it('lists and calls the tools, with structured content the SDK validates against outputSchema', async () => {
        const listed = await client.listTools();
        expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['directory_usage', 'disk_usage', 'explain_disk_usage', 'list_mounts', 'system_info']);
        expect(cacheHintsOf(listed)).toEqual(modern ? { ttlMs: 3_600_000, cacheScope: 'public' } : { ttlMs: undefined, cacheScope: undefined });

        // callTool checks structuredContent against the listed tool's outputSchema before it returns.
        const usageTool = listed.tools.find((tool) => tool.name === 'disk_usage')!;
        expect(usageTool.outputSchema).toMatchObject({ type: 'object' });
        const usage = await client.callTool({ name: 'disk_usage', arguments: { path: '/' } });
        expect(usage.isError).not.toBe(true);
        expect(usage.structuredContent).toMatchObject({ mountPoint: '/', path: '/' });
        // The same check, seen to bite: given a schema the result cannot meet, the SDK refuses the result.
        const stricter = {
          ...usageTool,
          outputSchema: { ...usageTool.outputSchema!, required: [...((usageTool.outputSchema?.required as string[] | undefined) ?? []), 'noSuchField'] },
        };
        await expect(client.callTool({ name: 'disk_usage', arguments: { path: '/' } }, { toolDefinition: stricter })).rejects.toMatchObject({
          code: ProtocolErrorCode.InvalidParams,
          message: expect.stringContaining("does not match the tool's output schema"),
        });

        // A bad argument is a tool execution error the model can read (SEP-1303, 2025-11-25 and after).
        const badArgument = await client.callTool({ name: 'disk_usage', arguments: { path: 42 } });
        expect(badArgument).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('"path" must be a string') }] });
        const missing = await client.callTool({ name: 'disk_usage', arguments: { path: '/no/such/dir' } });
        expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'ENOENT: /no/such/dir: no such file or directory' }] });

        const mounts = await client.callTool({ name: 'list_mounts', arguments: {} });
        expect(mounts.isError).not.toBe(true);
        expect((mounts.structuredContent as { mounts: { mountPoint: string }[] }).mounts.map((mount) => mount.mountPoint)).toContain('/');
        const info = await client.callTool({ name: 'system_info', arguments: {} });
        expect(info.structuredContent).toHaveProperty('memoryAvailable');
      });

      it('lists, templates and reads resources', async () => {
        const listed = await client.listResources();
        expect(listed.resources[0]?.uri).toBe(MOUNTS_URI);
        expect(uris(listed)).toContain(usageUri('/'));
        expect(cacheHintsOf(listed)).toEqual(modern ? { ttlMs: 60_000, cacheScope: 'private' } : { ttlMs: undefined, cacheScope: undefined });

        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['disk://usage/{+path}']);

        expect(mountPointsIn(await client.readResource({ uri: MOUNTS_URI }))).toContain('/');
        const root = await client.readResource({ uri: usageUri('/') });
        expect(JSON.parse(textOf(root))).toMatchObject({ path: '/', mountPoint: '/' });
        expect(cacheHintsOf(root)).toEqual(modern ? { ttlMs: 0, cacheScope: 'private' } : { ttlMs: undefined, cacheScope: undefined });
      });

      it(`answers a read of a missing resource with ${mode.notFoundCode} and data.uri`, async () => {
        const from = wire.received.length;
        const error = await client.readResource({ uri: 'disk://nothing' }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        // The SDK reads either code as ResourceNotFoundError, and reports it as -32602 (its doc comment says so).
        expect(error).toBeInstanceOf(ResourceNotFoundError);
        expect(error).toMatchObject({ code: -32602, data: { uri: 'disk://nothing' } });
        // On the wire, each version's own code.
        const [answer] = wire.received.slice(from).filter((message) => 'error' in message);
        expect(answer).toMatchObject({ error: { code: mode.notFoundCode, data: { uri: 'disk://nothing' } } });
      });

      it('lists and renders the disk_report prompt, and completes its path', async () => {
        const { prompts } = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name)).toEqual(['disk_report']);
        expect(prompts[0]?.arguments).toEqual([expect.objectContaining({ name: 'path', required: false })]);

        const everything = await client.getPrompt({ name: 'disk_report' });
        expect(everything.messages).toEqual([{ role: 'user', content: { type: 'text', text: expect.stringContaining('list_mounts') } }]);
        const focused = await client.getPrompt({ name: 'disk_report', arguments: { path: '/var' } });
        expect(focused.messages).toEqual([{ role: 'user', content: { type: 'text', text: expect.stringContaining('/var') } }]);

        const { completion }: CompleteResult = await client.complete({
          ref: { type: 'ref/prompt', name: 'disk_report' },
          argument: { name: 'path', value: '/' },
        });
        expect(completion.values).toContain('/');
        expect(completion.values.every((value) => value.startsWith('/'))).toBe(true);
      });

      // Over HTTP in 2026-07-28, a cancel is the closing of the request's response stream: no notification is sent
      // (basic/transports/streamable-http.mdx, "Cancellation"); over stdio, and in a 2025 session, it is notifications/cancelled.
      const cancelsByClosing = kind === 'http' && modern;
      it(`cancels a call: the SDK rejects it and ${cancelsByClosing ? 'closes its stream' : 'sends notifications/cancelled'}, and the server goes on`, async () => {
        const controller = new AbortController();
        const sentFrom = wire.sent.length;
        // Aborted as soon as the request is written: earlier, and the SDK would never send it.
        wire.afterSend = (message) => {
          if ('method' in message && message.method === 'tools/call') controller.abort('changed my mind');
        };
        const error = await client.callTool({ name: 'list_mounts', arguments: { all: true } }, { signal: controller.signal }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        wire.afterSend = undefined;
        // The SDK's abort error: an SdkError carrying the abort reason (under the code it uses for timeouts too).
        expect(error).toBeInstanceOf(SdkError);
        expect(error).toMatchObject({ code: SdkErrorCode.RequestTimeout, message: 'changed my mind' });

        const [call] = wire.requests('tools/call', sentFrom);
        const cancelled = expect.objectContaining({
          method: 'notifications/cancelled',
          params: expect.objectContaining({ requestId: call!.id, reason: 'changed my mind' }),
        });
        if (cancelsByClosing) expect(wire.sent.slice(sentFrom)).not.toContainEqual(cancelled);
        else expect(wire.sent.slice(sentFrom)).toContainEqual(cancelled);
        // Whether the server still answered the call is not checked: the SDK writes the cancel up to a couple
        // of milliseconds after the request (measured here), and list_mounts may be done by then ("Processing
        // has already completed", basic/patterns/cancellation.mdx, "Behavior Requirements"). The SDK drops
        // such an answer, reporting it on onerror.
        const again = await client.callTool({ name: 'list_mounts', arguments: { all: true } });
        expect(again.isError).not.toBe(true);
        expect((await client.callTool({ name: 'disk_usage', arguments: { path: '/' } })).structuredContent).toMatchObject({ path: '/' });
      });

      if (modern) {
        it('stamps every result with resultType "complete" and serverInfo (basic/index.mdx, "Result Responses")', async () => {
          await client.listTools(undefined, { cacheMode: 'bypass' });
          await client.getPrompt({ name: 'disk_report' });
          await client.complete({ ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: '/' } });
          const results = wire.received.filter(isJSONRPCResultResponse);
          expect(results.length).toBeGreaterThan(2);
          for (const { result } of results) {
            expect(result).toMatchObject({ resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: { name: 'diskprobe' } } });
          }
        });

        it.skipIf(announceSkip(`subscriptions/listen ${mode.title}, on real tmpfs mounts`, rootSkipReason))(
          'subscriptions/listen: hears a tmpfs mounted and unmounted, then nothing once closed',
          async () => {
            // A server of its own, whose first request is the listen: a host opens its subscription at
            // connect (the SDK's listChanged option does just that), and what the server had read for
            // other tests must not matter.
            const own = await spawn(mode, kind);
            const heard: { method: string; subscriptionId: unknown; uri?: string }[] = [];
            own.client.setNotificationHandler('notifications/resources/list_changed', (notification) => {
              heard.push({ method: notification.method, subscriptionId: notification.params?._meta?.[SUBSCRIPTION_ID_META_KEY] });
            });
            own.client.setNotificationHandler('notifications/resources/updated', (notification) => {
              const { uri, _meta } = notification.params;
              heard.push({ method: notification.method, subscriptionId: _meta?.[SUBSCRIPTION_ID_META_KEY], uri });
            });

            const subscription = await own.client.listen({ resourcesListChanged: true, resourceSubscriptions: [MOUNTS_URI] });
            expect(subscription.honoredFilter).toEqual({ resourcesListChanged: true, resourceSubscriptions: [MOUNTS_URI] });
            const [listen] = own.wire.requests('subscriptions/listen');
            const id = listen!.id;
            // The acknowledgment comes first of everything tagged with the subscription (subscriptions.mdx, "Acknowledgment").
            expect(own.wire.ofSubscription(id)[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });

            // Both notifications, tagged with the listen request's id (subscriptions.mdx, "Receiving Notifications").
            const change = [
              { method: 'notifications/resources/list_changed', subscriptionId: id },
              { method: 'notifications/resources/updated', subscriptionId: id, uri: MOUNTS_URI },
            ];
            const heardSince = async (from: number): Promise<unknown[]> => {
              await vi
                .waitFor(
                  () => {
                    const methods = new Set(heard.slice(from).map((notification) => notification.method));
                    if (!change.every(({ method }) => methods.has(method))) throw new Error('not yet');
                  },
                  { timeout: CHANGE_DEADLINE_MS, interval: 50 },
                )
                .catch(() => {});
              return heard.slice(from);
            };

            let from = heard.length;
            const { mount, point } = mountScratch();
            // Soft, so that the unmount and the close are still checked when the mount goes unheard.
            expect.soft(await heardSince(from), 'notifications after mounting a tmpfs').toEqual(expect.arrayContaining(change));
            expect(mountPointsIn(await own.client.readResource({ uri: MOUNTS_URI }))).toContain(point);
            // The SDK keeps this list for the ttlMs the server gave (60 s)...
            expect(uris(await own.client.listResources())).toContain(usageUri(point));

            from = heard.length;
            unmount(mount);
            expect(await heardSince(from), 'notifications after unmounting it').toEqual(expect.arrayContaining(change));
            expect(mountPointsIn(await own.client.readResource({ uri: MOUNTS_URI }))).not.toContain(point);
            // ...until list_changed tells it the list is stale.
            expect(uris(await own.client.listResources())).not.toContain(usageUri(point));

            await subscription.close();
            await expect(subscription.closed).resolves.toBe('local');
            expect(own.wire.sent).toContainEqual(
              expect.objectContaining({ method: 'notifications/cancelled', params: expect.objectContaining({ requestId: id }) }),
            );
            // Over HTTP the server learns of the close when the stream's connection ends
            // (streamable-http.mdx, "Cancellation"): what it wrote before then, for a mount another
            // test made meanwhile, may still arrive. That drains first; what comes after must not.
            await sleep(CLOSE_DRAIN_MS);
            const receivedFrom = own.wire.received.length;
            from = heard.length;
            const another = mountScratch();
            // A resources/list that shows the new mount has had the server re-read the mount table, and tell
            // every open subscription of the change, before it answered: whatever the closed one would still
            // get is here by then.
            await listedSoon(own.client, usageUri(another.point));
            expect(own.wire.ofSubscription(id, receivedFrom)).toEqual([]);
            expect(heard.slice(from)).toEqual([]);
          },
        );
      } else {
        // The legacy versions have no subscriptions/listen: the SDK refuses it before anything is
        // sent, and this server offers no resources/subscribe or list_changed there either.
        it('has no subscriptions/listen: the SDK refuses it locally', async () => {
          const sentFrom = wire.sent.length;
          await expect(client.listen({ resourcesListChanged: true, resourceSubscriptions: [MOUNTS_URI] })).rejects.toMatchObject({
            code: SdkErrorCode.MethodNotSupportedByProtocolVersion,
          });
          expect(wire.requests('subscriptions/listen', sentFrom)).toEqual([]);
        });

        it.skipIf(announceSkip(`change notifications ${mode.title}, on a real tmpfs mount`, rootSkipReason))(
          'sends no change notifications for a mount: it declared neither subscribe nor listChanged',
          async () => {
            const from = wire.received.length;
            const { point } = mountScratch();
            // Once a listing shows the mount, the server has seen the change (see the subscription test above).
            await listedSoon(client, usageUri(point));
            expect(wire.notifications('notifications/resources/list_changed', from)).toEqual([]);
            expect(wire.notifications('notifications/resources/updated', from)).toEqual([]);
          },
        );
      }
    });
  }
