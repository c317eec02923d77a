// `diskprobe du`'s command line: GNU du's options, read as du 9.1 reads them
// (main() in coreutils' du.c: getopt_long going on after each bad option,
// the same conflicts, warnings, messages and exit status), plus diskprobe's
// --json, --top, --timeout and --threads. Pure: arguments and environment
// in, options out, so that every way of getting it wrong is tested without
// starting a process.

import { type BlockSizeEnv, blockSizeMessage, humanOptions, STRTOL, strtoumax } from '../../format/blockSize.js';
import { HUMAN_1000, HUMAN_1024 } from '../../format/humanReadable.js';
import { localeIsUtf8, quoteArgument } from '../../format/quoteArgument.js';
import { MAX_TIMEOUT_MS } from '../../probe/limits.js';
import { getoptEvents, type LongOption } from '../gnuGetopt.js';
import { DuUsageError } from '../usageError.js';

/** What `diskprobe du` is asked to do. Plain JSON: it is sent as is to the worker process. */
export interface DuOptions {
  /** The operands as given; none means ".". */
  readonly paths: readonly string[];
  /** -a: files too, not only directories. */
  readonly all: boolean;
  /** Levels below each operand that are printed (-d, -s); null for every level. */
  readonly maxDepth: number | null;
  /** -c: a last line adding up the operands. */
  readonly total: boolean;
  /** -x: stay on each operand's file system. */
  readonly oneFileSystem: boolean;
  /** --apparent-size, -b: st_size rather than the blocks allocated. */
  readonly apparent: boolean;
  /** How sizes are printed: human_readable's options and the output block size (bytes, as a decimal string). */
  readonly numbers: { readonly humanOptions: number; readonly blockSize: string };
  /** A size option was given on the command line (-b -B -h -k -m --si): --top prints sizes as asked rather than as -h. */
  readonly sizesAsked: boolean;
  /** -0: each line ends with NUL, not newline. */
  readonly nul: boolean;
  /** The directoryUsage() result of each operand, as exact JSON, instead of du's lines. */
  readonly json: boolean;
  /** --top N: the N directories holding the most (by the files directly in them) and the N largest files of each operand, instead of du's lines. */
  readonly top: number | null;
  /** Milliseconds the whole command may walk; null for no deadline. */
  readonly timeout: number | null;
  /** Threads each walk runs on; null for the default. */
  readonly threads: number | null;
  /** The locale is a UTF-8 one: how names are quoted in messages. */
  readonly utf8: boolean;
  /** Date.now() when the command started, which --timeout counts from (set when it runs, not by the parser). */
  readonly startedAt?: number;
}

export type DuCommand =
  | {
      readonly kind: 'du';
      readonly options: DuOptions;
      /** What du says on stderr and goes on (-s with -d 0). */
      readonly warnings: readonly string[];
    }
  | { readonly kind: 'help' }
  | { readonly kind: 'version' };

// du's long options in du.c's order (getopt lists ambiguous matches in this order).
const LONG_OPTIONS: readonly LongOption[] = [
  { name: 'all', value: 'none', key: 'a' },
  { name: 'apparent-size', value: 'none', key: 'apparent-size' },
  { name: 'block-size', value: 'required', key: 'B' },
  { name: 'bytes', value: 'none', key: 'b' },
  { name: 'count-links', value: 'none', key: 'l' },
  { name: 'dereference', value: 'none', key: 'L' },
  { name: 'dereference-args', value: 'none', key: 'D' },
  { name: 'exclude', value: 'required', key: 'exclude' },
  { name: 'exclude-from', value: 'required', key: 'X' },
  { name: 'files0-from', value: 'required', key: 'files0-from' },
  { name: 'human-readable', value: 'none', key: 'h' },
  { name: 'inodes', value: 'none', key: 'inodes' },
  { name: 'si', value: 'none', key: 'si' },
  { name: 'max-depth', value: 'required', key: 'd' },
  { name: 'null', value: 'none', key: '0' },
  { name: 'no-dereference', value: 'none', key: 'P' },
  { name: 'one-file-system', value: 'none', key: 'x' },
  { name: 'separate-dirs', value: 'none', key: 'S' },
  { name: 'summarize', value: 'none', key: 's' },
  { name: 'total', value: 'none', key: 'c' },
  { name: 'threshold', value: 'required', key: 't' },
  { name: 'time', value: 'optional', key: 'time' },
  { name: 'time-style', value: 'required', key: 'time-style' },
  { name: 'help', value: 'none', key: 'help' },
  { name: 'version', value: 'none', key: 'version' },
];
// diskprobe's own: an abbreviation that du would take as one of its own stays du's (--t, --th).
const OWN_LONG_OPTIONS: readonly LongOption[] = [
  { name: 'json', value: 'none', key: 'json' },
  { name: 'top', value: 'required', key: 'top' },
  { name: 'timeout', value: 'required', key: 'timeout' },
  { name: 'threads', value: 'required', key: 'threads' },
];
const SHORT_OPTIONS = '0abd:chHklmst:xB:DLPSX:';

/** du's options that diskprobe du does not offer: each refused by name rather than ignored. */
const UNSUPPORTED = new Set(['l', 'L', 'D', 'H', 'S', 't', 'X', 'exclude', 'files0-from', 'inodes', 'time', 'time-style']);
const SIZE_KEYS = new Set(['b', 'B', 'h', 'k', 'm', 'si']);

const MAX_TOP = 1000;
const MAX_THREADS = 64;

