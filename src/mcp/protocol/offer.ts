// What this server says of itself: its capabilities as each version
// declares them, its instructions for the model, and its identity. One
// source for initialize (legacy) and server/discover (2026-07-28).

import { appsCapability, rendersApps } from '../../apps/appViews.js';
import { fallbackDescription } from '../../probe/runtime.js';
import type { VersionRules } from './versions.js';

const INSTRUCTIONS =
  'Use disk_usage to see how full the file system holding one path is (pass unit "percent", "mib" or "mb" for a single figure), ' +
  'list_mounts for every mounted file system at once, directory_usage for what fills a directory (largest subtrees and files), ' +
  'explain_disk_usage for why df counts more used than the files add up to (deleted files still open, files hidden under mounts, the reserve), ' +
  'and system_info for the host itself. ' +
  'Paths must be absolute, such as / or /data; relative paths are refused. ' +
  'A file system that does not answer is reported as not responding rather than waited on.';

/** The server's instructions: INSTRUCTIONS, and what the optional tools offered (the fleet's) add. */
export function instructionsFor(tools: readonly { readonly instruction?: string }[]): string {
  return [INSTRUCTIONS, ...tools.flatMap((tool) => (tool.instruction === undefined ? [] : [tool.instruction]))].join(' ');
}

/**
 * Declares only what is real: the tools and prompts never change; the
 * resources do, with the mount table, from 2026-07-28 on a
 * subscriptions/listen stream. MCP Apps only to a client that renders them.
 */
export function capabilities(rules: VersionRules, clientCapabilities: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    tools: { listChanged: false },
    resources: rules.resourceSubscriptions ? { subscribe: true, listChanged: true } : { subscribe: false, listChanged: false },
    prompts: { listChanged: false },
    logging: {},
    ...(rules.methods.has('completion/complete') && { completions: {} }),
    ...(rendersApps(clientCapabilities) && { extensions: appsCapability() }),
  };
}

/** The log message a client gets when sizes come from the fallback: why (chosen, or the addon did not load), and its caveat. */
export function fallbackWarning(): Record<string, string> | undefined {
  return fallbackDescription === undefined ? undefined : { event: 'fallback backend in use', detail: fallbackDescription };
}
