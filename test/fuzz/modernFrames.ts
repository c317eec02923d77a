// What the fuzzers write in the 2026-07-28 era: requests whose params._meta
// (modernMeta.ts) names the protocol version and the client's capabilities,
// with no handshake before them, to every method of that version, to those
// it removed, and to none; inputResponses and requestState of odd types on
// the methods that take them; subscriptions/listen, whose streams stay open
// until a notifications/cancelled ends them; and huge requests.
import fc from 'fast-check';

import type { Ids } from './ids.js';
import { deepObject, manyMembers, member, object, PROTO_KEYS, protoObject, q } from './jsonText.js';
import { goodMeta, metaText } from './modernMeta.js';
import { META, MODERN_VERSION } from './modernModel.js';

/** inputResponses and requestState (basic/patterns/mrtr.mdx): this server never asks, so they are ones it did not ask for. */
const roundTrip: fc.Arbitrary<readonly string[]> = fc.oneof(
  { weight: 12, arbitrary: fc.constant([]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ['"inputResponses":{}'],
      ['"inputResponses":{"x":{"action":"accept","content":{}}}'],
      ['"requestState":"opaque"'],
      ['"requestState":""'],
      ['"inputResponses":{}', '"requestState":"s"'],
      [member('inputResponses', protoObject('{}'))],
    ),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ['"inputResponses":[]'],
      ['"inputResponses":"x"'],
      ['"inputResponses":1'],
      ['"inputResponses":null'],
      ['"inputResponses":true'],
      ['"inputResponses":[{}]'],
      ['"requestState":1'],
      ['"requestState":{}'],
      ['"requestState":[]'],
      ['"requestState":null'],
      ['"requestState":true'],
      ['"inputResponses":{}', '"requestState":5'],
      ['"inputResponses":"x"', '"requestState":"ok"'],
    ),
  },
);

/** The prototype's names as keys of params itself. */
const paramsExtras: fc.Arbitrary<readonly string[]> = fc.oneof(
  { weight: 12, arbitrary: fc.constant([]) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ['"__proto__":{"name":"disk_usage","uri":"disk://mounts","notifications":{}}'],
      ['"constructor":{}'],
      ['"toString":1'],
      ['"hasOwnProperty":"x"'],
      PROTO_KEYS.map((key) => member(key, 'null')),
    ),
  },
);

/** A method and the members of params besides _meta; `listen`: a subscriptions/listen, whose id a cancel may name later. */
interface ModernCall {
  readonly method: string;
  readonly body: readonly string[];
  readonly listen?: boolean;
}

const withRoundTrip = (method: string, bodies: readonly (readonly string[])[]): fc.Arbitrary<ModernCall> =>
  fc.tuple(fc.constantFrom(...bodies), roundTrip).map(([body, extra]) => ({ method, body: [...body, ...extra] }));

const filters = [
  '{"resourcesListChanged":true}',
  '{"resourceSubscriptions":["disk://mounts"]}',
  '{"toolsListChanged":true,"promptsListChanged":false,"resourcesListChanged":true,"resourceSubscriptions":["disk://mounts","disk://usage//tmp"]}',
  '{}',
  '{"__proto__":{"resourcesListChanged":true}}',
  '{"toString":true,"constructor":1}',
  // Malformed (schema.ts SubscriptionFilter): -32602.
  '{"toolsListChanged":"yes"}',
  '{"resourcesListChanged":null}',
  '{"resourceSubscriptions":"disk://mounts"}',
  '{"resourceSubscriptions":[1]}',
  '[]',
  '"all"',
  'null',
];

