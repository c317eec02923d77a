// Caching hints (server/utilities/caching.mdx, 2026-07-28): how long a
// result stays fresh, and whether a shared cache may hand it to others.
// The values say what is true of this server.

const HOUR = 3_600_000;

export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: 'public' | 'private';
}

/** The methods whose results carry hints, and theirs. */
export const CACHE_HINTS: ReadonlyMap<string, CacheHint> = new Map([
  // Fixed for the life of the process: the versions, capabilities, tools,
  // prompts and template never change while it runs, and hold nothing of
  // this machine or its users. server/discover and tools/list differ for a
  // client that renders MCP Apps, by its clientCapabilities: a parameter of
  // the request, so part of the cache key (caching.mdx, "Cache Key"). A cache
  // that mixed them up would only add links a client without apps ignores.
  ['server/discover', { ttlMs: HOUR, cacheScope: 'public' }],
  ['tools/list', { ttlMs: HOUR, cacheScope: 'public' }],
  ['prompts/list', { ttlMs: HOUR, cacheScope: 'public' }],
  ['resources/templates/list', { ttlMs: HOUR, cacheScope: 'public' }],
  // One resource per mount: it changes only when the mount table does, which
  // subscriptions/listen reports (resourcesListChanged) at once. It names
  // this machine's mount points, so no shared cache.
  ['resources/list', { ttlMs: 60_000, cacheScope: 'private' }],
  // A disk's usage changes all the time: stale at once.
  ['resources/read', { ttlMs: 0, cacheScope: 'private' }],
]);
