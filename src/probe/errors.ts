// Errors shaped like Node's fs errors (code, errno, syscall, path, and a
// message naming the path), so callers handle diskprobe and fs alike.
import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';

import { MAX_TIMEOUT_MS } from './limits.js';
import type { CancelSignal, ProbeError } from './types.js';

const codeOfErrno = new Map<number, string>();
for (const [name, value] of Object.entries(constants.errno)) {
  if (!codeOfErrno.has(value)) codeOfErrno.set(value, name);
}

/**
 * What statvfs can return that libuv has no name for, with glibc's
 * strerror text: network and quota failures a user must be told plainly.
 */
const OTHER_MESSAGES: Readonly<Record<string, string>> = {
  ESTALE: 'stale file handle',
  EDQUOT: 'disk quota exceeded',
  ENOLINK: 'link has been severed',
  EREMOTEIO: 'remote I/O error',
  ENOMEDIUM: 'no medium found',
  EUCLEAN: 'structure needs cleaning',
  ECOMM: 'communication error on send',
  ETIME: 'timer expired',
  EDEADLK: 'resource deadlock avoided',
};

let uvErrors: Map<string, { errno: number; message: string }> | undefined;
/**
 * libuv's errno and message for a code, as Node reports them (negative
 * errno); for a code libuv does not know, the OS's errno, negated as Node
 * does, and glibc's text where it is one statvfs returns.
 */
function describe(code: string): { errno: number; message: string } {
  if (!uvErrors) {
    uvErrors = new Map();
    for (const [errno, [name, message]] of getSystemErrorMap()) uvErrors.set(name, { errno, message });
  }
  const known = uvErrors.get(code);
  if (known) return known;
  const osErrno = (constants.errno as Record<string, number | undefined>)[code];
  return osErrno === undefined ? { errno: 0, message: 'unknown error' } : { errno: -osErrno, message: OTHER_MESSAGES[code] ?? `system error ${osErrno}` };
}

/** The error for a failed probe, from a POSIX errno value reported by the native addon. */
export function errnoError(osErrno: number, syscall: string, path: string): ProbeError {
  const code = codeOfErrno.get(osErrno);
  if (code !== undefined) return codeNameError(code, syscall, path);
  return fsError('UNKNOWN', -osErrno, `UNKNOWN: system error ${osErrno}, ${syscall} '${path}'`, syscall, path);
}

/** The error for a failed probe, from an error code name such as "ENOENT". */
export function codeNameError(code: string, syscall: string, path: string): ProbeError {
  const { errno, message } = describe(code);
  return fsError(code, errno, `${code}: ${message}, ${syscall} '${path}'`, syscall, path);
}

function fsError(code: string, errno: number, message: string, syscall: string, path: string): ProbeError {
  const error = new Error(message) as ProbeError;
  error.errno = errno;
  error.code = code;
  error.syscall = syscall;
  error.path = path;
  return error;
}

/**
 * ETIMEDOUT for a mount that did not answer. `stuckFor` is set when this call
 * did not wait at all because an earlier probe of the mount is still stuck.
 * `stuck` is the mount point, or, when `offMount`, a path that leads off its
 * mount (a symlink into a dead mount): the mount it lies on by name answers.
 */
export function timeoutError(path: string, stuck: string, timeout: number, stuckFor?: number, offMount = false): ProbeError {
  const subject = offMount ? `${stuck} (which leads off its mount)` : `mount ${stuck}`;
  const what =
    stuckFor === undefined
      ? `${subject} not responding after ${timeout} ms`
      : `${subject} not responding (an earlier probe has been stuck for ${Math.round(stuckFor)} ms)`;
  const advice = offMount ? 'check the mount it leads to' : 'check the server behind it, or unmount it with umount -l';
  const error = fsError('ETIMEDOUT', describe('ETIMEDOUT').errno, `ETIMEDOUT: ${what}, statfs '${path}'; ${advice}`, 'statfs', path);
  error.mountPoint = stuck;
  error.timeout = timeout;
  return error;
}

/**
 * ETIMEDOUT for a fallback probe whose helper process had not started when
 * the time ran out: the probe never began, so no mount is to blame.
 */
export function helperStartError(path: string, timeout: number): ProbeError {
  const message =
    `ETIMEDOUT: the fs.statfs fallback's helper process did not start within ${timeout} ms, statfs '${path}'; ` +
    'allow more time (a helper takes about 50 ms to start), or install diskprobe with its native addon';
  const error = fsError('ETIMEDOUT', describe('ETIMEDOUT').errno, message, 'statfs', path);
  error.timeout = timeout;
  return error;
}

/** What fs.promises rejects with when its signal aborts. */
export function abortError(signal: { readonly reason?: unknown }): Error {
  const error = new Error('The operation was aborted', { cause: signal.reason }) as Error & { code: string };
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}

