// params._meta of 2026-07-28 requests, as JSON text: the per-request
// fields (basic/index.mdx, "Per-request protocol fields") each present or
// missing, of the right type or not; a version this server does not serve
// per request (an unknown one, or a legacy one named per request); huge
// values (many keys, long strings, nesting at the server's limit of 1,000
// levels); progressToken of odd types; the prototype's names as keys; and
// keys that only look like the per-request ones.
import fc from 'fast-check';

import { deepArray, deepObject, manyMembers, member, object, PROTO_KEYS, protoObject, q } from './jsonText.js';
import { LEGACY_VERSIONS, LOG_LEVELS, META, MODERN_VERSION } from './modernModel.js';

/** A well-formed _meta, as JSON text: what a modern client sends. */
export const goodMeta = (): string =>
  object([
    member(META.protocolVersion, q(MODERN_VERSION)),
    member(META.clientCapabilities, '{}'),
    member(META.clientInfo, '{"name":"fuzz","version":"1.0.0"}'),
  ]);

/** A member of _meta as text, or undefined to leave it out. */
type Maybe = string | undefined;
const absent = fc.constant<Maybe>(undefined);

/**
 * Nesting that straddles the server's limit of 1,000 levels ({} is 1 deep):
 * a value at params._meta[key] starts at level 4, so `n` levels of it make
 * the message 3 + n deep.
 */
const deepAtMeta = fc.constantFrom(990, 996, 997, 998, 1001, 1500);

const protocolVersion: fc.Arbitrary<Maybe> = fc.oneof(
  { weight: 40, arbitrary: fc.constant(q(MODERN_VERSION)) },
  { weight: 3, arbitrary: absent },
  // Not a string: -32602, whatever else is wrong.
  {
    weight: 4,
    arbitrary: fc.constantFrom('20260728', '2026.0728', 'null', '[]', '{}', 'true', '["2026-07-28"]', '{"version":"2026-07-28"}', protoObject('"2026-07-28"')),
  },
  { weight: 1, arbitrary: deepAtMeta.map((n) => deepArray(n)) },
  // A legacy version named per request: -32022, as for any version not served per request.
  { weight: 4, arbitrary: fc.constantFrom(...LEGACY_VERSIONS).map(q) },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(
        '2026-07-29',
        '',
        '2026-07-28 ',
        ' 2026-07-28',
        '2026-7-28',
        'latest',
        'DRAFT-2026-v1',
        '1900-01-01',
        '__proto__',
        'toString',
        '\u0000',
        '2026-07-28\n',
      )
      .map(q),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map(q) },
  { weight: 1, arbitrary: fc.constant(q(`2026-07-28${'9'.repeat(5_000)}`)) },
);

const capabilities: fc.Arbitrary<Maybe> = fc.oneof(
  { weight: 30, arbitrary: fc.constant('{}') },
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      '{"roots":{"listChanged":true}}',
      '{"sampling":{},"elicitation":{"form":{},"url":{}}}',
      '{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}',
      protoObject('{}'),
      protoObject('null'),
      '{"__proto__":{"roots":{}}}',
      '{"roots":"yes","sampling":[],"elicitation":null}',
    ),
  },
  { weight: 3, arbitrary: absent },
  { weight: 4, arbitrary: fc.constantFrom('"{}"', '""', '0', '[]', '[{}]', 'null', 'true', '"__proto__"') },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(q) },
  // Huge: many keys, a long string, nesting at and past the limit.
  { weight: 1, arbitrary: fc.constantFrom(object(manyMembers(1000)), object([member('x', q('c'.repeat(10_000)))])) },
  { weight: 1, arbitrary: deepAtMeta.map((n) => deepObject(n)) },
);

const clientInfo: fc.Arbitrary<Maybe> = fc.oneof(
  { weight: 12, arbitrary: absent },
  { weight: 12, arbitrary: fc.constant('{"name":"fuzz","version":"1.0.0"}') },
  { weight: 2, arbitrary: fc.constant('{"name":"fuzz","version":"1","title":"F","constructor":1,"toString":"x","hasOwnProperty":null}') },
  // Not an Implementation (schema.ts: name and version, strings): -32602.
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '"fuzz"',
      '{}',
      '{"name":"fuzz"}',
      '{"version":"1"}',
      '{"name":1,"version":"1"}',
      '{"name":"x","version":null}',
      'null',
      '[]',
      '[{"name":"x","version":"y"}]',
      '{"__proto__":{"name":"x","version":"y"}}',
      protoObject('"x"'),
    ),
  },
  { weight: 1, arbitrary: fc.constant(`{"name":${q('n'.repeat(10_000))},"version":"1"}`) },
);

