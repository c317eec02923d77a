// JSON built as text, for the frame generators. Text, not objects, where it
// matters: "__proto__" must stay an own key, as it is on the wire (an
// object literal would set the prototype instead), and member order and
// nesting are the generator's to choose.

/** The prototype's names, as keys and as values. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;

export const q = (value: unknown): string => JSON.stringify(value);

/** 5,000 levels of arrays (or of {"a": …}) around `core`, as the issue asks. */
export const DEPTH = 5000;
export const deepArray = (depth = DEPTH, core = ''): string => `${'['.repeat(depth)}${core}${']'.repeat(depth)}`;
export const deepObject = (depth = DEPTH, core = '1'): string => `${'{"a":'.repeat(depth)}${core}${'}'.repeat(depth)}`;

/** An object whose keys are the prototype's names, each an own key, as JSON text. */
export const protoObject = (value: string): string => `{${PROTO_KEYS.map((key) => `${q(key)}:${value}`).join(',')}}`;

/** An object of members given as `"key":value` texts, in the order given. */
export const object = (members: readonly string[]): string => `{${members.join(',')}}`;

/** One `"key":value` member. */
export const member = (key: string, value: string): string => `${q(key)}:${value}`;

/** `count` members "k0":0, "k1":1, …: an object with many keys. */
export const manyMembers = (count: number, prefix = 'k'): string[] => Array.from({ length: count }, (_, i) => member(`${prefix}${i}`, String(i)));
