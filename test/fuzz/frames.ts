// What the fuzzers write to the server: valid requests with fresh ids,
// notifications, and every kind of trouble the issue lists (deep nesting,
// prototype keys, odd ids, truncated JSON, bare scalars, batches, bytes that
// are not UTF-8), plus byte-level mutations of valid frames; and, from
// modernFrames.ts, 2026-07-28 requests that carry their version in _meta,
// mixed in with the rest. JSON is built as text where it matters, so
// "__proto__" stays an own key as it would on the wire (an object literal
// would set the prototype instead).
import fc from 'fast-check';

import { HANDSHAKE_ID, Ids, type RequestId } from './ids.js';
import { DEPTH, deepArray, deepObject, PROTO_KEYS, protoObject, q } from './jsonText.js';
import { modernNotificationText, modernOddIdText, modernRequestText } from './modernFrames.js';
import { goodMeta } from './modernMeta.js';

export { DEPTH, deepArray, deepObject } from './jsonText.js';

/** A frame to write, once given ids: the bytes of one or more lines, or of part of one. */
export type FuzzFrame = (ids: Ids) => Buffer;

/** params for a method, as JSON text: mostly well-formed, some not, some with prototype keys. */
const call: fc.Arbitrary<{ method: string; params?: string }> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ method: 'ping' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom({ method: 'tools/list' }, { method: 'tools/list', params: '{}' }, { method: 'tools/list', params: '{"cursor":"x"}' }),
  },
  {
    weight: 8,
    arbitrary: fc
      .constantFrom(
        '{"name":"disk_usage","arguments":{"path":"/"}}',
        '{"name":"disk_usage","arguments":{"path":"/tmp","unit":"percent"}}',
        '{"name":"disk_usage","arguments":{"path":"/tmp","unit":"mb"},"_meta":{"progressToken":"p"}}',
        '{"name":"disk_usage","arguments":{"path":"relative/path"}}',
        '{"name":"disk_usage","arguments":{"path":"/no/such/dir"}}',
        '{"name":"disk_usage","arguments":{"path":"/","unit":"furlongs"}}',
        '{"name":"disk_usage","arguments":{}}',
        '{"name":"disk_usage","arguments":[]}',
        '{"name":"disk_usage","arguments":"/"}',
        '{"name":"disk_usage"}',
        '{"name":"system_info"}',
        '{"name":"system_info","arguments":{"extra":1}}',
        '{"name":"nope","arguments":{}}',
        '{"arguments":{"path":"/"}}',
        `{"name":"disk_usage","arguments":${protoObject('"/"')}}`,
        `{"name":"disk_usage","arguments":{"path":"/","__proto__":{"path":"/etc"}}}`,
        `{"name":"system_info","arguments":${protoObject('{}')}}`,
        ...PROTO_KEYS.map((key) => `{"name":${q(key)},"arguments":{}}`),
        `{"__proto__":{"name":"disk_usage","arguments":{"path":"/"}}}`,
      )
      .map((params) => ({ method: 'tools/call', params })),
  },
  // list_mounts probes every mount: rarer.
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('{"name":"list_mounts"}', '{"name":"list_mounts","arguments":{"all":"yes"}}')
      .map((params) => ({ method: 'tools/call', params })),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      { method: 'resources/list' },
      { method: 'resources/list', params: '{"cursor":"ZGlza3Byb2JlOjk5OTk5"}' },
      { method: 'resources/list', params: '{"cursor":"??"}' },
      { method: 'resources/templates/list' },
      { method: 'resources/read', params: '{"uri":"disk://usage//tmp"}' },
      { method: 'resources/read', params: '{"uri":"disk://usage/%E0%A4%A"}' },
      { method: 'resources/read', params: '{"uri":"file:///etc/passwd"}' },
      { method: 'resources/read', params: '{"uri":"__proto__"}' },
      { method: 'resources/read', params: '{}' },
      { method: 'prompts/list' },
      { method: 'prompts/get', params: '{"name":"disk_report"}' },
      { method: 'prompts/get', params: '{"name":"disk_report","arguments":{"path":"/var"}}' },
      { method: 'prompts/get', params: '{"name":"disk_report","arguments":{"path":"var"}}' },
      { method: 'prompts/get', params: `{"name":"disk_report","arguments":${protoObject('"/"')}}` },
      { method: 'prompts/get', params: '{"name":"constructor"}' },
      { method: 'completion/complete', params: '{"ref":{"type":"ref/prompt","name":"disk_report"},"argument":{"name":"path","value":"/t"}}' },
      { method: 'completion/complete', params: '{"ref":{"type":"ref/resource","uri":"disk://usage/{+path}"},"argument":{"name":"path","value":""}}' },
      { method: 'completion/complete', params: '{"ref":{"type":"ref/prompt","name":"toString"},"argument":{"name":"__proto__","value":"/"}}' },
      { method: 'completion/complete', params: '{"ref":"x","argument":{}}' },
      { method: 'logging/setLevel', params: '{"level":"debug"}' },
      { method: 'logging/setLevel', params: '{"level":"emergency"}' },
      { method: 'logging/setLevel', params: '{"level":"toString"}' },
      { method: 'logging/setLevel', params: '{"level":"__proto__"}' },
      { method: 'initialize', params: '{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}' },
    ),
  },
  // Unknown methods, the prototype's names among them: -32601.
  { weight: 3, arbitrary: fc.constantFrom('nope', 'tools/nope', '', 'rpc.discover', 'notifications/initialized', ...PROTO_KEYS).map((method) => ({ method })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((method) => ({ method })) },
  // Params of any shape for any method.
  {
    weight: 3,
    arbitrary: fc.record({
      method: fc.constantFrom('ping', 'tools/call', 'tools/list', 'prompts/get', 'resources/read', 'completion/complete', 'logging/setLevel', 'constructor'),
      params: fc.oneof(fc.jsonValue({ maxDepth: 4 }).map(q), fc.constant(protoObject('null')), fc.constant('{"_meta":null}')),
    }),
  },
  // Deep nesting where a value is echoed into an error message, or walked by a validator.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { method: 'tools/call', params: `{"name":${deepArray()}}` },
      { method: 'tools/call', params: `{"name":"disk_usage","arguments":{"path":${deepArray()}}}` },
      { method: 'tools/call', params: `{"name":"disk_usage","arguments":${deepObject()}}` },
      { method: 'tools/list', params: `{"cursor":${deepObject()}}` },
      { method: 'resources/list', params: `{"cursor":${deepArray()}}` },
      { method: 'prompts/get', params: `{"name":${deepArray()}}` },
      { method: 'prompts/get', params: `{"name":"disk_report","arguments":{"path":${deepArray()}}}` },
      { method: 'completion/complete', params: `{"ref":{"type":"ref/prompt","name":${deepArray()}},"argument":{"name":"x","value":"/"}}` },
      { method: 'logging/setLevel', params: `{"level":${deepObject()}}` },
      { method: 'ping', params: deepObject() },
      { method: 'ping', params: `[${deepArray()}]` },
    ),
  },
);