const modernCall: fc.Arbitrary<ModernCall> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<ModernCall>({ method: 'server/discover', body: [] }, { method: 'server/discover', body: ['"cursor":"x"'] }) },
  { weight: 3, arbitrary: fc.constantFrom<ModernCall>({ method: 'tools/list', body: [] }, { method: 'tools/list', body: ['"cursor":"x"'] }) },
  {
    weight: 7,
    arbitrary: withRoundTrip('tools/call', [
      ['"name":"system_info"'],
      ['"name":"disk_usage","arguments":{"path":"/"}'],
      ['"name":"disk_usage","arguments":{"path":"/tmp","unit":"percent"}'],
      ['"name":"disk_usage","arguments":{"path":"relative"}'],
      ['"name":"disk_usage","arguments":[]'],
      [`"name":"disk_usage","arguments":${protoObject('"/"')}`],
      ['"name":"nope","arguments":{}'],
      ['"name":"toString"'],
      ['"arguments":{"path":"/"}'],
      ['"name":5'],
    ]),
  },
  { weight: 1, arbitrary: withRoundTrip('tools/call', [['"name":"list_mounts"']]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<ModernCall>(
      { method: 'resources/list', body: [] },
      { method: 'resources/list', body: ['"cursor":"??"'] },
      { method: 'resources/templates/list', body: [] },
      { method: 'prompts/list', body: [] },
    ),
  },
  {
    weight: 4,
    arbitrary: withRoundTrip('resources/read', [
      ['"uri":"disk://usage//tmp"'],
      ['"uri":"disk://usage/%E0%A4%A"'],
      ['"uri":"file:///etc/passwd"'],
      ['"uri":"__proto__"'],
      ['"uri":5'],
      [],
    ]),
  },
  {
    weight: 3,
    arbitrary: withRoundTrip('prompts/get', [
      ['"name":"disk_report"'],
      ['"name":"disk_report","arguments":{"path":"/var"}'],
      ['"name":"disk_report","arguments":{"path":"var"}'],
      ['"name":"constructor"'],
      [],
    ]),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<ModernCall>(
      { method: 'completion/complete', body: ['"ref":{"type":"ref/prompt","name":"disk_report"}', '"argument":{"name":"path","value":"/t"}'] },
      { method: 'completion/complete', body: ['"ref":"x"', '"argument":{}'] },
    ),
  },
  {
    weight: 5,
    arbitrary: fc.constantFrom(...filters).map((filter) => ({ method: 'subscriptions/listen', body: [member('notifications', filter)], listen: true })),
  },
  { weight: 1, arbitrary: fc.constant<ModernCall>({ method: 'subscriptions/listen', body: [], listen: true }) },
  // Removed in 2026-07-28 (changelog.mdx, "Major changes" 2 and 5), or never a request: -32601 once the _meta is right.
  {
    weight: 3,
    arbitrary: fc.constantFrom<ModernCall>(
      { method: 'ping', body: [] },
      { method: 'logging/setLevel', body: ['"level":"debug"'] },
      { method: 'initialize', body: ['"protocolVersion":"2025-03-26"', '"capabilities":{}', '"clientInfo":{"name":"fuzz","version":"0"}'] },
      { method: 'notifications/initialized', body: [] },
      { method: 'resources/subscribe', body: ['"uri":"disk://mounts"'] },
      { method: 'tasks/get', body: ['"taskId":"t"'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('nope', '', 'tools/nope', 'rpc.discover', 'server/discover ', ...PROTO_KEYS).map((method) => ({ method, body: [] })),
  },
);

/** params as text: _meta, the method's members and extra ones, in some order. */
function paramsText(meta: string | undefined, members: readonly string[], order: number): string {
  const all = meta === undefined ? [...members] : [member('_meta', meta), ...members];
  const at = all.length === 0 ? 0 : order % all.length;
  return object([...all.slice(at), ...all.slice(0, at)]);
}

/** A 2026-07-28 request (or an attempt at one) with a fresh id. */
export const modernRequestText: fc.Arbitrary<(ids: Ids) => string> = fc
  .tuple(modernCall, metaText, paramsExtras, fc.boolean(), fc.nat(), fc.nat(15))
  .map(([call, meta, extras, asString, order, reuse]) => (ids: Ids) => {
    // Now and then a stream takes the id of a request long answered, the handshake's.
    const id = q(call.listen ? ids.listen(asString, reuse < 2) : ids.fresh(asString));
    const params = paramsText(meta, [...call.body, ...extras], order);
    return order % 2 === 0
      ? `{"jsonrpc":"2.0","id":${id},"method":${q(call.method)},"params":${params}}`
      : `{"params":${params},"method":${q(call.method)},"jsonrpc":"2.0","id":${id}}`;
  });

/** The same requests with ids MCP does not allow: answered with id null, whatever their _meta. */
export const modernOddIdText: fc.Arbitrary<() => string> = fc
  .tuple(modernCall, metaText, fc.constantFrom('null', '1.5', '{}', '[]', 'true', '1e400', '{"__proto__":1}'))
  .map(
    ([call, meta, id]) =>
      () =>
        `{"jsonrpc":"2.0","id":${id},"method":${q(call.method)},"params":${paramsText(meta, call.body, 0)}}`,
  );

/** A well-formed subscriptions/listen: a stream the server must hold open. */
export const listenText: fc.Arbitrary<(ids: Ids) => string> = fc.tuple(fc.constantFrom(...filters.slice(0, 6)), fc.boolean(), fc.nat(15)).map(
  ([filter, asString, reuse]) =>
    (ids: Ids) =>
      `{"jsonrpc":"2.0","id":${q(ids.listen(asString, reuse < 2))},"method":"subscriptions/listen","params":{"_meta":${goodMeta()},"notifications":${filter}}}`,
);

/** Ends a subscription the generator opened, most often one still open. */
export const cancelListenText: fc.Arbitrary<(ids: Ids) => string> = fc.tuple(fc.nat(), fc.boolean()).map(
  ([pick, withMeta]) =>
    (ids: Ids) =>
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${q(ids.cancelListen(pick))},"reason":"done"${withMeta ? `,"_meta":${goodMeta()}` : ''}}}`,
);

/** Notifications carrying a modern _meta, and cancels that end subscriptions: never answered. */
export const modernNotificationText: fc.Arbitrary<(ids: Ids) => string> = fc.oneof(
  // Rarer than listens, so a long stream reaches the server's limit.
  { weight: 2, arbitrary: cancelListenText },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        metaText,
        fc.constantFrom('notifications/progress', 'notifications/message', 'nope', 'server/discover', 'subscriptions/listen', 'notifications/initialized'),
      )
      .map(
        ([meta, method]) =>
          () =>
            `{"jsonrpc":"2.0","method":${q(method)},"params":${paramsText(meta, method === 'subscriptions/listen' ? ['"notifications":{"resourcesListChanged":true}'] : [], 0)}}`,
      ),
  },
);

/**
 * Huge 2026-07-28 requests, well-formed and under the server's default cap
 * of 4 MiB: a clientInfo name of 2 MB, 100,000 keys in clientCapabilities,
 * and clientCapabilities nested to exactly the 1,000 levels a message may
 * have. Each must get its complete result.
 */
export function hugeModernLines(ids: Ids): Buffer[] {
  const request = (method: string, meta: string): Buffer =>
    // The newline first ends whatever frame came before, which may have lost its own.
    Buffer.from(`\n{"jsonrpc":"2.0","id":${q(ids.fresh(true))},"method":${q(method)},"params":{"_meta":${meta}}}\n`);
  const withCapabilities = (capabilities: string): string =>
    object([member(META.protocolVersion, q(MODERN_VERSION)), member(META.clientCapabilities, capabilities)]);
  return [
    request('server/discover', goodMeta().replace('"name":"fuzz"', `"name":${q('n'.repeat(2_000_000))}`)),
    request('tools/list', withCapabilities(object(manyMembers(100_000)))),
    // params._meta.clientCapabilities is at level 4: 997 more levels make the message 1,000 deep.
    request('prompts/list', withCapabilities(deepObject(997))),
  ];
}
