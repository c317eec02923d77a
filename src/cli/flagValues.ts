// What serve and metrics share in reading their flags (node:util's
// parseArgs, strict): one-line usage errors, whole numbers within bounds,
// [host:]port and regular expressions.
import { type ParseArgsConfig, parseArgs } from 'node:util';

import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../probe/limits.js';
import { UsageError } from './usageError.js';

/** --help and --version, which every command takes. */
export const GLOBAL_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

// parseArgs's own messages run to three sentences ("Unknown option '--foo'.
// To specify a positional argument…"); the first is the one-line reason.
type StrictConfig<O> = { args: string[]; options: O; strict: true; allowPositionals: boolean; tokens: true };

export function strictParse<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  positionals: boolean,
): ReturnType<typeof parseArgs<StrictConfig<O>>> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals, tokens: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
    const first = message.split(/\.(?:\s|$)/)[0] ?? message;
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
}

export function parseWholeNumber(text: string | undefined, option: string, fallback: number, max: number, unit: string): number {
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= max)) {
    throw new UsageError(`option '--${option}' needs a whole number of ${unit} from 1 to ${max}, not '${text}'`);
  }
  return value;
}

export function parseTimeout(text: string | undefined, option = 'timeout'): number {
  return parseWholeNumber(text, option, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, 'milliseconds');
}

/** `[host:]port`: an IPv4 address or name, or a bracketed IPv6 address, then a port from 0 to 65535. */
export function parseListen(text: string, option = 'http'): { host: string; port: number } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port <= 65535)) {
    throw new UsageError(`option '--${option}' needs [host:]port, such as 8080, 127.0.0.1:8080 or [::1]:8080, not '${text}'`);
  }
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port };
}

export function parseRegex(text: string | undefined, option: string, fallback: string): RegExp {
  try {
    return new RegExp(text ?? fallback, 'u');
  } catch (error) {
    throw new UsageError(`option '--${option}' is not a valid regular expression: ${(error as Error).message}`);
  }
}
