// The command line: which command to run and with what. Pure, so every
// way of getting it wrong can be tested without starting a process. Each
// command reads its own flags (df/, du/, serve/, metrics/).
import { type DfOptions, parseDfCommandLine } from './df/dfCommandLine.js';
import { type DuOptions, parseDuCommandLine } from './du/duCommandLine.js';
import { type ExplainCommandOptions, parseExplain } from './explain/explainCommandLine.js';
import { type MetricsOptions, parseMetrics } from './metrics/metricsCommandLine.js';
import { parseServe, type ServeOptions } from './serve/serveCommandLine.js';
import { UsageError } from './usageError.js';

/** diskprobe's commands; each has its own options and --help. */
const COMMANDS = ['serve', 'df', 'du', 'explain', 'metrics'] as const;
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
  | { readonly kind: 'explain'; readonly options: ExplainCommandOptions }
  | { readonly kind: 'metrics'; readonly options: MetricsOptions };

/**
 * Reads `diskprobe [serve] [serve options]`, `diskprobe df [df options] [path…]`,
 * `diskprobe du [du options] [path…]`, `diskprobe explain [options] [path]`,
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
  if (command === 'explain') {
    const parsed = parseExplain(rest);
    return parsed.kind === 'help' ? { kind: 'help', topic: 'explain' } : parsed;
  }
  if (command === 'metrics') {
    const parsed = parseMetrics(rest);
    return parsed.kind === 'help' ? { kind: 'help', topic: 'metrics' } : parsed;
  }
  // No command: the server, which is what MCP hosts start (npx -y diskprobe).
  if (command === 'serve' || first === undefined || first.startsWith('-')) {
    const parsed = parseServe(command === 'serve' ? rest : [...args], env);
    return parsed.kind === 'help' ? { kind: 'help', topic: 'serve' } : parsed;
  }
  throw new UsageError(`unknown command '${first}'`);
}
