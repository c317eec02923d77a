// subscriptions/listen in-process: what a stream is acknowledged with, how
// many may be open, and that the mount-table watch runs exactly while one is.
import { describe, expect, it } from 'vitest';

import { RequestSignal } from '../../dist/jsonrpc/requestSignal.js';
import type { Notification, RequestScope } from '../../dist/mcp/protocol/requestScope.js';
import { MAX_SUBSCRIPTIONS, Subscriptions } from '../../dist/mcp/protocol/subscriptions.js';
import { VERSION_RULES } from '../../dist/mcp/protocol/versions.js';

function scopeFor(id: number, sent: Array<Notification & { id: number }>): RequestScope {
  return {
    id,
    signal: new RequestSignal(),
    version: '2026-07-28',
    rules: VERSION_RULES['2026-07-28'],
    clientCapabilities: {},
    progressToken: undefined,
    notify: (notification) => void sent.push({ ...notification, id }),
    log() {},
  };
}

function setup() {
  const watch = { starts: 0, stops: 0 };
  const subscriptions = new Subscriptions(() => {
    watch.starts++;
    return () => void watch.stops++;
  }, 'disk://mounts');
  const sent: Array<Notification & { id: number }> = [];
  return { subscriptions, watch, sent };
}

const everything = { notifications: { resourcesListChanged: true, resourceSubscriptions: ['disk://mounts'] } };

describe('Subscriptions', () => {
  it(`holds at most ${MAX_SUBSCRIPTIONS} streams, and watches the mount table exactly while any is open`, async () => {
    const { subscriptions, watch, sent } = setup();
    const scopes = Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => scopeFor(i, sent));
    const streams = scopes.map((scope) => subscriptions.listen(everything, scope, (meta) => ({ closed: meta })));
    expect(subscriptions.size).toBe(MAX_SUBSCRIPTIONS);
    expect(watch).toEqual({ starts: 1, stops: 0 });
    expect(() => subscriptions.listen(everything, scopeFor(999, sent), () => ({}))).toThrow(expect.objectContaining({ code: -32603 }));
    // A cancel frees a place at once, and its stream resolves with nothing (the dispatcher sends nothing for it).
    scopes[0]!.signal.abort(new Error('cancelled'));
    await expect(streams[0]).resolves.toBeUndefined();
    expect(subscriptions.size).toBe(MAX_SUBSCRIPTIONS - 1);
    const last = subscriptions.listen(everything, scopeFor(1000, sent), (meta) => ({ closed: meta }));
    subscriptions.closeAll();
    expect(subscriptions.size).toBe(0);
    expect(watch).toEqual({ starts: 1, stops: 1 });
    await expect(last).resolves.toEqual({ closed: { 'io.modelcontextprotocol/subscriptionId': 1000 } });
    await expect(streams[1]).resolves.toEqual({ closed: { 'io.modelcontextprotocol/subscriptionId': 1 } });
  });

  it('acknowledges first, then tells only the streams that asked, and nothing after a cancel', () => {
    const { subscriptions, sent } = setup();
    const lists = scopeFor(1, sent);
    const mounts = scopeFor(2, sent);
    const neither = scopeFor(3, sent);
    void subscriptions.listen({ notifications: { resourcesListChanged: true } }, lists, () => ({}));
    void subscriptions.listen({ notifications: { resourceSubscriptions: ['disk://usage//', 'disk://mounts'] } }, mounts, () => ({}));
    void subscriptions.listen({ notifications: { toolsListChanged: true, promptsListChanged: true } }, neither, () => ({}));
    expect(sent.map(({ id, method, params }) => [id, method, params.notifications])).toEqual([
      [1, 'notifications/subscriptions/acknowledged', { resourcesListChanged: true }],
      [2, 'notifications/subscriptions/acknowledged', { resourceSubscriptions: ['disk://mounts'] }],
      [3, 'notifications/subscriptions/acknowledged', {}],
    ]);
    sent.length = 0;
    subscriptions.mountsChanged();
    expect(sent).toEqual([
      { id: 1, method: 'notifications/resources/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } } },
      { id: 2, method: 'notifications/resources/updated', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 2 }, uri: 'disk://mounts' } },
    ]);
    sent.length = 0;
    lists.signal.abort(new Error('cancelled'));
    subscriptions.mountsChanged();
    expect(sent.map(({ id }) => id)).toEqual([2]);
  });

  it.for([
    ['no filter', {}],
    ['a filter that is not an object', { notifications: [] }],
    ['a flag that is not a boolean', { notifications: { resourcesListChanged: 'yes' } }],
    ['URIs that are not an array of strings', { notifications: { resourceSubscriptions: 'disk://mounts' } }],
    ['URIs with a number among them', { notifications: { resourceSubscriptions: ['disk://mounts', 1] } }],
  ] as const)('refuses %s with -32602, and opens nothing', ([, params]) => {
    const { subscriptions, watch, sent } = setup();
    expect(() => subscriptions.listen(params, scopeFor(1, sent), () => ({}))).toThrow(expect.objectContaining({ code: -32602 }));
    expect(subscriptions.size).toBe(0);
    expect(watch.starts).toBe(0);
    expect(sent).toEqual([]);
  });
});