/** -d's value as du reads it: xstrtoumax(optarg, NULL, 0, &tmp, ""), a whole number and nothing after it; undefined if invalid. */
function parseMaxDepth(text: string): bigint | undefined {
  if (text.replace(/^[ \t\n\v\f\r]*/, '').startsWith('-')) return undefined;
  const { value, end, overflow } = strtoumax(text);
  if (end === 0 || end < text.length || overflow) return undefined;
  return value;
}

function wholeNumber(text: string, option: string, max: number, unit: string): number | string {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  return value >= 1 && value <= max ? value : `option '--${option}' needs a whole number${unit} from 1 to ${max}, not '${text}'`;
}

/**
 * Reads `diskprobe du`'s arguments (those after "du"), with `env` for
 * POSIXLY_CORRECT, the block size variables and the locale's quotation
 * marks. Throws DuUsageError, worded as GNU du words it, for a command line
 * du would refuse.
 */
export function parseDuCommandLine(args: readonly string[], env: BlockSizeEnv = process.env): DuCommand {
  const { events, operands } = getoptEvents(args, {
    short: SHORT_OPTIONS,
    long: LONG_OPTIONS,
    ownLong: OWN_LONG_OPTIONS,
    inOrder: env.POSIXLY_CORRECT !== undefined,
  });
  const utf8 = localeIsUtf8(env);
  // What du has printed by the time it stops: getopt's complaints and its own, in order.
  const lines: string[] = [];
  let ok = true;
  const complain = (line: string): void => {
    lines.push(line);
    ok = false;
  };

  // du reads DU_BLOCK_SIZE (then BLOCK_SIZE, BLOCKSIZE) first and ignores a bad one.
  const initial = humanOptions(env.DU_BLOCK_SIZE, env, 0n);
  let human = initial.options;
  let blockSize = initial.blockSize;
  let all = false;
  let apparent = false;
  let total = false;
  let oneFileSystem = false;
  let nul = false;
  let summarize = false;
  let maxDepth: bigint | undefined;
  let sizesAsked = false;
  let json = false;
  let top: number | null = null;
  let timeout: number | null = null;
  let threads: number | null = null;

  for (const event of events) {
    if ('error' in event) {
      complain(event.error);
      continue;
    }
    const { key, value, named } = event.option;
    if (SIZE_KEYS.has(key)) sizesAsked = true;
    if (UNSUPPORTED.has(key)) {
      throw new DuUsageError([...lines, `option '${named}' is not supported by diskprobe du`], true);
    }
    switch (key) {
      case '0':
        nul = true;
        break;
      case 'a':
        all = true;
        break;
      case 'apparent-size':
        apparent = true;
        break;
      case 'b':
        apparent = true;
        human = 0;
        blockSize = 1n;
        break;
      case 'c':
        total = true;
        break;
      case 'h':
        human = HUMAN_1024;
        blockSize = 1n;
        break;
      case 'si':
        human = HUMAN_1000;
        blockSize = 1n;
        break;
      case 'k':
        human = 0;
        blockSize = 1024n;
        break;
      case 'm':
        human = 0;
        blockSize = 1024n * 1024n;
        break;
      case 'd': {
        const depth = parseMaxDepth(value!);
        if (depth === undefined) complain(`invalid maximum depth ${quoteArgument(value!, utf8)}`);
        else maxDepth = depth;
        break;
      }
      case 's':
        summarize = true;
        break;
      case 'x':
        oneFileSystem = true;
        break;
      case 'B': {
        const choice = humanOptions(value!, env, blockSize);
        // xstrtol_fatal: du stops here, with no pointer to --help.
        if (choice.error !== STRTOL.ok) throw new DuUsageError([...lines, blockSizeMessage(choice.error, named, value!)], false);
        human = choice.options;
        blockSize = choice.blockSize;
        break;
      }
      case 'help':
        return { kind: 'help' };
      case 'version':
        return { kind: 'version' };
      case 'json':
        json = true;
        break;
      case 'top': {
        const parsed = wholeNumber(value!, 'top', MAX_TOP, '');
        if (typeof parsed === 'string') complain(parsed);
        else top = parsed;
        break;
      }
      case 'timeout': {
        const parsed = wholeNumber(value!, 'timeout', MAX_TIMEOUT_MS, ' of milliseconds');
        if (typeof parsed === 'string') complain(parsed);
        else timeout = parsed;
        break;
      }
      case 'threads': {
        const parsed = wholeNumber(value!, 'threads', MAX_THREADS, '');
        if (typeof parsed === 'string') complain(parsed);
        else threads = parsed;
        break;
      }
      default:
        // -P, --no-dereference: du's default, and diskprobe's only way.
        break;
    }
  }
  if (!ok) throw new DuUsageError(lines, true);
  if (all && summarize) throw new DuUsageError(['cannot both summarize and show all entries'], true);
  const warnings: string[] = [];
  if (summarize && maxDepth !== undefined) {
    if (maxDepth !== 0n) throw new DuUsageError([`warning: summarizing conflicts with --max-depth=${maxDepth}`], true);
    warnings.push('warning: summarizing is the same as using --max-depth=0');
  }
  const depth = summarize ? 0n : maxDepth;
  return {
    kind: 'du',
    warnings,
    options: {
      paths: operands,
      all,
      // Deeper than any tree: the same as du's SIZE_MAX.
      maxDepth: depth === undefined ? null : Number(depth > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : depth),
      total,
      oneFileSystem,
      apparent,
      numbers: { humanOptions: human, blockSize: blockSize.toString() },
      sizesAsked,
      nul,
      json,
      top,
      timeout,
      threads,
      utf8,
    },
  };
}