const logLevel: fc.Arbitrary<Maybe> = fc.oneof(
  { weight: 24, arbitrary: absent },
  { weight: 4, arbitrary: fc.constantFrom(...LOG_LEVELS).map(q) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '"verbose"',
      '"DEBUG"',
      '"warn"',
      '""',
      '5',
      'null',
      '[]',
      '["debug"]',
      '{"level":"debug"}',
      '"toString"',
      '"__proto__"',
      '"constructor"',
    ),
  },
);

/** ProgressToken is a string or an integer (schema.ts); the rest are odd. */
const progressToken: fc.Arbitrary<Maybe> = fc.oneof(
  { weight: 24, arbitrary: absent },
  { weight: 3, arbitrary: fc.constantFrom('"p1"', '7', '0', '-3', '""') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '1.5',
      'null',
      '[]',
      '{}',
      'true',
      '1e400',
      '-0',
      '9007199254740993',
      q('t'.repeat(10_000)),
      deepArray(50),
      '{"__proto__":1}',
      '"__proto__"',
    ),
  },
);

/** Other members of _meta: reserved keys that claim nothing, near misses of the per-request keys, the prototype's names, many keys. */
const metaExtras: fc.Arbitrary<readonly string[]> = fc.oneof(
  { weight: 24, arbitrary: fc.constant([]) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      [member('traceparent', '"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"')],
      [member('com.example/x', '1')],
      [member(META.subscriptionId, '5')],
      [member(META.serverInfo, '{"name":"spoof","version":"0"}')],
      PROTO_KEYS.map((key) => member(key, '{}')),
      [member('__proto__', goodMeta())],
      [member('constructor', 'null'), member('toString', '"x"'), member('hasOwnProperty', '1')],
    ),
  },
  // Not the per-request keys, however close: alone, they leave the request in the legacy era.
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      [member('io.modelcontextprotocol/protocolversion', q(MODERN_VERSION))],
      [member('IO.MODELCONTEXTPROTOCOL/protocolVersion', q(MODERN_VERSION))],
      [member('modelcontextprotocol/protocolVersion', q(MODERN_VERSION))],
      [member(`${META.protocolVersion} `, q(MODERN_VERSION)), member(`${META.clientCapabilities} `, '{}')],
      [member('io.modelcontextprotocol/', '{"protocolVersion":"2026-07-28","clientCapabilities":{}}')],
    ),
  },
  { weight: 1, arbitrary: fc.constant(manyMembers(1000)) },
);

/** params._meta as text (undefined: none), most often well-formed. */
export const metaText: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 10, arbitrary: fc.constant(goodMeta()) },
  {
    weight: 30,
    arbitrary: fc.tuple(protocolVersion, capabilities, clientInfo, logLevel, progressToken, metaExtras, fc.nat()).map(([v, c, i, l, p, extras, order]) => {
      const members = [
        v === undefined ? undefined : member(META.protocolVersion, v),
        c === undefined ? undefined : member(META.clientCapabilities, c),
        i === undefined ? undefined : member(META.clientInfo, i),
        l === undefined ? undefined : member(META.logLevel, l),
        p === undefined ? undefined : member('progressToken', p),
        ...extras,
      ].filter((m): m is string => m !== undefined);
      // Member order is no part of the object (RFC 8259 §4).
      const at = members.length === 0 ? 0 : order % members.length;
      return object([...members.slice(at), ...members.slice(0, at)]);
    }),
  },
  // No _meta, or one that is not an object: no claim, so the legacy era's rules.
  { weight: 2, arbitrary: fc.constantFrom(undefined, 'null', '[]', '5', '"2026-07-28"', `[${goodMeta()}]`, q(goodMeta())) },
  // Only an optional field: still a claim, and protocolVersion is missing.
  { weight: 2, arbitrary: fc.constantFrom(object([member(META.logLevel, '"debug"')]), object([member(META.clientInfo, '{"name":"x","version":"1"}')])) },
);