/** Ids that are not what MCP allows (answered with id null), and odd ones that are (answered with them). */
const oddId = fc.constantFrom(
  '1.5',
  '1e400',
  '-0',
  '1e21',
  '9007199254740993',
  '123456789012345678901234567890',
  '-1e-7',
  '0.0',
  '1E2',
  'null',
  '{}',
  '[]',
  'true',
  'false',
  '{"__proto__":1}',
  '""',
  '"\\u0000\\ud800"',
  '"__proto__"',
  '"constructor"',
  q('x'.repeat(10_000)),
  deepArray(),
);

const eol = fc.constantFrom('\n', '\n', '\n', '\r\n');

/** A valid request with a fresh id: the thing that must be answered exactly once. */
const requestText: fc.Arbitrary<(ids: Ids) => string> = fc.tuple(call, fc.boolean(), fc.nat(3)).map(([c, asString, order]) => (ids: Ids) => {
  const id = q(ids.fresh(asString));
  const params = c.params === undefined ? '' : `,"params":${c.params}`;
  // Member order is no part of the message (RFC 8259 §4).
  return order === 0 ? `{"method":${q(c.method)}${params},"id":${id},"jsonrpc":"2.0"}` : `{"jsonrpc":"2.0","id":${id},"method":${q(c.method)}${params}}`;
});

