// The command line: which command to run and with what. Pure, so every
// way of getting it wrong can be tested without starting a process.
import { parseArgs, type ParseArgsConfig } from 'node:util';

import type { DfOptions } from './df.js';

/** What the command line asks for. */
export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'serve' }
  | { readonly kind: 'df'; readonly options: DfOptions };

/** A command line that cannot be run: exit status 2, and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const DEFAULT_TIMEOUT_MS = 5000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;  // setTimeout's ceiling, and the library's

export const USAGE = `Usage: diskprobe [command] [options]

Commands:
  serve                 Run the MCP server on stdin and stdout (the default)
  df [options] [path…]  Show disk usage like df -hT: every mounted file system,
                        or the one holding each path

Options for df:
  --json                Print exact JSON (integers, even above 2^53) instead of a table
  --inodes              Show inode counts instead of bytes, like df -hiT
  --timeout <ms>        Give each file system this long to answer (default ${DEFAULT_TIMEOUT_MS});
                        one that does not is shown as "not responding"

Options:
  -h, --help            Show this help
  --version             Print diskprobe's version

Exit status: 0 if all went well, 1 if a path failed or a file system did not
answer, 2 if the command line was wrong.
`;

const GLOBAL_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

const DF_OPTIONS = {
  ...GLOBAL_OPTIONS,
  json: { type: 'boolean' },
  inodes: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

// parseArgs's own messages run to three sentences ("Unknown option '--foo'.
// To specify a positional argument…"); the first is the one-line reason.
function strictParse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, positionals: boolean) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
    const first = message.split(/\.(?:\s|$)/)[0] ?? message;
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
}

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= MAX_TIMEOUT_MS)) {
    throw new UsageError(`option '--timeout' needs a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not '${text}'`);
  }
  return value;
}

function parseDf(args: string[]): Command {
  const { values, positionals } = strictParse(args, DF_OPTIONS, true);
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  return {
    kind: 'df',
    options: { json: values.json === true, inodes: values.inodes === true, timeout: parseTimeout(values.timeout), paths: positionals },
  };
}

/**
 * Reads `diskprobe [--help|--version] [command [command options]]`.
 * Throws UsageError for an unknown command or option or a bad value.
 */
export function parseCommandLine(args: readonly string[]): Command {
  // The command is the first word that is not an option: global options come
  // before it, the command's own after it.
  const at = args.findIndex((arg) => !arg.startsWith('-'));
  const leading = at < 0 ? [...args] : args.slice(0, at);
  const { values } = strictParse(leading, GLOBAL_OPTIONS, false);
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  if (at < 0) return { kind: 'serve' };

  const name = args[at]!;
  const rest = args.slice(at + 1);
  switch (name) {
    case 'df':
      return parseDf(rest);
    case 'serve':
      return { kind: 'serve' };
    default:
      throw new UsageError(`unknown command '${name}'`);
  }
}
