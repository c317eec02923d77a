// The requests `npm run test:load` sends, and what each must be answered with.
// A fixed, interleaved mix over every method the server serves, some requests
// that must fail, numeric and string ids; deterministic, so runs compare.

/** What a response must be, by the request's kind; kinds are small integers so the in-flight map stays lean. */
export const EXPECT = [
  { name: 'tool result', check: (m) => m.result?.isError === false && typeof m.result.content?.[0]?.text === 'string' },
  { name: 'tool result with isError', check: (m) => m.result?.isError === true && typeof m.result.content?.[0]?.text === 'string' },
  { name: 'result', check: (m) => typeof m.result === 'object' && m.result !== null && m.error === undefined },
  { name: 'error -32601', check: (m) => m.error?.code === -32601 },
  { name: 'error -32602', check: (m) => m.error?.code === -32602 },
  { name: 'error -32002', check: (m) => m.error?.code === -32002 },
];
const [TOOL, TOOL_ERROR, RESULT, NO_METHOD, BAD_PARAMS, NO_RESOURCE] = EXPECT.keys();

/** One line that is not JSON: answered with -32700 and id null (it has no id to echo). */
export const PARSE_ERROR_LINE = '{"jsonrpc":"2.0","id":1,"method":"ping"\n';

const request = (id, method, params) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}"${params ? `,"params":${JSON.stringify(params)}` : ''}}\n`;
const tool = (name, args) => ({ name, arguments: args });

/**
 * Builds the mix for a server whose temporary directory is `dir` (an absolute
 * path on a real file system). Returns `next(i, id)`: request number `i`'s
 * line with id `id` and the index of its EXPECT entry, or `undefined` as the
 * kind for the line that is not JSON.
 */
export function requestMix(dir) {
  // [weight out of 100, kind, params of request `id`]
  const weighted = [
    [40, TOOL, 'tools/call', () => tool('disk_usage', { path: '/' })],
    [12, TOOL, 'tools/call', () => tool('disk_usage', { path: dir })],
    [4, TOOL, 'tools/call', () => tool('disk_usage', { path: '/', unit: 'percent' })],
    [4, TOOL, 'tools/call', () => tool('disk_usage', { path: dir, unit: 'mb' })],
    [8, RESULT, 'ping', () => undefined],
    [5, TOOL, 'tools/call', () => tool('system_info', {})],
    [5, RESULT, 'resources/read', () => ({ uri: `disk://usage/${encodeURI(dir)}` })],
    [4, RESULT, 'prompts/get', () => ({ name: 'disk_report', arguments: { path: dir } })],
    [2, RESULT, 'tools/list', () => undefined],
    [2, RESULT, 'prompts/list', () => undefined],
    [2, RESULT, 'resources/templates/list', () => undefined],
    // Each with a path of its own that does not exist: caches keyed by path must stay bounded.
    [3, TOOL_ERROR, 'tools/call', (id) => tool('disk_usage', { path: `${dir}/missing/${id}` })],
    [2, BAD_PARAMS, 'tools/call', () => tool('disk_usage', { path: 'relative/path' })],
    [2, BAD_PARAMS, 'tools/call', () => tool('no_such_tool', {})],
    [2, BAD_PARAMS, 'prompts/get', () => ({ name: 'no_such_prompt' })],
    [2, NO_RESOURCE, 'resources/read', (id) => ({ uri: `disk://nothing/${id}` })],
    [1, NO_METHOD, 'diskprobe/no_such_method', () => undefined],
  ];
  const slots = weighted.flatMap(([weight, ...entry]) => Array.from({ length: weight }, () => entry));
  if (slots.length !== 100) throw new Error(`the mix's weights add up to ${slots.length}, not 100`);
  // Rare and slower: every mount probed, the directory read.
  const rare = [
    [TOOL, 'tools/call', () => tool('list_mounts', {})],
    [RESULT, 'resources/list', () => undefined],
    [RESULT, 'completion/complete', () => ({ ref: { type: 'ref/prompt', name: 'disk_report' }, argument: { name: 'path', value: `${dir}/` } })],
    [RESULT, 'resources/read', () => ({ uri: 'disk://mounts' })],
  ];
  return (i, id) => {
    if (i % 5000 === 4999) return { line: PARSE_ERROR_LINE, kind: undefined };
    // 37 is prime to 100: consecutive requests walk the slots in a spread-out order.
    const [kind, method, params] = i % 500 === 250 ? rare[Math.floor(i / 500) % rare.length] : slots[(i * 37) % 100];
    return { line: request(id, method, params(id)), kind };
  };
}
