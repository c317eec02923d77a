// The command line: which command to run and with what. Pure, so every
// way of getting it wrong can be tested without starting a process.
import { type ParseArgsConfig, parseArgs } from 'node:util';

import { type Matcher, parseSelector } from '../fleet/promql.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../mcp/protocol/logging.js';
import { DEFAULT_FS_TYPES_EXCLUDE, DEFAULT_MOUNT_POINTS_EXCLUDE } from '../metrics/exclusions.js';
import { DEFAULT_TIMEOUT_MS, DEFAULT_WALK_BUDGET_MS, INT32_MAX, MAX_TIMEOUT_MS } from '../probe/limits.js';
import { AUTH_OPTIONS, type AuthOptions, parseAuth } from './authCommandLine.js';
import { type DfOptions, parseDfCommandLine } from './df/dfCommandLine.js';
import { type DuOptions, parseDuCommandLine } from './du/duCommandLine.js';
import { UsageError } from './usageError.js';

export { DfUsageError, DuUsageError, UsageError } from './usageError.js';

/** How the MCP server runs. */
export interface ServeOptions {
  /** Milliseconds a file system has to answer. */
  readonly probeTimeout: number;
  /** Milliseconds directory_usage may walk within one call before it answers with what it has. */
  readonly walkBudget: number;
  /** The least severe level sent as notifications/message until the client sets one. */
  readonly logLevel: LogLevel;
  /** Longest message accepted, in bytes. */
  readonly maxMessageBytes: number;
  /** Directories the server may report on (--root, repeatable); empty for all. */
  readonly roots: readonly string[];
  /** Serve Streamable HTTP on this address instead of stdio (--http [host:]port). */
  readonly http?: HttpOptions | undefined;
  /** The Prometheus the fleet tools ask (--prometheus or DISKPROBE_PROMETHEUS_URL); without it they are not offered. */
  readonly prometheus?: PrometheusOptions | undefined;
}

/** `serve --prometheus <url>`: where the fleet tools ask, and how. */
export interface PrometheusOptions {
  /** The HTTP API's base, with any path prefix. */
  readonly url: URL;
  /** A file whose first line is a bearer token (--prometheus-token-file). */
  readonly tokenFile: string | undefined;
  /** A PEM bundle of CAs to trust for https (--prometheus-ca). */
  readonly caFile: string | undefined;
  /** Matchers added to every query (--prometheus-selector). */
  readonly selector: readonly Matcher[];
  /** Milliseconds a tool's queries may take in all (--prometheus-timeout). */
  readonly timeoutMs: number;
}

/** `serve --http`: where to listen, and how callers prove who they are. */
export interface HttpOptions {
  readonly host: string;
  /** 0: any free port (the one chosen is printed on stderr). */
  readonly port: number;
  /** A file holding the bearer token (--token-file); DISKPROBE_TOKEN may give it instead. */
  readonly tokenFile: string | undefined;
  /** PEM certificate and key files: HTTPS (--tls-cert, --tls-key). */
  readonly tls: { readonly cert: string; readonly key: string } | undefined;
  /** Connections open at once (--max-connections). */
  readonly maxConnections: number;
  /** Requests answered at once, streams included (--max-requests). */
  readonly maxRequests: number;
  /** 2025-era sessions open at once (--max-sessions). */
  readonly maxSessions: number;
  /** Milliseconds a session may stay idle before it is ended (--session-idle-timeout). */
  readonly sessionIdleMs: number;
  /** Milliseconds a client has to send its request's headers (--header-timeout). */
  readonly headerTimeoutMs: number;
  /** OAuth access tokens (--auth-issuer and its options). */
  readonly auth: AuthOptions | undefined;
}

export const HTTP_DEFAULTS = { maxConnections: 512, maxRequests: 1024, maxSessions: 256, sessionIdleMs: 600_000, headerTimeoutMs: 10_000 } as const;

