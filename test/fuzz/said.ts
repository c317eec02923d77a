// What the server said, read the way model.ts reads what it was sent, and
// where the two differ: every line of output is a JSON-RPC response or a
// notification; answers are tallied by id, acknowledgments by subscription,
// and checked against what the rules decide (modernModel.ts).
import { idKey, isValidId, type Owed } from './model.js';
import { ackProblem, allows, answerProblem, isObject, META } from './modernModel.js';

const own = (object: object, key: string): boolean => Object.hasOwn(object, key);

/** What the server said, tallied the way Owed is. */
export class Said {
  readonly byId = new Map<string, number>();
  nulls = 0;
  /** Error codes seen, with how often. */
  readonly codes = new Map<number, number>();
  readonly problems: string[] = [];
  /** Each id's answers, in order. */
  readonly answers = new Map<string, Record<string, unknown>[]>();
  /** The filters acknowledged, by subscription id key. */
  readonly acks = new Map<string, unknown[]>();
  /** Subscriptions whose graceful close has been sent: nothing more may follow for them. */
  private readonly closed = new Set<string>();
  /** The progress tokens notifications/progress carried. */
  readonly progressTokens = new Set<string>();
  logMessages = 0;

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
      this.notification(value.method, value.params, text);
      return;
    }
    this.response(value, text);
  }

  private notification(method: string, params: unknown, text: string): void {
    if (method === 'notifications/message') this.logMessages++;
    if (method === 'notifications/progress' && isObject(params)) this.progressTokens.add(idKey(params.progressToken));
    const subscription = isObject(params) && isObject(params._meta) ? params._meta[META.subscriptionId] : undefined;
    if (subscription === undefined) {
      if (method === 'notifications/subscriptions/acknowledged') this.problems.push(`an acknowledgment without a subscriptionId: ${text.slice(0, 200)}`);
      return;
    }
    const key = idKey(subscription);
    if (this.closed.has(key)) this.problems.push(`${method} for subscription ${key} after its graceful close`);
    // subscriptions.mdx, "Acknowledgment": the first message carrying the subscription's id, and only one.
    if (method === 'notifications/subscriptions/acknowledged') {
      const list = this.acks.get(key);
      if (list) list.push((params as Record<string, unknown>).notifications);
      else this.acks.set(key, [(params as Record<string, unknown>).notifications]);
    } else if (!this.acks.has(key)) {
      this.problems.push(`${method} for subscription ${key} before its acknowledgment`);
    }
  }

  private response(value: unknown, text: string): void {
    const problem = responseProblem(value);
    if (problem) {
      this.problems.push(`${problem}: ${text.slice(0, 300)}`);
      return;
    }
    const response = value as { id: unknown; error?: { code: number }; result?: unknown };
    if (response.error) this.codes.set(response.error.code, (this.codes.get(response.error.code) ?? 0) + 1);
    if (response.id === null) {
      this.nulls++;
      return;
    }
    const key = idKey(response.id);
    this.byId.set(key, (this.byId.get(key) ?? 0) + 1);
    const list = this.answers.get(key);
    if (list) list.push(value as Record<string, unknown>);
    else this.answers.set(key, [value as Record<string, unknown>]);
    const meta = isObject(response.result) ? response.result._meta : undefined;
    const closes = isObject(meta) ? meta[META.subscriptionId] : undefined;
    if (closes === undefined) return;
    if (!this.acks.has(idKey(closes))) this.problems.push(`subscription ${idKey(closes)} closed before its acknowledgment`);
    this.closed.add(idKey(closes));
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

/**
 * Where what was said differs from what was owed: missing, duplicate and
 * unexpected answers, answers the rules decide that say something else,
 * acknowledgments missing or twice, and notifications nobody asked for.
 * `atMost`: the input may have been cut short (SIGTERM), so fewer answers
 * are fine, and one more with id null: the line SIGTERM cut off, read in
 * part, is -32700 where the model may see a request.
 */
export function compare(owed: Owed, said: Said, atMost = false): string[] {
  const problems = [...said.problems];
  for (const [key, count] of owed.byId) {
    const got = said.byId.get(key) ?? 0;
    // A request its client cancelled may go unanswered, but is never answered twice.
    if (owed.cancelled.has(key) || atMost ? got > count : got !== count) problems.push(`id ${key}: ${count} answer(s) owed, ${got} sent`);
  }
  for (const [key, got] of said.byId) {
    if (!owed.byId.has(key)) problems.push(`id ${key}: ${got} answer(s) sent to a request never made`);
  }
  if (atMost ? said.nulls > owed.nulls + 1 : said.nulls !== owed.nulls) problems.push(`${owed.nulls} answer(s) with id null owed, ${said.nulls} sent`);
  let internal = said.codes.get(-32603) ?? 0;
  for (const [key, answers] of said.answers) {
    const expected = owed.expected.get(key);
    for (const answer of answers) {
      if ((answer.error as { code?: number } | undefined)?.code === -32603 && expected?.some((expect) => allows(expect, -32603))) internal--;
    }
    // Where one answer is owed and one came, it must be one the rules allow (several: mutated frames reuse ids).
    if (expected?.length === 1 && owed.byId.get(key) === 1 && answers.length === 1) {
      const problem = answerProblem(expected[0]!, answers[0]!);
      if (problem) problems.push(`id ${key}: ${problem}: ${JSON.stringify(answers[0]).slice(0, 300)}`);
    }
  }
  // -32603 means a handler threw something unplanned: a bug, whatever the input (STYLE.md §4), unless the rules allow it there.
  if (internal > 0) problems.push(`${internal} internal error(s) (-32603)`);
  for (const [key, asked] of owed.acks) {
    const got = said.acks.get(key) ?? [];
    if (atMost ? got.length > asked.length : got.length !== asked.length)
      problems.push(`subscription ${key}: ${asked.length} acknowledgment(s) owed, ${got.length} sent`);
    // A stream's id may be used again once it has ended: each acknowledgment answers the listen of its turn.
    got.forEach((acked, turn) => {
      const problem = turn < asked.length ? ackProblem(asked[turn]!, acked) : undefined;
      if (problem) problems.push(`subscription ${key}: ${problem}`);
    });
  }
  for (const [key, got] of said.acks) {
    if (!owed.acks.has(key)) problems.push(`subscription ${key}: ${got.length} acknowledgment(s) of a stream never opened`);
  }
  for (const token of said.progressTokens) {
    if (!owed.progressTokens.has(token)) problems.push(`notifications/progress with token ${token}, which no request asked with`);
  }
  // changelog.mdx (2026-07-28), "Major changes" 5: no notifications/message for requests without a logLevel.
  if (said.logMessages > 0 && !owed.mayLog) problems.push(`${said.logMessages} notifications/message, though no request asked for any`);
  return problems;
}
