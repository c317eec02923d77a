// What the MCP server is made with from serve's options, the same over stdio
// and HTTP: its version, the tools offered, the limits and the --root policy.
import { RootPolicy } from '../../mcp/protocol/roots.js';
import type { ServerOptions } from '../../mcp/server.js';
import { packageVersion } from '../packageVersion.js';
import { offeredTools } from './offeredTools.js';
import type { ServeOptions } from './serveCommandLine.js';

export type ServerSettings = Pick<ServerOptions, 'serverVersion' | 'tools' | 'probeTimeout' | 'walkBudgetMs' | 'roots' | 'logLevel'>;

/** The settings for `options`; throws a message for the user when a --root or a --prometheus file cannot be used. */
export function serverSettings(options: ServeOptions): ServerSettings {
  return {
    serverVersion: packageVersion(),
    tools: offeredTools(options.prometheus),
    probeTimeout: options.probeTimeout,
    walkBudgetMs: options.walkBudget,
    roots: new RootPolicy(options.roots),
    logLevel: options.logLevel,
  };
}
