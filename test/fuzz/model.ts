// A reference model of what the server owes for the bytes it reads, written
// from the specs rather than from src/: newline-delimited framing (MCP
// basic/transports.mdx, "stdio"), JSON-RPC 2.0 §4–6, and MCP's narrowing of
// ids to strings and integers (basic/index.mdx); the legacy session's
// lifecycle; and, from modernModel.ts, what 2026-07-28 requests are owed,
// subscriptions/listen streams among them. The fuzz tests compare the real
// thing with it, and check what comes out against the same rules.
import { closeOf, type Expectation, idInUse, isObject, LEGACY_VERSIONS, MAX_SUBSCRIPTIONS, modernVerdict } from './modernModel.js';

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
/** MCP: "Unlike base JSON-RPC, the ID MUST NOT be null"; and an integer, not any number. */
export const isValidId = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/** The deepest a message may nest ({} is 1 deep) before it is refused as invalid. */
export const MAX_DEPTH = 1000;

/** Whether `value` nests deeper than `limit`, found with a stack of its own (and as soon as it does). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, level] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (level > limit) return true;
    for (const child of Object.values(current)) stack.push([child, level + 1]);
  }
  return false;
}

/** The legacy session's lifecycle, as basic/lifecycle.mdx has it (strictly: docs/baseline.md §2). */
export type SessionState = 'awaitingInitialize' | 'awaitingInitialized' | 'ready';

/** What the initialize handshake has settled so far: the session's state, its version, and so whether a batch is accepted. */
export class SessionModel {
  state: SessionState = 'awaitingInitialize';
  /** The version agreed: the client's if it is one of ours, else our latest (lifecycle.mdx, "Version Negotiation"). */
  version: string = LEGACY_VERSIONS[LEGACY_VERSIONS.length - 1]!;

  /** Batches came in 2025-03-26 and went in 2025-06-18 (docs/mcp-rules.md R2.1); never before initialize. */
  acceptsBatch(): boolean {
    return this.state !== 'awaitingInitialize' && this.version === '2025-03-26';
  }

  /** A legacy request: initialize, if it can open the session, does. */
  request(method: string, params: unknown): void {
    if (method !== 'initialize' || this.state !== 'awaitingInitialize') return;
    if (!isObject(params) || !own(params, 'protocolVersion') || typeof params.protocolVersion !== 'string') return; // -32602
    const asked = params.protocolVersion;
    this.version = (LEGACY_VERSIONS as readonly string[]).includes(asked) ? asked : LEGACY_VERSIONS[LEGACY_VERSIONS.length - 1]!;
    this.state = 'awaitingInitialized';
  }

  initialized(): void {
    if (this.state === 'awaitingInitialized') this.state = 'ready';
  }
}

/** A subscriptions/listen the model holds open: what it asked to hear. */
interface OpenSubscription {
  readonly id: string | number;
  readonly filter: Record<string, unknown>;
}

/**
 * What the server owes: answers by id key (with, where the rules say, what
 * each may be), answers with id null, ids a notifications/cancelled may
 * have silenced, the subscriptions/listen streams still open, and the
 * acknowledgments they are owed.
 */
export class Owed {
  readonly byId = new Map<string, number>();
  nulls = 0;
  readonly cancelled = new Set<string>();
  /** What may answer each id, one entry per answer owed, for the requests whose answer the rules decide (2026-07-28 ones). */
  readonly expected = new Map<string, Expectation[]>();
  /** Open streams, by id key: each owes nothing now, and one graceful result at EOF. */
  readonly open = new Map<string, OpenSubscription>();
  /** Streams a cancel ended, by id key. */
  private readonly streamsCancelled = new Map<string, string | number>();
  /** notifications/subscriptions/acknowledged owed, by subscription id key: the filter each stream of that id asked for, in order. */
  readonly acks = new Map<string, Record<string, unknown>[]>();
  /** Progress tokens some request asked with: no notifications/progress may carry another. */
  readonly progressTokens = new Set<string>();
  /** Whether any request may hear log messages: a modern one that asked, or a ready legacy session. */
  mayLog = false;
  /** Whether a batch was accepted: then an answer may be an array. */
  batchesSeen = false;
  readonly session = new SessionModel();