/** Throws as fs does for a path that is not a string or holds a NUL byte. */
export function validatePath(path: unknown): asserts path is string {
  if (typeof path !== 'string') {
    const got = path === null ? 'null' : typeof path;
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "path" argument must be of type string. Received ${got}`);
  }
  if (path.includes('\0')) {
    throw codeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'path' must be a string without null bytes. Received ${JSON.stringify(path)}`);
  }
  // fs would pass a lone surrogate on as U+FFFD, the name of another file.
  if (SURROGATE.test(path) && LONE_SURROGATE.test(path)) {
    throw codeError(
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      `The argument 'path' must be well-formed Unicode: it holds a lone surrogate, which no file name can contain. Received ${JSON.stringify(path)}`,
    );
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;
/** A surrogate that is not half of a pair: in "u" mode pairs are one code point, so only lone ones match. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * PATH_MAX in bytes, the terminating NUL included: Linux 4096, macOS 1024;
 * Windows counts UTF-16 units, up to 32767 for a \\?\ path.
 */
const WINDOWS = process.platform === 'win32';
const PATH_MAX = WINDOWS ? 32767 : process.platform === 'darwin' ? 1024 : 4096;

/**
 * Throws ENAMETOOLONG for a path the OS would refuse as too long. Refused
 * here, before any lookup, so that a megabyte-long name costs nothing.
 */
export function validatePathLength(path: string, syscall: string): void {
  // (process.platform is read once, above: each read costs about 20 ns, on every probe.)
  if (WINDOWS ? path.length > PATH_MAX : path.length * 3 >= PATH_MAX && Buffer.byteLength(path) >= PATH_MAX) {
    throw codeNameError('ENAMETOOLONG', syscall, path);
  }
}

/** Validates a timeout option: a positive number of milliseconds, or Infinity. A fraction rounds up to a whole millisecond. */
export function validateTimeout(timeout: unknown, name = 'timeout'): number | undefined {
  if (timeout === undefined) return undefined;
  if (typeof timeout !== 'number') {
    const received = timeout === null ? 'null' : typeof timeout === 'object' ? 'an instance of Object' : `type ${typeof timeout} (${JSON.stringify(timeout)})`;
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.${name}" property must be of type number. Received ${received}`);
  }
  if (Number.isNaN(timeout) || timeout <= 0 || (timeout > MAX_TIMEOUT_MS && timeout !== Infinity)) {
    throw codeError(
      RangeError,
      'ERR_OUT_OF_RANGE',
      `The value of "options.${name}" is out of range. It must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}, or Infinity. Received ${String(timeout)}`,
    );
  }
  // The native pool and child_process take whole milliseconds: 0.5 would be none at all.
  return Math.ceil(timeout);
}

export function validateSignal(signal: unknown): asserts signal is CancelSignal | undefined {
  if (signal === undefined || signal instanceof AbortSignal) return;
  const like = signal as Partial<CancelSignal> | null;
  if (
    typeof like !== 'object' ||
    like === null ||
    typeof like.aborted !== 'boolean' ||
    typeof like.addEventListener !== 'function' ||
    typeof like.removeEventListener !== 'function'
  ) {
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "options.signal" property must be an AbortSignal (or an object with aborted and abort listeners)');
  }
}

/**
 * The options a public function takes, as an object with each of its
 * options type's keys: a key missing here, or one the type lacks, fails to
 * compile, so the list cannot drift from the type.
 */
export type OptionNames<T> = Readonly<Record<keyof T, true>>;

/**
 * The options object of a public function: undefined or null mean none, as
 * for most of fs; anything else that is not an object is a TypeError, and
 * so is a key the function does not take (`{ deepth: 1 }`): a misspelt
 * option would otherwise be ignored without a word.
 */
export function validateOptions<T extends object>(options: T | null | undefined, names: OptionNames<T>): T | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw codeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options" argument must be of type object. Received ${typeof options}`);
  }
  for (const key in options) {
    if (Object.hasOwn(options, key) && !Object.hasOwn(names, key)) throw unknownOption(key, Object.keys(names));
  }
  return options;
}

function unknownOption(key: string, known: readonly string[]): TypeError {
  const near = known.find((name) => name.toLowerCase() === key.toLowerCase() || editDistance(name, key) <= 2);
  return codeError(
    TypeError,
    'ERR_INVALID_ARG_VALUE',
    `The "options" argument has an unknown property ${JSON.stringify(key)}${near === undefined ? '' : ` (did you mean "${near}"?)`}. Known: ${known.join(', ')}`,
  );
}

/** Levenshtein distance, for "did you mean": option names are short. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

export function codeError<E extends Error>(Kind: new (message: string) => E, code: string, message: string): E & { code: string } {
  const error = new Kind(message) as E & { code: string };
  error.code = code;
  return error;
}
