// `diskprobe serve`'s flags: the server's limits, --root, --http and its
// options, --prometheus and its options.
import type { parseArgs } from 'node:util';

import { type Matcher, parseSelector } from '../../fleet/promql.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../../mcp/protocol/logging.js';
import { DEFAULT_WALK_BUDGET_MS, INT32_MAX, MAX_TIMEOUT_MS } from '../../probe/limits.js';
import { AUTH_OPTIONS, type AuthOptions, parseAuth } from '../authCommandLine.js';
import { GLOBAL_OPTIONS, parseListen, parseTimeout, parseWholeNumber, strictParse } from '../flagValues.js';
import { UsageError } from '../usageError.js';

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

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** A fleet tool's queries, all of them, under a typical MCP host's own tool-call timeout. */
export const PROMETHEUS_TIMEOUT_MS = 10_000;

/** What the serve command line asks for. */
export type ServeCommand = { readonly kind: 'serve'; readonly options: ServeOptions } | { readonly kind: 'help' } | { readonly kind: 'version' };

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

/** `diskprobe serve [options]`, and `diskprobe [options]`, which is the same. */
export function parseServe(args: string[], env: Readonly<Record<string, string | undefined>>): ServeCommand {
  const { values, tokens } = strictParse(args, SERVE_OPTIONS, true);
  if (values.help === true) return { kind: 'help' };
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
