// `diskprobe df`'s command line: GNU df's options, read as df 9.1 reads them
// (main() in coreutils' df.c: each option in turn, the same conflicts, the
// same messages and exit status), plus diskprobe's --json and --timeout.
// Pure: arguments and environment in, options out, so that every way of
// getting it wrong is tested without starting a process.

import { type BlockSizeEnv, blockSizeMessage, defaultBlockSize, humanOptions, STRTOL } from '../../format/blockSize.js';
import { longDoublePrecision } from '../../format/extendedFloat.js';
import { HUMAN, HUMAN_1000, HUMAN_1024 } from '../../format/humanReadable.js';
import { localeIsUtf8, quoteArgument } from '../../format/quoteArgument.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../../probe/limits.js';
import { getoptLong, type LongOption } from '../gnuGetopt.js';
import { DfUsageError } from '../usageError.js';
import { type DfColumn, type DfField, type DfMode, type DfNumbers, dfColumns, isDfField } from './dfFields.js';

/** What `diskprobe df` is asked to do. Plain JSON: it is sent as is to the df worker process. */
export interface DfOptions {
  /** Exact JSON instead of the table. */
  readonly json: boolean;
  /** Milliseconds each file system has to answer. */
  readonly timeout: number;
  /** Paths to report on; none means every mounted file system. */
  readonly paths: readonly string[];
  /** -a: every mount, dummy, duplicate and inaccessible ones too. */
  readonly all: boolean;
  /** -l: local file systems only. */
  readonly local: boolean;
  /** -t: only these file system types (none: every type). */
  readonly types: readonly string[];
  /** -x: not these file system types. */
  readonly excludeTypes: readonly string[];
  /** --total: a last row adding up the others. */
  readonly total: boolean;
  /** The table's columns, left to right, with their headers. */
  readonly columns: readonly DfColumn[];
  /** How numbers are printed (-h, -H, -B, -k, -m, -P and the block size variables). */
  readonly numbers: DfNumbers;
  /** No format option was given: the table is df -hT's, with a usage bar on a terminal. */
  readonly humanTable: boolean;
}

export type DfCommand = { readonly kind: 'df'; readonly options: DfOptions } | { readonly kind: 'help' } | { readonly kind: 'version' };

// df's long options in df.c's order (getopt lists ambiguous matches in this
// order), then diskprobe's own.
const LONG_OPTIONS: readonly LongOption[] = [
  { name: 'all', value: 'none', key: 'a' },
  { name: 'block-size', value: 'required', key: 'B' },
  { name: 'inodes', value: 'none', key: 'i' },
  { name: 'human-readable', value: 'none', key: 'h' },
  { name: 'si', value: 'none', key: 'H' },
  { name: 'local', value: 'none', key: 'l' },
  { name: 'output', value: 'optional', key: 'output' },
  { name: 'portability', value: 'none', key: 'P' },
  { name: 'print-type', value: 'none', key: 'T' },
  { name: 'sync', value: 'none', key: 'sync' },
  { name: 'no-sync', value: 'none', key: 'no-sync' },
  { name: 'total', value: 'none', key: 'total' },
  { name: 'type', value: 'required', key: 't' },
  { name: 'exclude-type', value: 'required', key: 'x' },
  { name: 'help', value: 'none', key: 'help' },
  { name: 'version', value: 'none', key: 'version' },
  { name: 'json', value: 'none', key: 'json' },
  { name: 'timeout', value: 'required', key: 'timeout' },
];
const SHORT_OPTIONS = 'aB:iF:hHklmPTt:vx:';

/** The options that choose how the table looks; without any, diskprobe prints df -hT's table. */
const FORMAT_KEYS = new Set(['h', 'H', 'B', 'k', 'm', 'P', 'i', 'T', 'output']);

function parseTimeout(text: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= MAX_TIMEOUT_MS)) {
    throw new DfUsageError([`option '--timeout' needs a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not '${text}'`], true);
  }
  return value;
}

/**
 * Reads `diskprobe df`'s arguments (those after "df"), with `env` for
 * POSIXLY_CORRECT, the block size variables and the locale's quotation
 * marks. Throws DfUsageError, worded as GNU df words it, for a command line
 * df would refuse.
 */
