// `diskprobe metrics`'s flags: print once, or --listen with its access
// options; the families' prefix and node_exporter's exclusions.
import { DEFAULT_FS_TYPES_EXCLUDE, DEFAULT_MOUNT_POINTS_EXCLUDE } from '../../metrics/exclusions.js';
import { MAX_TIMEOUT_MS } from '../../probe/limits.js';
import { AUTH_OPTIONS, type AuthOptions, parseAuth } from '../authCommandLine.js';
import { GLOBAL_OPTIONS, parseListen, parseRegex, parseWholeNumber, strictParse } from '../flagValues.js';
import { UsageError } from '../usageError.js';

/** `diskprobe metrics`: print the exposition once, or serve GET /metrics (--listen). */
export interface MetricsOptions {
  /** Serve GET /metrics here; undefined: print once and exit. */
  readonly listen: { readonly host: string; readonly port: number } | undefined;
  /** Milliseconds a scrape may take, unless Prometheus says less (X-Prometheus-Scrape-Timeout-Seconds). */
  readonly timeout: number;
  /** The filesystem families' prefix (--prefix): node_filesystem by default. */
  readonly prefix: string;
  readonly mountPointsExclude: RegExp;
  readonly fsTypesExclude: RegExp;
  /** A file holding the bearer token; DISKPROBE_TOKEN may give it instead. */
  readonly tokenFile: string | undefined;
  /** Listen off loopback without a token (--allow-remote): the network is trusted. */
  readonly allowRemote: boolean;
  /** OAuth access tokens (--auth-issuer and its options). */
  readonly auth: AuthOptions | undefined;
}

/** A scrape's default budget, under Prometheus's default scrape timeout of 10 s. */
export const METRICS_TIMEOUT_MS = 5000;

/** What the metrics command line asks for. */
export type MetricsCommand = { readonly kind: 'metrics'; readonly options: MetricsOptions } | { readonly kind: 'help' } | { readonly kind: 'version' };

const METRICS_OPTIONS = {
  ...GLOBAL_OPTIONS,
  listen: { type: 'string' },
  timeout: { type: 'string' },
  prefix: { type: 'string' },
  'mount-points-exclude': { type: 'string' },
  'fs-types-exclude': { type: 'string' },
  'token-file': { type: 'string' },
  'allow-remote': { type: 'boolean' },
  ...AUTH_OPTIONS,
} as const;

/** `diskprobe metrics [options]`. */
export function parseMetrics(args: string[]): MetricsCommand {
  const { values } = strictParse(args, METRICS_OPTIONS, false);
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  const prefix = values.prefix ?? 'node_filesystem';
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix)) throw new UsageError(`option '--prefix' must be a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), not '${prefix}'`);
  for (const option of ['token-file', 'allow-remote'] as const) {
    if (values[option] !== undefined && values.listen === undefined) throw new UsageError(`option '--${option}' needs --listen`);
  }
  const listen = values.listen === undefined ? undefined : parseListen(values.listen, 'listen');
  return {
    kind: 'metrics',
    options: {
      listen,
      auth: parseAuth(values, listen, '--listen'),
      timeout: parseWholeNumber(values.timeout, 'timeout', METRICS_TIMEOUT_MS, MAX_TIMEOUT_MS, 'milliseconds'),
      prefix,
      mountPointsExclude: parseRegex(values['mount-points-exclude'], 'mount-points-exclude', DEFAULT_MOUNT_POINTS_EXCLUDE),
      fsTypesExclude: parseRegex(values['fs-types-exclude'], 'fs-types-exclude', DEFAULT_FS_TYPES_EXCLUDE),
      tokenFile: values['token-file'],
      allowRemote: values['allow-remote'] === true,
    },
  };
}