const notificationText: fc.Arbitrary<(ids: Ids) => string> = fc.oneof(
  fc
    .constantFrom(
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
      '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never-issued"}}',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"__proto__":1}}}',
      '{"jsonrpc":"2.0","method":"notifications/cancelled"}',
      '{"jsonrpc":"2.0","method":"nope"}',
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"}}}`,
      ...PROTO_KEYS.map((method) => `{"jsonrpc":"2.0","method":${q(method)},"params":${protoObject('1')}}`),
      `{"jsonrpc":"2.0","method":"notifications/message","params":${deepObject()}}`,
    )
    .map((text) => () => text),
  // Cancelling a request that may still be running: the model lets it go unanswered, never answered twice.
  fc.nat().map((pick) => (ids: Ids) => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${q(ids.earlier(pick))},"reason":"fuzz"}}`),
);

/** Messages that are wrong, as JSON-RPC sees them; some keep a readable id, which the answer must echo. */
const invalidText: fc.Arbitrary<(ids: Ids) => string> = fc.oneof(
  fc.tuple(call, oddId).map(
    ([c, id]) =>
      () =>
        `{"jsonrpc":"2.0","id":${id},"method":${q(c.method)}${c.params === undefined ? '' : `,"params":${c.params}`}}`,
  ),
  fc.tuple(fc.constantFrom('"1.0"', '2.0', 'null', '"2.0 "', deepArray(10)), fc.boolean()).map(
    ([version, withId]) =>
      (ids: Ids) =>
        `{"jsonrpc":${version},${withId ? `"id":${q(ids.fresh(false))},` : ''}"method":"ping"}`,
  ),
  fc
    .constantFrom(
      '7',
      '{}',
      '[',
      '{"jsonrpc":"2.0","id":5}',
      '{"jsonrpc":"2.0","method":5}',
      '{"jsonrpc":"2.0","method":"ping","params":"x"}',
      '{"jsonrpc":"2.0","method":"ping","params":null}',
    )
    .map((text) => () => text),
  fc.tuple(fc.constantFrom('7', 'null', '3', '"x"', '[]', 'true'), fc.boolean()).map(
    ([params, withId]) =>
      (ids: Ids) =>
        `{"jsonrpc":"2.0",${withId ? `"id":${q(ids.fresh(true))},` : ''}"method":"tools/list","params":${params}}`,
  ),
  // A client's response: this server asks nothing, so it is ignored.
  fc
    .constantFrom(
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}',
      '{"jsonrpc":"2.0","id":null,"result":null}',
    )
    .map((text) => () => text),
);

/** One message of any of the kinds above, as text; 2026-07-28 ones among them. */
const messageText = fc.oneof(
  { weight: 6, arbitrary: requestText },
  { weight: 2, arbitrary: notificationText },
  { weight: 2, arbitrary: invalidText },
  { weight: 3, arbitrary: modernRequestText },
  { weight: 1, arbitrary: modernNotificationText },
);

/**
 * A batch: refused as a whole except in a session that agreed 2025-03-26,
 * where each member is answered on its own, and a 2026-07-28 member is
 * refused (no version since 2025-03-26 has batches).
 */
const batchText: fc.Arbitrary<(ids: Ids) => string> = fc.oneof(
  { weight: 8, arbitrary: fc.array(messageText, { minLength: 1, maxLength: 6 }).map((members) => (ids: Ids) => `[${members.map((m) => m(ids)).join(',')}]`) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '[]',
        '[1,2,3]',
        '[[]]',
        '[{}]',
        `[${deepArray(DEPTH - 1)}]`,
        deepArray(),
        `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":${goodMeta()}}}]`,
      )
      .map((text) => () => text),
  },
);

/** Text that is not JSON, or JSON that is not a message. */
const garbageText = fc.oneof(
  fc.constantFrom(
    '42',
    '"str"',
    'true',
    'null',
    '-1e5',
    '{',
    '}',
    '"unterminated',
    'NaN',
    "{'single':1}",
    '{"a":1,}',
    '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '\u00a0',
    '\u2028',
    ' ',
    '',
    '\t\r',
    deepArray(DEPTH).slice(0, DEPTH + 10),
  ),
  fc.jsonValue({ maxDepth: 3 }).map(q),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Bytes that are not UTF-8, or barely are. */
const badBytes = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(
    Buffer.from([0x7b, 0xff, 0x7d]),
    Buffer.from([0xc0, 0x80]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from('{"jsonrpc":"2.0","id":"\xe9","method":"ping"}', 'latin1'),
  ),
);

/** A byte-level change to a valid frame: it may stay valid, break, split in two, or join the next line. */
const mutation = fc.tuple(fc.constantFrom('flip', 'insert', 'delete', 'truncate', 'newline', 'cr', 'duplicate'), fc.nat(), fc.integer({ min: 0, max: 255 }));

function mutate(bytes: Buffer, [kind, at, byte]: [string, number, number]): Buffer {
  if (bytes.length === 0) return bytes;
  const i = at % bytes.length;
  switch (kind) {
    case 'flip':
      return Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i + 1)]);
    case 'insert':
      return Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i)]);
    case 'delete':
      return Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
    case 'truncate':
      return bytes.subarray(0, i);
    case 'newline':
      return Buffer.concat([bytes.subarray(0, i), Buffer.from('\n'), bytes.subarray(i)]);
    case 'cr':
      return Buffer.concat([bytes.subarray(0, i), Buffer.from('\r'), bytes.subarray(i)]);
    default:
      return Buffer.concat([bytes, bytes.subarray(i)]);
  }
}