export function parseDfCommandLine(args: readonly string[], env: BlockSizeEnv = process.env): DfCommand {
  const parsed = getoptLong(args, { short: SHORT_OPTIONS, long: LONG_OPTIONS, inOrder: env.POSIXLY_CORRECT !== undefined });
  const quote = (text: string): string => quoteArgument(text, localeIsUtf8(env));
  const exclusive = (option: string): DfUsageError => new DfUsageError([`options ${option} and --output are mutually exclusive`], true);

  let json = false;
  let timeout = DEFAULT_TIMEOUT_MS;
  let all = false;
  let local = false;
  let total = false;
  let printType = false;
  let posix = false;
  let mode: DfMode = 'default';
  let humanOpts = -1;
  let blockSize = 0n;
  let formatted = false;
  const types: string[] = [];
  const excludeTypes: string[] = [];
  const outputFields: DfField[] = [];

  for (const { key, value, named } of parsed.options) {
    if (FORMAT_KEYS.has(key)) formatted = true;
    switch (key) {
      case 'a':
        all = true;
        break;
      case 'B': {
        const choice = humanOptions(value!, env, blockSize);
        if (choice.error !== STRTOL.ok) throw new DfUsageError([blockSizeMessage(choice.error, named, value!)], false);
        humanOpts = choice.options;
        blockSize = choice.blockSize;
        break;
      }
      case 'i':
        if (mode === 'output') throw exclusive('-i');
        mode = 'inodes';
        break;
      case 'h':
        humanOpts = HUMAN_1024;
        blockSize = 1n;
        break;
      case 'H':
        humanOpts = HUMAN_1000;
        blockSize = 1n;
        break;
      case 'k':
        humanOpts = 0;
        blockSize = 1024n;
        break;
      case 'm':
        humanOpts = 0;
        blockSize = 1024n * 1024n;
        break;
      case 'l':
        local = true;
        break;
      case 'T':
        if (mode === 'output') throw exclusive('-T');
        printType = true;
        break;
      case 'P':
        if (mode === 'output') throw exclusive('-P');
        posix = true;
        break;
      case 'F': // Solaris's name for -t, which df also takes
      case 't':
        types.push(value!);
        break;
      case 'x':
        excludeTypes.push(value!);
        break;
      case 'output':
        if (mode === 'inodes') throw exclusive('-i');
        if (posix && mode === 'default') throw exclusive('-P');
        if (printType) throw exclusive('-T');
        mode = 'output';
        if (value !== undefined) {
          for (const name of value.split(',')) {
            if (!isDfField(name)) throw new DfUsageError([`option --output: field ${quote(name)} unknown`], true);
            if (outputFields.includes(name)) throw new DfUsageError([`option --output: field ${quote(name)} used more than once`], true);
            outputFields.push(name);
          }
        }
        break;
      case 'total':
        total = true;
        break;
      case 'json':
        json = true;
        break;
      case 'timeout':
        timeout = parseTimeout(value!);
        break;
      case 'help':
        return { kind: 'help' };
      case 'version':
        return { kind: 'version' };
      default:
        // -v (ignored, for System V), --sync and --no-sync: statvfs needs no sync on Linux.
        break;
    }
  }
  if (parsed.error !== undefined) throw new DfUsageError([parsed.error], true);

  if (!formatted) {
    // diskprobe's own default: df -hT's table.
    humanOpts = HUMAN_1024;
    blockSize = 1n;
    printType = true;
  } else if (humanOpts === -1) {
    if (posix) {
      humanOpts = 0;
      blockSize = defaultBlockSize(env);
    } else {
      // df does not complain about a bad variable: it takes what human_options made of it.
      const choice = humanOptions(env.DF_BLOCK_SIZE, env, blockSize);
      humanOpts = choice.options;
      blockSize = choice.blockSize;
    }
  }
  if (mode === 'default' && humanOpts & HUMAN.autoscale) mode = 'human';
  else if (mode === 'default' && posix) mode = 'posix';

  // Each type both selected and excluded, in the order df finds them (its lists are built newest first).
  const conflicts: string[] = [];
  for (const selected of [...types].reverse()) {
    if ([...excludeTypes].reverse().some((excluded) => excluded === selected)) conflicts.push(`file system type ${quote(selected)} both selected and excluded`);
  }
  if (conflicts.length > 0) throw new DfUsageError(conflicts, false);

  const numbers: DfNumbers = { humanOptions: humanOpts, blockSize: blockSize.toString() };
  return {
    kind: 'df',
    options: {
      json,
      timeout,
      paths: parsed.operands,
      all,
      local,
      types,
      excludeTypes,
      total,
      columns: dfColumns(mode, printType, outputFields, numbers, longDoublePrecision()),
      numbers,
      humanTable: !formatted,
    },
  };
}