  private answer(id: unknown, expect?: Expectation): void {
    if (!isValidId(id)) {
      this.nulls++;
      return;
    }
    const key = idKey(id);
    this.byId.set(key, (this.byId.get(key) ?? 0) + 1);
    if (expect === undefined) return;
    const list = this.expected.get(key);
    if (list) list.push(expect);
    else this.expected.set(key, [expect]);
  }

  /** One framed line; `batches` overrides whether a batch is accepted (else the session model says). */
  frame(frame: ModelFrame, batches = this.session.acceptsBatch()): void {
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
    // Each level takes two characters, so a shorter line cannot nest too deep: the walk is skipped.
    const long = frame.text.length > 2 * MAX_DEPTH;
    if (!Array.isArray(value)) return this.message(value, false, long);
    // An empty array, or any batch where batches are refused, is one invalid request (§6).
    if (value.length === 0 || !batches) {
      this.nulls++;
      return;
    }
    this.batchesSeen = true;
    for (const item of value) this.message(item, true, long);
  }

  /**
   * The input ended (EOF, or SIGTERM, which this server treats alike): every
   * open stream gets its graceful close. `cutShort`: the server may not have
   * read all the input (SIGTERM), so a stream whose cancel it never read may
   * be closed too, at most once.
   */
  end(cutShort = false): void {
    for (const [, { id }] of this.open) this.answer(id, closeOf(id));
    this.open.clear();
    if (!cutShort) return;
    for (const [key, id] of this.streamsCancelled) {
      this.answer(id, closeOf(id));
      this.cancelled.add(key);
    }
  }

  /** One message: a request is owed one answer; garbage an error, with its id when one can be read. */
  private message(value: unknown, batched: boolean, long: boolean): void {
    if (!isObject(value)) return this.answer(null);
    const hasId = own(value, 'id');
    const id = hasId && isValidId(value.id) ? value.id : null;
    if (value.jsonrpc !== '2.0') return this.answer(id);
    if (!own(value, 'method') && (own(value, 'result') || own(value, 'error'))) return; // a response: ignored
    if (typeof value.method !== 'string') return this.answer(id);
    if (hasId && id === null) return this.answer(null);
    if (own(value, 'params') && (typeof value.params !== 'object' || value.params === null)) return this.answer(id);
    // diskprobe's own limit, not the spec's: deeper messages are refused, with their id (MAX_NESTING_DEPTH).
    if (long && deeperThan(value, MAX_DEPTH)) return this.answer(id);
    if (id !== null) return this.request(value.method, value.params, id, batched);
    // A notification: never answered, but a cancel may end a stream or silence a request (basic/utilities/cancellation.mdx).
    if (value.method === 'notifications/cancelled' && isObject(value.params) && isValidId(value.params.requestId)) {
      const key = idKey(value.params.requestId);
      // A cancelled stream ends with no response at all (subscriptions.mdx, "Cancellation").
      if (this.open.delete(key)) this.streamsCancelled.set(key, value.params.requestId);
      else this.cancelled.add(key);
    }
    if (value.method === 'notifications/initialized') {
      this.session.initialized();
      if (this.session.state === 'ready') this.mayLog = true;
    }
  }

  private request(method: string, params: unknown, id: string | number, batched: boolean): void {
    const key = idKey(id);
    const token = isObject(params) && isObject(params._meta) ? params._meta.progressToken : undefined;
    if (isValidId(token)) this.progressTokens.add(idKey(token));
    // JSON-RPC: an id must not be reused while its request is in progress, as an open stream is.
    if (this.open.has(key)) return this.answer(id, idInUse(method));
    const verdict = modernVerdict(method, params, batched);
    if (verdict.era === 'legacy') {
      this.session.request(method, params);
      return this.answer(id);
    }
    if (verdict.logs) this.mayLog = true;
    if ('expect' in verdict) return this.answer(id, verdict.expect);
    if (this.open.size >= MAX_SUBSCRIPTIONS) return this.answer(id, { method, result: false, codes: [-32603] });
    this.open.set(key, { id, filter: verdict.listen });
    const asked = this.acks.get(key);
    if (asked) asked.push(verdict.listen);
    else this.acks.set(key, [verdict.listen]);
  }
}