/** diskprobe's commands; each has its own options and --help. */
const COMMANDS = ['serve', 'df', 'du', 'metrics'] as const;
export type CommandName = (typeof COMMANDS)[number];

function isCommandName(name: string | undefined): name is CommandName {
  return (COMMANDS as readonly (string | undefined)[]).includes(name);
}

/** What the command line asks for. */
export type Command =
  | { readonly kind: 'help'; readonly topic: CommandName | undefined }
  | { readonly kind: 'version' }
  | { readonly kind: 'serve'; readonly options: ServeOptions }
  | { readonly kind: 'df'; readonly options: DfOptions }
  | { readonly kind: 'du'; readonly options: DuOptions; readonly warnings: readonly string[] }
  | { readonly kind: 'metrics'; readonly options: MetricsOptions };

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

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** A fleet tool's queries, all of them, under a typical MCP host's own tool-call timeout. */
export const PROMETHEUS_TIMEOUT_MS = 10_000;
/** A scrape's default budget, under Prometheus's default scrape timeout of 10 s. */
export const METRICS_TIMEOUT_MS = 5000;

const GLOBAL_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

const SERVE_OPTIONS = {
  ...GLOBAL_OPTIONS,
  'probe-timeout': { type: 'string' },
  'walk-budget': { type: 'string' },
  'log-level': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  root: { type: 'string', multiple: true },
  http: { type: 'string' },
  'token-file': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-requests': { type: 'string' },
  'max-sessions': { type: 'string' },
  'session-idle-timeout': { type: 'string' },
  'header-timeout': { type: 'string' },
  ...AUTH_OPTIONS,
  prometheus: { type: 'string' },
  'prometheus-token-file': { type: 'string' },
  'prometheus-ca': { type: 'string' },
  'prometheus-selector': { type: 'string' },
  'prometheus-timeout': { type: 'string' },
} as const;

const METRICS_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  listen: { type: 'string' },
  timeout: { type: 'string' },
  prefix: { type: 'string' },
  'mount-points-exclude': { type: 'string' },
  'fs-types-exclude': { type: 'string' },
  'token-file': { type: 'string' },
  'allow-remote': { type: 'boolean' },
  ...AUTH_OPTIONS,
} as const;

// parseArgs's own messages run to three sentences ("Unknown option '--foo'.
// To specify a positional argument…"); the first is the one-line reason.
function strictParse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, positionals: boolean) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals, tokens: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
    const first = message.split(/\.(?:\s|$)/)[0] ?? message;
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
}

function parseWholeNumber(text: string | undefined, option: string, fallback: number, max: number, unit: string): number {
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= max)) {
    throw new UsageError(`option '--${option}' needs a whole number of ${unit} from 1 to ${max}, not '${text}'`);
  }
  return value;
}

function parseTimeout(text: string | undefined, option = 'timeout'): number {
  return parseWholeNumber(text, option, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, 'milliseconds');
}

/** `[host:]port`: an IPv4 address or name, or a bracketed IPv6 address, then a port from 0 to 65535. */
function parseListen(text: string, option = 'http'): { host: string; port: number } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port <= 65535)) {
    throw new UsageError(`option '--${option}' needs [host:]port, such as 8080, 127.0.0.1:8080 or [::1]:8080, not '${text}'`);
  }
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1'), port };
}

type HttpValues = {
  [K in 'http' | 'token-file' | 'tls-cert' | 'tls-key' | 'max-connections' | 'max-requests' | 'max-sessions' | 'session-idle-timeout' | 'header-timeout']?:
    | string
    | undefined;
} & Parameters<typeof parseAuth>[0];

