// A reference model of what the server owes for the bytes it reads, written
// from the specs rather than from src/: newline-delimited framing (MCP
// basic/transports.mdx, "stdio"), JSON-RPC 2.0 §4–6, and MCP's narrowing of
// ids to strings and integers (basic/index.mdx). The fuzz tests compare the
// real thing with it, and check what comes out against the same rules.

/** One line as the framing should report it. */
export type ModelFrame =
  | { readonly kind: 'line'; readonly text: string }
  | { readonly kind: 'oversized'; readonly bytes: number }
  | { readonly kind: 'encoding' };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Only JSON's own whitespace (RFC 8259 §2) makes a line blank; a line of U+00A0 or a BOM is not JSON. */
const BLANK = /^[ \t\r]*$/;

/**
 * Splits a whole input on LF; a line's one trailing CR belongs to its line
 * ending. A line longer than `cap` bytes (CR excluded) is reported with its
 * length, one that is not UTF-8 as such, a blank one not at all. A last line
 * without LF still counts: it ends at end of input.
 */
export function modelFrames(input: Uint8Array, cap: number): ModelFrame[] {
  const frames: ModelFrame[] = [];
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const next = end < 0 ? bytes.length : end + 1;
    if (end < 0) end = bytes.length;
    let line = bytes.subarray(start, end);
    start = next;
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length > cap) {
      frames.push({ kind: 'oversized', bytes: line.length });
      continue;
    }
    let text: string;
    try {
      text = strictUtf8.decode(line);
    } catch {
      frames.push({ kind: 'encoding' });
      continue;
    }
    if (!BLANK.test(text)) frames.push({ kind: 'line', text });
  }
  return frames;
}

/** Ids as keys: 1 and "1" are different ids; 1 and 1.0 are the same one. */
export const idKey = (id: unknown): string => JSON.stringify(id);

const own = (object: object, key: string): boolean => Object.hasOwn(object, key);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** MCP: "Unlike base JSON-RPC, the ID MUST NOT be null"; and an integer, not any number. */
const isValidId = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/** The deepest a message may nest ({} is 1 deep) before it is refused as invalid. */
export const MAX_DEPTH = 1000;

function depth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, level] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, level);
    for (const child of Object.values(current)) stack.push([child, level + 1]);
  }
  return deepest;
}

/** What the server owes: answers by id key, answers with id null, and ids a notifications/cancelled may have silenced. */
export class Owed {
  readonly byId = new Map<string, number>();
  nulls = 0;
  readonly cancelled = new Set<string>();

  private answer(id: unknown): void {
    if (isValidId(id)) this.byId.set(idKey(id), (this.byId.get(idKey(id)) ?? 0) + 1);
    else this.nulls++;
  }

  /** One framed line, given whether a batch is accepted when it arrives. */
  frame(frame: ModelFrame, batches: boolean): void {
    if (frame.kind !== 'line') {
      this.nulls++; // -32600 for oversized, -32700 for bad UTF-8, both with id null
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.text);
    } catch {
      this.nulls++; // -32700 Parse error, id null (JSON-RPC §5.1)
      return;
    }
    if (!Array.isArray(value)) return this.message(value);
    // An empty array, or any batch where batches are refused, is one invalid request (§6).
    if (value.length === 0 || !batches) {
      this.nulls++;
      return;
    }
    for (const item of value) this.message(item);
  }

  /** One message: a request is owed one answer; garbage an error, with its id when one can be read. */
  private message(value: unknown): void {
    if (!isObject(value)) return this.answer(null);
    const hasId = own(value, 'id');
    const id = hasId && isValidId(value.id) ? value.id : null;
    if (value.jsonrpc !== '2.0') return this.answer(id);
    if (!own(value, 'method') && (own(value, 'result') || own(value, 'error'))) return; // a response: ignored
    if (typeof value.method !== 'string') return this.answer(id);
    if (hasId && id === null) return this.answer(null);
    if (own(value, 'params') && (typeof value.params !== 'object' || value.params === null)) return this.answer(id);
    // diskprobe's own limit, not the spec's: deeper messages are refused, with their id (MAX_NESTING_DEPTH).
    if (depth(value) > MAX_DEPTH) return this.answer(id);
    if (hasId) return this.answer(id);
    // A notification: never answered, but a cancel may silence a request (basic/utilities/cancellation.mdx).
    if (value.method === 'notifications/cancelled' && isObject(value.params) && isValidId(value.params.requestId)) {
      this.cancelled.add(idKey(value.params.requestId));
    }
  }
}

