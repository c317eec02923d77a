// PromQL text, built in one place. Every value that reaches a query from a
// tool argument or the command line passes through here: label values are
// written as string literals by labelMatcher, the only function that quotes
// one, and durations as whole milliseconds. A tool argument can therefore
// never add a matcher, an operator or a function to a query (issue 20).

/** One label matcher, e.g. job="node" or mountpoint!~"/run/.*". */
export interface Matcher {
  readonly name: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}

/** A value that cannot be written into a query (a tool error for an argument, a usage error for a flag). */
export class PromqlValueError extends Error {
  override readonly name = 'PromqlValueError';
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** With the u flag, a surrogate pair is one code point: only a lone half matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * `name op "value"`, with the value as a PromQL string literal. PromQL's
 * double-quoted strings take Go's escapes, of which JSON's are a subset
 * (\" \\ \n \t \uXXXX …): JSON.stringify quotes any well-formed string
 * safely. A lone surrogate has no UTF-8 form and is refused.
 */
export function labelMatcher({ name, op, value }: Matcher): string {
  if (!LABEL_NAME.test(name)) throw new PromqlValueError(`not a label name: ${JSON.stringify(name)}`);
  if (LONE_SURROGATE.test(value))
    throw new PromqlValueError(`the value of ${name} is not well-formed Unicode (it holds a lone surrogate): it can match no label`);
  return `${name}${op}${JSON.stringify(value)}`;
}

/** `a="1",b!="2"`: the matchers as the inside of a selector's braces. */
export function matcherList(matchers: readonly Matcher[]): string {
  return matchers.map(labelMatcher).join(',');
}

const MATCHER = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,\s*|$)/suy;

/**
 * Reads --prometheus-selector: label matchers such as `job="node"` or
 * `{job="node",env=~"prod|staging"}`, double-quoted. Throws a message
 * saying where it went wrong. The matchers are written again by
 * labelMatcher, so what reaches a query is matchers and nothing else.
 */
export function parseSelector(text: string): Matcher[] {
  const inner = text
    .trim()
    .replace(/^\{([\s\S]*)\}$/, '$1')
    .trim();
  const matchers: Matcher[] = [];
  MATCHER.lastIndex = 0;
  while (MATCHER.lastIndex < inner.length) {
    const at = MATCHER.lastIndex;
    const match = MATCHER.exec(inner);
    if (match === null) {
      throw new Error(
        `expected a label matcher such as job="node" at ${JSON.stringify(inner.slice(at, at + 20))} (values in double quotes; matchers separated by commas)`,
      );
    }
    const [, name, op, raw] = match;
    let value: string;
    try {
      value = JSON.parse(`"${raw}"`) as string;
    } catch {
      throw new Error(`the value of ${name} has an escape other than \\" \\\\ \\n \\t \\r \\uXXXX: "${raw}"`);
    }
    const matcher: Matcher = { name: name!, op: op as Matcher['op'], value };
    labelMatcher(matcher); // refuses what no query could hold, now rather than at every call
    matchers.push(matcher);
  }
  if (matchers.length === 0) throw new Error('no label matchers: give one or more, such as job="node"');
  return matchers;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
/** Prometheus's duration syntax: units from the largest down, each at most once, e.g. 6h, 1h30m, 90s, 1w. */
export const DURATION_PATTERN = '^(\\d+y)?(\\d+w)?(\\d+d)?(\\d+h)?(\\d+m)?(\\d+s)?(\\d+ms)?$';
const DURATION = new RegExp(DURATION_PATTERN);

/** Milliseconds in a Prometheus duration such as "6h" or "1h30m"; NaN if it is not one. */
export function durationMs(text: string): number {
  if (text === '' || !DURATION.test(text)) return Number.NaN;
  let ms = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)(ms|[smhdwy])/g)) ms += Number(count) * UNIT_MS[unit!]!;
  return ms;
}

/** A duration as PromQL text: whole milliseconds, the one form every Prometheus 2.x reads. */
export function duration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`not a duration in milliseconds: ${ms}`);
  return `${ms}ms`;
}

/** "6h", "1h30m": milliseconds written back in Prometheus's units, for texts. */
export function showDuration(ms: number): string {
  let rest = ms;
  let text = '';
  for (const unit of ['y', 'w', 'd', 'h', 'm', 's', 'ms']) {
    const size = UNIT_MS[unit]!;
    if (rest >= size) {
      text += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return text || '0s';
}