function parseHttp(values: HttpValues): HttpOptions | undefined {
  if (values.http === undefined) {
    for (const option of [
      'token-file',
      'tls-cert',
      'tls-key',
      'max-connections',
      'max-requests',
      'max-sessions',
      'session-idle-timeout',
      'header-timeout',
    ] as const) {
      if (values[option] !== undefined) throw new UsageError(`option '--${option}' needs --http`);
    }
    parseAuth(values, undefined, '--http');
    return undefined;
  }
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('options --tls-cert and --tls-key go together');
  const listen = parseListen(values.http);
  return {
    ...listen,
    auth: parseAuth(values, listen, '--http'),
    tokenFile: values['token-file'],
    tls: cert !== undefined && key !== undefined ? { cert, key } : undefined,
    maxConnections: parseWholeNumber(values['max-connections'], 'max-connections', HTTP_DEFAULTS.maxConnections, 65_536, 'connections'),
    maxRequests: parseWholeNumber(values['max-requests'], 'max-requests', HTTP_DEFAULTS.maxRequests, 1_048_576, 'requests'),
    maxSessions: parseWholeNumber(values['max-sessions'], 'max-sessions', HTTP_DEFAULTS.maxSessions, 65_536, 'sessions'),
    sessionIdleMs: parseWholeNumber(values['session-idle-timeout'], 'session-idle-timeout', HTTP_DEFAULTS.sessionIdleMs, INT32_MAX, 'milliseconds'),
    headerTimeoutMs: parseWholeNumber(values['header-timeout'], 'header-timeout', HTTP_DEFAULTS.headerTimeoutMs, 3_600_000, 'milliseconds'),
  };
}

type PrometheusValues = { [K in 'prometheus' | 'prometheus-token-file' | 'prometheus-ca' | 'prometheus-selector' | 'prometheus-timeout']?: string | undefined };

function parsePrometheus(values: PrometheusValues, env: Readonly<Record<string, string | undefined>>): PrometheusOptions | undefined {
  const text = values.prometheus ?? (env.DISKPROBE_PROMETHEUS_URL || undefined);
  const from = values.prometheus !== undefined ? "option '--prometheus'" : 'DISKPROBE_PROMETHEUS_URL';
  if (text === undefined) {
    for (const option of ['prometheus-token-file', 'prometheus-ca', 'prometheus-selector', 'prometheus-timeout'] as const) {
      if (values[option] !== undefined) throw new UsageError(`option '--${option}' needs --prometheus <url> (or DISKPROBE_PROMETHEUS_URL)`);
    }
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${from} needs Prometheus's URL, such as http://prometheus:9090 or https://host/prometheus, not '${text}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${from} needs an http or https URL, not '${url.protocol}'`);
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${from}: leave credentials out of the URL (they would show in logs); put a bearer token in a file and give --prometheus-token-file`);
  }
  if (url.search !== '' || url.hash !== '')
    throw new UsageError(`${from}: give the API's base URL, without a query or fragment (diskprobe adds /api/v1/query)`);
  let selector: Matcher[] = [];
  if (values['prometheus-selector'] !== undefined) {
    try {
      selector = parseSelector(values['prometheus-selector']);
    } catch (error) {
      throw new UsageError(`option '--prometheus-selector': ${(error as Error).message}`);
    }
  }
  return {
    url,
    tokenFile: values['prometheus-token-file'],
    caFile: values['prometheus-ca'],
    selector,
    timeoutMs: parseWholeNumber(values['prometheus-timeout'], 'prometheus-timeout', PROMETHEUS_TIMEOUT_MS, MAX_TIMEOUT_MS, 'milliseconds'),
  };
}

/**
 * The --root directories: each `--root DIR`, and the arguments that follow
 * one up to the next option (`--root A B C`). That second form is how an MCP
 * Bundle's host passes a setting of several directories: the manifest's
 * `"--root", "${user_config.roots}"` expands to the flag and then every
 * directory (mcpb MANIFEST.md, "Array Expansion"). Anything else positional
 * is a mistake.
 */
