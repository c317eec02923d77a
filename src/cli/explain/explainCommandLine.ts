// `diskprobe explain [PATH]`'s flags.
import { MAX_TIMEOUT_MS } from '../../probe/limits.js';
import { GLOBAL_OPTIONS, parseTimeout, parseWholeNumber, strictParse } from '../flagValues.js';
import { UsageError } from '../usageError.js';

export interface ExplainCommandOptions {
  /** The path whose file system is explained (default /). */
  readonly path: string;
  readonly json: boolean;
  /** Milliseconds the whole answer may take (--timeout; default: no limit). */
  readonly timeout: number | undefined;
  /** Milliseconds a part may not answer before it is given up (--probe-timeout). */
  readonly probeTimeout: number;
}

export type ExplainCommand = { readonly kind: 'explain'; readonly options: ExplainCommandOptions } | { readonly kind: 'help' } | { readonly kind: 'version' };

const EXPLAIN_OPTIONS = {
  ...GLOBAL_OPTIONS,
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'probe-timeout': { type: 'string' },
} as const;

/** `diskprobe explain [--json] [--timeout ms] [--probe-timeout ms] [PATH]`. */
export function parseExplain(args: string[]): ExplainCommand {
  const { values, positionals } = strictParse(args, EXPLAIN_OPTIONS, true);
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  if (positionals.length > 1) throw new UsageError(`explain takes one path, not ${positionals.length} ('${positionals[1]}' is one too many)`);
  const path = positionals[0] ?? '/';
  if (path === '') throw new UsageError('explain needs a path, not an empty string');
  return {
    kind: 'explain',
    options: {
      path,
      json: values.json === true,
      timeout: values.timeout === undefined ? undefined : parseWholeNumber(values.timeout, 'timeout', 0, MAX_TIMEOUT_MS, 'milliseconds'),
      probeTimeout: parseTimeout(values['probe-timeout'], 'probe-timeout'),
    },
  };
}