const text = (build: fc.Arbitrary<(ids: Ids) => string>): fc.Arbitrary<(ids: Ids) => Buffer> => build.map((b) => (ids: Ids) => Buffer.from(b(ids)));
const line = (body: fc.Arbitrary<(ids: Ids) => Buffer>): fc.Arbitrary<FuzzFrame> =>
  fc.tuple(body, eol).map(
    ([b, end]) =>
      (ids: Ids) =>
        Buffer.concat([b(ids), Buffer.from(end)]),
  );

/** One frame of the mix a legacy session gets: its own era's frames, and some of 2026-07-28's, which a dual-era server serves beside it. */
export const frame: fc.Arbitrary<FuzzFrame> = fc.oneof(
  { weight: 40, arbitrary: line(text(requestText)) },
  { weight: 10, arbitrary: line(text(notificationText)) },
  { weight: 10, arbitrary: line(text(invalidText)) },
  { weight: 8, arbitrary: line(text(batchText)) },
  { weight: 6, arbitrary: line(garbageText.map((t) => () => Buffer.from(t))) },
  { weight: 4, arbitrary: line(badBytes.map((b) => () => b)) },
  { weight: 12, arbitrary: line(text(modernRequestText)) },
  { weight: 3, arbitrary: line(text(modernNotificationText)) },
  // Mutations act on the whole frame, newline included: some lose it and run into the next frame.
  {
    weight: 20,
    arbitrary: fc.tuple(line(text(fc.oneof(requestText, batchText, modernRequestText))), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(
      ([f, ms]) =>
        (ids: Ids) =>
          ms.reduce(mutate, f(ids)),
    ),
  },
  // A frame split from its newline: it joins whatever comes next.
  { weight: 2, arbitrary: text(messageText) },
);

/** One frame of the mix a client of 2026-07-28 writes, with no handshake: mostly its era's requests, with the legacy era's frames (and garbage) among them. */
export const modernFrame: fc.Arbitrary<FuzzFrame> = fc.oneof(
  { weight: 50, arbitrary: line(text(modernRequestText)) },
  { weight: 12, arbitrary: line(text(modernNotificationText)) },
  { weight: 4, arbitrary: line(modernOddIdText.map((build) => () => Buffer.from(build()))) },
  { weight: 4, arbitrary: line(text(batchText)) },
  { weight: 15, arbitrary: frame },
  {
    weight: 12,
    arbitrary: fc.tuple(line(text(modernRequestText)), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(
      ([f, ms]) =>
        (ids: Ids) =>
          ms.reduce(mutate, f(ids)),
    ),
  },
  { weight: 2, arbitrary: text(modernRequestText) },
);

/** A JSON value of any shape, as a line: for the dispatcher, which must cope with anything JSON.parse returns. */
export const jsonLine: fc.Arbitrary<FuzzFrame> = fc.jsonValue().map((value) => () => Buffer.from(`${q(value)}\n`));

/** A line of `bytes` bytes that is otherwise a valid request: over a cap, it must be skipped and answered with id null. */
export function hugeLine(bytes: number, id: RequestId): Buffer {
  const head = `{"jsonrpc":"2.0","id":${q(id)},"method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"},"pad":"`;
  const tail = '"}}\n';
  const line = Buffer.alloc(bytes + 1, 0x78); // + 1: the newline is not counted
  line.write(head, 0, 'latin1');
  line.write(tail, line.length - tail.length, 'latin1');
  return line;
}

/** The bytes of `frames` built in order with fresh ids (or the handshake's, reused), as each test builds them. */
export function build(frames: readonly FuzzFrame[]): Buffer {
  const ids = new Ids([HANDSHAKE_ID]);
  return Buffer.concat(frames.map((frame) => frame(ids)));
}

/** `frames` as fast-check prints a counterexample: the lines written, long ones cut, not the closures that build them. */
export function printable(frames: fc.Arbitrary<FuzzFrame[]>): fc.Arbitrary<FuzzFrame[]> {
  const shown = (line: string): string => (line.length > 400 ? `${line.slice(0, 400)}… (${line.length} chars)` : line);
  return frames.map((list) =>
    Object.assign([...list], { [fc.toStringMethod]: () => `lines:\n${build(list).toString('utf8').split('\n').map(shown).map(q).join('\n')}` }),
  );
}