function rootsOf(tokens: ReturnType<typeof parseArgs>['tokens'] = []): string[] {
  const roots: string[] = [];
  let afterRoot = false;
  for (const token of tokens) {
    if (token.kind === 'option') {
      afterRoot = token.name === 'root';
      if (afterRoot && token.value !== undefined) roots.push(token.value);
    } else if (token.kind === 'positional') {
      if (!afterRoot) throw new UsageError(`unexpected argument '${token.value}': serve takes options only, and directories after --root`);
      roots.push(token.value);
    } else {
      afterRoot = false; // "--": what follows is no root
    }
  }
  return roots;
}

function parseServe(args: string[], env: Readonly<Record<string, string | undefined>>): Command {
  const { values, tokens } = strictParse(args, SERVE_OPTIONS, true);
  if (values.help === true) return { kind: 'help', topic: 'serve' };
  if (values.version === true) return { kind: 'version' };
  const level = values['log-level'] ?? 'warning';
  if (!isLogLevel(level)) throw new UsageError(`option '--log-level' must be one of ${LOG_LEVELS.join(', ')}, not '${level}'`);
  return {
    kind: 'serve',
    options: {
      probeTimeout: parseTimeout(values['probe-timeout'], 'probe-timeout'),
      walkBudget: parseWholeNumber(values['walk-budget'], 'walk-budget', DEFAULT_WALK_BUDGET_MS, MAX_TIMEOUT_MS, 'milliseconds'),
      logLevel: level,
      maxMessageBytes: parseWholeNumber(values['max-message-bytes'], 'max-message-bytes', DEFAULT_MAX_MESSAGE_BYTES, INT32_MAX, 'bytes'),
      roots: rootsOf(tokens),
      http: parseHttp(values),
      prometheus: parsePrometheus(values, env),
    },
  };
}

function parseRegex(text: string | undefined, option: string, fallback: string): RegExp {
  try {
    return new RegExp(text ?? fallback, 'u');
  } catch (error) {
    throw new UsageError(`option '--${option}' is not a valid regular expression: ${(error as Error).message}`);
  }
}

function parseMetrics(args: string[]): Command {
  const { values } = strictParse(args, METRICS_OPTIONS, false);
  if (values.help === true) return { kind: 'help', topic: 'metrics' };
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

/**
 * Reads `diskprobe [serve] [serve options]`, `diskprobe df [df options] [path…]`,
 * `diskprobe du [du options] [path…]`,
 * `diskprobe metrics [options]` and `diskprobe [command] --help|--version`.
 * Throws UsageError for an unknown command or option or a bad value;
 * DfUsageError and DuUsageError, worded as GNU df and du word them, for theirs. `env` gives df its
 * POSIXLY_CORRECT, block size variables and locale.
 */
export function parseCommandLine(args: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): Command {
  const [first, ...rest] = args;
  const command = isCommandName(first) ? first : undefined;
  // --help and --version win wherever they stand before a "--" (diskprobe
  // --help df, diskprobe df / --help); so does -h, except after df and du,
  // where it is their own -h. Each command's --help is its own.
  const own = command === undefined ? args : rest;
  const options = own.includes('--') ? own.slice(0, own.indexOf('--')) : own;
  if (options.includes('--help') || (command !== 'df' && command !== 'du' && options.includes('-h'))) return { kind: 'help', topic: command };
  if (options.includes('--version')) return { kind: 'version' };
  if (command === 'df') {
    const parsed = parseDfCommandLine(rest, env);
    return parsed.kind === 'help' ? { kind: 'help', topic: 'df' } : parsed;
  }
  if (command === 'du') {
    const parsed = parseDuCommandLine(rest, env);
    return parsed.kind === 'help' ? { kind: 'help', topic: 'du' } : parsed;
  }
  if (command === 'serve') return parseServe(rest, env);
  if (command === 'metrics') return parseMetrics(rest);
  // No command: the server, which is what MCP hosts start (npx -y diskprobe).
  if (first === undefined || first.startsWith('-')) return parseServe([...args], env);
  throw new UsageError(`unknown command '${first}'`);
}
