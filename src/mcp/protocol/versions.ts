// What each protocol version changes, as data: every version-dependent rule
// asks this table, nothing compares version strings elsewhere.
//
// Two eras (basic/versioning.mdx, "Terminology"): the legacy versions are
// agreed once, by initialize; a modern version is named by every request in
// its _meta. The era is decided once per request, at the edge (server.ts);
// past that, code reads these rules.

/** Versions agreed by the initialize handshake, oldest first. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** Versions named per request in `_meta` (no handshake). */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type ProtocolVersion = LegacyVersion | ModernVersion;

/** What initialize answers when the client asks for a version this server does not speak. */
export const LATEST_LEGACY_VERSION: LegacyVersion = '2025-11-25';

export interface VersionRules {
  /** The methods a client may call (the rest are -32601, docs/baseline.md §3). */
  readonly methods: ReadonlySet<string>;
  /** JSON-RPC batches: added in 2025-03-26 (basic/index.mdx "Batching"), removed in 2025-06-18. */
  readonly batches: boolean;
  /** Tool `annotations` (readOnlyHint…), from 2025-03-26. */
  readonly toolAnnotations: boolean;
  /** Tool `title`, `outputSchema` and results' `structuredContent`, from 2025-06-18. */
  readonly structuredOutput: boolean;
  /**
   * Tool input that fails validation is a tool result with isError: true, not
   * -32602, from 2025-11-25 (SEP-1303: the model can read it and correct itself).
   */
  readonly inputErrorsAsToolResults: boolean;
  /** notifications/progress may carry a `message`, from 2025-03-26. */
  readonly progressMessage: boolean;
  /**
   * Every result carries `resultType: "complete"` and `_meta` serverInfo, from
   * 2026-07-28 (basic/index.mdx "Result Responses" and "_meta").
   */
  readonly resultMeta: boolean;
  /** Cacheable results carry `ttlMs` and `cacheScope`, from 2026-07-28 (server/utilities/caching.mdx). */
  readonly cacheHints: boolean;
  /**
   * resources/read of a URI that does not exist: -32002 through 2025-11-25,
   * -32602 with data.uri from 2026-07-28 (server/resources.mdx "Error Handling").
   */
  readonly resourceNotFoundCode: number;
  /**
   * resources/read of a path whose file system failed to answer (a dead
   * mount, EACCES): -32000 through 2025-11-25; from 2026-07-28 the -32000 to
   * -32019 range is closed to new use (basic/index.mdx "Error Codes"), so -32603.
   */
  readonly probeFailedCode: number;
  /**
   * subscriptions/listen delivers resource and resource-list changes, from
   * 2026-07-28: the resources capability then declares subscribe and listChanged.
   */
  readonly resourceSubscriptions: boolean;
}

const LEGACY_METHODS = [
  'initialize',
  'ping',
  'logging/setLevel',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
];
/** completion/complete came with the completions capability in 2025-03-26. */
const WITH_COMPLETION = new Set([...LEGACY_METHODS, 'completion/complete']);

const legacy = {
  batches: false,
  toolAnnotations: true,
  structuredOutput: true,
  inputErrorsAsToolResults: true,
  progressMessage: true,
  resultMeta: false,
  cacheHints: false,
  resourceNotFoundCode: -32002,
  probeFailedCode: -32000,
  resourceSubscriptions: false,
  methods: WITH_COMPLETION,
} as const satisfies VersionRules;

export const VERSION_RULES: Readonly<Record<ProtocolVersion, VersionRules>> = {
  '2024-11-05': {
    ...legacy,
    methods: new Set(LEGACY_METHODS),
    toolAnnotations: false,
    structuredOutput: false,
    inputErrorsAsToolResults: false,
    progressMessage: false,
  },
  '2025-03-26': { ...legacy, batches: true, structuredOutput: false, inputErrorsAsToolResults: false },
  '2025-06-18': { ...legacy, inputErrorsAsToolResults: false },
  '2025-11-25': legacy,
  // No initialize, ping or logging/setLevel; resources/subscribe never existed
  // here (the legacy capability says subscribe: false); server/discover and
  // subscriptions/listen are new (changelog.mdx, "Major changes").
  '2026-07-28': {
    ...legacy,
    methods: new Set([
      'server/discover',
      'subscriptions/listen',
      'tools/list',
      'tools/call',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'prompts/list',
      'prompts/get',
      'completion/complete',
    ]),
    resultMeta: true,
    cacheHints: true,
    resourceNotFoundCode: -32602,
    probeFailedCode: -32603,
    resourceSubscriptions: true,
  },
};

/** Every method some version has: a method outside it is -32601 before anything else is checked. */
export const ALL_METHODS: ReadonlySet<string> = new Set(Object.values(VERSION_RULES).flatMap((rules) => [...rules.methods]));

/**
 * The client's version when we speak it by handshake, else our latest. A
 * mismatch is never an error: the client decides whether to go on
 * (lifecycle.mdx, "Version Negotiation").
 */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(requested) ? (requested as LegacyVersion) : LATEST_LEGACY_VERSION;
}

export function isModernVersion(version: unknown): version is ModernVersion {
  return (MODERN_VERSIONS as readonly unknown[]).includes(version);
}
