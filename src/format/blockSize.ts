// Block sizes as GNU df reads them, from -B/--block-size and from the
// DF_BLOCK_SIZE, BLOCK_SIZE and BLOCKSIZE variables: gnulib's human_options()
// and humblock() (human.c) over xstrtoumax() (xstrtol.c), as coreutils 9.1
// ships them. "1K", "KiB", "1MB", "'1k", "0x10", "human-readable"... each
// gives the same block size and the same output options as in df.

import { HUMAN } from './humanReadable.js';

/** xstrtol.c's strtol_error. */
export const STRTOL = { ok: 0, overflow: 1, invalidSuffixChar: 2, invalidSuffixCharWithOverflow: 3, invalid: 4 } as const;
export type StrtolError = (typeof STRTOL)[keyof typeof STRTOL];

/** What human_options() sets: the output options and block size, and whether the text was valid. */
export interface BlockSizeChoice {
  readonly error: StrtolError;
  /** human_readable option bits (HUMAN). */
  readonly options: number;
  /** Bytes per output block, at least 1. */
  readonly blockSize: bigint;
}

/** The environment variables that matter here. */
export type BlockSizeEnv = Readonly<Record<string, string | undefined>>;

const UINTMAX_MAX = (1n << 64n) - 1n;
const VALID_SUFFIXES = 'eEgGkKmMpPtTyYzZ0';
const SPACE = /[ \t\n\v\f\r]/;
const NAMED: ReadonlyArray<readonly [string, number]> = [
  ['human-readable', HUMAN.autoscale | HUMAN.SI | HUMAN.base1024],
  ['si', HUMAN.autoscale | HUMAN.SI],
];

/** xstrtol_fatal's words for a bad -B value (gnulib's xstrtol-error.c); `named` is "-B" or "--block-size". */
export function blockSizeMessage(error: StrtolError, named: string, value: string): string {
  if (error === STRTOL.overflow) return `${named} argument '${value}' too large`;
  if (error === STRTOL.invalid) return `invalid ${named} argument '${value}'`;
  return `invalid suffix in ${named} argument '${value}'`;
}

/** The default without -B or a variable: 1024, or 512 under POSIXLY_CORRECT (default_block_size). */
export function defaultBlockSize(env: BlockSizeEnv): bigint {
  return env.POSIXLY_CORRECT !== undefined ? 512n : 1024n;
}

/** argmatch(): an exact name, or a prefix of names that all mean the same; else none. */
function namedOptions(text: string): number | undefined {
  const exact = NAMED.find(([name]) => name === text);
  if (exact) return exact[1];
  const prefixed = new Set(NAMED.filter(([name]) => name.startsWith(text)).map(([, value]) => value));
  return prefixed.size === 1 ? [...prefixed][0] : undefined;
}

/** strtoumax(text, &end, 0): the value and where the number ends (0 when there is none). */
export function strtoumax(text: string): { value: bigint; end: number; overflow: boolean } {
  let at = 0;
  while (at < text.length && SPACE.test(text[at]!)) at++;
  if (text[at] === '+' || text[at] === '-') at++;
  let radix = 10;
  let digits = /[0-9]/;
  if (text[at] === '0' && (text[at + 1] === 'x' || text[at + 1] === 'X') && /[0-9a-fA-F]/.test(text[at + 2] ?? '')) {
    radix = 16;
    digits = /[0-9a-fA-F]/;
    at += 2;
  } else if (text[at] === '0') {
    radix = 8;
    digits = /[0-7]/;
  }
  const start = at;
  let value = 0n;
  while (at < text.length && digits.test(text[at]!)) {
    value = value * BigInt(radix) + BigInt(Number.parseInt(text[at]!, radix));
    at++;
  }
  if (at === start) return { value: 0n, end: 0, overflow: false };
  return value > UINTMAX_MAX ? { value: UINTMAX_MAX, end: at, overflow: true } : { value, end: at, overflow: false };
}