/** What the server said, tallied the way Owed is. */
export class Said {
  readonly byId = new Map<string, number>();
  nulls = 0;
  /** Error codes seen, with how often. */
  readonly codes = new Map<number, number>();
  readonly problems: string[] = [];
  /** Answers with the id of a request the model does not know about; for messages. */
  readonly samples: string[] = [];

  /** One parsed line of output; `batches`: whether an array may be sent now. */
  line(value: unknown, text: string, batches: boolean): void {
    if (Array.isArray(value)) {
      if (!batches) this.problems.push(`a batch answer where batches are refused: ${text.slice(0, 200)}`);
      if (value.length === 0) this.problems.push('an empty batch answer (JSON-RPC §6: send nothing instead)');
      for (const item of value) this.response(item, text);
      return;
    }
    if (isObject(value) && typeof value.method === 'string') {
      // A notification from the server (log message, progress); it asks nothing, so has no id.
      if (own(value, 'id')) this.problems.push(`the server sent a request: ${text.slice(0, 200)}`);
      if (value.jsonrpc !== '2.0') this.problems.push(`a notification without jsonrpc 2.0: ${text.slice(0, 200)}`);
      return;
    }
    this.response(value, text);
  }

  private response(value: unknown, text: string): void {
    const problem = responseProblem(value);
    if (problem) {
      this.problems.push(`${problem}: ${text.slice(0, 300)}`);
      return;
    }
    const response = value as { id: unknown; error?: { code: number } };
    if (response.error) this.codes.set(response.error.code, (this.codes.get(response.error.code) ?? 0) + 1);
    if (response.id === null) this.nulls++;
    else this.byId.set(idKey(response.id), (this.byId.get(idKey(response.id)) ?? 0) + 1);
  }
}

/** Why `value` is not a JSON-RPC 2.0 response (§5), or undefined when it is one. */
export function responseProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (value.jsonrpc !== '2.0') return '"jsonrpc" is not "2.0"';
  if (!own(value, 'id')) return 'no id';
  if (value.id !== null && !isValidId(value.id)) return 'an id that is neither a string, an integer nor null';
  if (own(value, 'result') === own(value, 'error')) return 'not exactly one of result and error';
  if (own(value, 'result')) {
    if (value.id === null) return 'a result with id null';
    // MCP results are objects (schema.ts: Result).
    return isObject(value.result) ? undefined : 'a result that is not an object';
  }
  const error = value.error;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return 'an error without an integer code and a string message';
  return undefined;
}

/** Where what was said differs from what was owed: missing, duplicate and unexpected answers. */
export function compare(owed: Owed, said: Said): string[] {
  const problems = [...said.problems];
  for (const [key, count] of owed.byId) {
    const got = said.byId.get(key) ?? 0;
    // A request its client cancelled may go unanswered, but is never answered twice.
    if (owed.cancelled.has(key) ? got > count : got !== count) problems.push(`id ${key}: ${count} answer(s) owed, ${got} sent`);
  }
  for (const [key, got] of said.byId) {
    if (!owed.byId.has(key)) problems.push(`id ${key}: ${got} answer(s) sent to a request never made`);
  }
  if (said.nulls !== owed.nulls) problems.push(`${owed.nulls} answer(s) with id null owed, ${said.nulls} sent`);
  const internal = said.codes.get(-32603);
  // -32603 means a handler threw something unplanned: a bug, whatever the input (STYLE.md §4).
  if (internal) problems.push(`${internal} internal error(s) (-32603)`);
  return problems;
}