/** The power each suffix letter raises its base to. */
const POWERS: Readonly<Record<string, number>> = { k: 1, K: 1, M: 2, m: 2, G: 3, g: 3, T: 4, t: 4, P: 5, E: 6, Z: 7, Y: 8 };

/**
 * xstrtoumax(text, &end, 0, &value, "eEgGkKmMpPtTyYzZ0"): a number and an
 * optional unit (K, KiB, KB...). `value` is undefined where xstrtoumax leaves
 * its output alone; `end` is where parsing stopped.
 * @internal exported for the tests
 */
export function xstrtoumax(text: string): { error: StrtolError; value: bigint | undefined; end: number } {
  const leading = text.replace(/^[ \t\n\v\f\r]*/, '');
  if (leading.startsWith('-')) return { error: STRTOL.invalid, value: undefined, end: 0 };
  const parsed = strtoumax(text);
  let value = parsed.value;
  let end = parsed.end;
  let error: number = STRTOL.ok;
  if (end === 0) {
    // No number: a valid suffix alone means one of it ("K" is 1K).
    if (text.length > 0 && VALID_SUFFIXES.includes(text[0]!)) value = 1n;
    else return { error: STRTOL.invalid, value: undefined, end: 0 };
  } else if (parsed.overflow) {
    error = STRTOL.overflow;
  }
  if (end >= text.length) return { error: error as StrtolError, value, end };

  const letter = text[end]!;
  const power = POWERS[letter];
  if (!VALID_SUFFIXES.includes(letter) || power === undefined) return { error: (error | STRTOL.invalidSuffixChar) as StrtolError, value, end };
  let base = 1024n;
  let length = 1;
  // A second suffix: "iB" keeps powers of 1024, "B" (or the obsolescent "D") means 1000.
  if (text[end + 1] === 'i' && text[end + 2] === 'B') length += 2;
  else if (text[end + 1] === 'B' || text[end + 1] === 'D') {
    base = 1000n;
    length++;
  }
  for (let step = 0; step < power; step++) {
    value *= base;
    if (value > UINTMAX_MAX) {
      value = UINTMAX_MAX;
      error |= STRTOL.overflow;
    }
  }
  end += length;
  if (end < text.length) error |= STRTOL.invalidSuffixChar;
  return { error: error as StrtolError, value, end };
}

/**
 * human_options(spec, &options, &blockSize): `spec` as -B gives it, or
 * undefined to read BLOCK_SIZE, then BLOCKSIZE, from `env`. `previous` is the
 * block size before the call, which xstrtoumax may leave as it was.
 */
export function humanOptions(spec: string | undefined, env: BlockSizeEnv, previous = 0n): BlockSizeChoice {
  const chosen = humblock(spec ?? env.BLOCK_SIZE ?? env.BLOCKSIZE, env, previous);
  if (chosen.blockSize === 0n) return { error: STRTOL.invalid, options: chosen.options, blockSize: defaultBlockSize(env) };
  return chosen;
}

function humblock(spec: string | undefined, env: BlockSizeEnv, previous: bigint): BlockSizeChoice {
  if (spec === undefined) return { error: STRTOL.ok, options: 0, blockSize: defaultBlockSize(env) };
  let options = 0;
  let text = spec;
  if (text.startsWith("'")) {
    options |= HUMAN.groupDigits;
    text = text.slice(1);
  }
  const named = namedOptions(text);
  if (named !== undefined) return { error: STRTOL.ok, options: options | named, blockSize: 1n };
  const { error, value, end } = xstrtoumax(text);
  const blockSize = value ?? previous;
  if (error !== STRTOL.ok) return { error, options: 0, blockSize };
  // A unit with no digits before it ("K", "MiB", "kB") prints that unit after
  // each number; "1K" prints plain numbers.
  if (!/[0-9]/.test(text.slice(0, end))) {
    options |= HUMAN.SI;
    if (text[end - 1] === 'B') options |= HUMAN.B;
    if (text[end - 1] !== 'B' || text[end - 2] === 'i') options |= HUMAN.base1024;
  }
  return { error: STRTOL.ok, options, blockSize };
}
