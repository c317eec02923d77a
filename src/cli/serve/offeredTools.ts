// The tools a server offers: the local ones, and with `serve --prometheus`
// the fleet tools, wired to the Prometheus client.
// What can be checked before serving is checked here, so that a typo in a
// file name stops the server at start-up with a message, not at the first
// tool call: the CA bundle is read, the token file must be readable (it is
// read again for every call, as tokens rotate).
import { accessSync, constants, readFileSync } from 'node:fs';

import { PrometheusClient } from '../../fleet/prometheusClient.js';
import { FLEET_TOOLS, LOCAL_TOOLS } from '../../mcp/features/tools/catalog.js';
import type { Tool } from '../../mcp/protocol/tool.js';
import type { PrometheusOptions } from './serveCommandLine.js';

/** The tools to offer: the local ones, then the fleet's for `options`; throws a message for the user when a file cannot be read. */
export function offeredTools(options: PrometheusOptions | undefined): Tool[] {
  if (options === undefined) return [...LOCAL_TOOLS];
  let ca: string | undefined;
  if (options.caFile !== undefined) {
    try {
      ca = readFileSync(options.caFile, 'utf8');
    } catch (error) {
      throw new Error(`cannot read --prometheus-ca ${options.caFile}: ${(error as Error).message}`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new Error(`--prometheus-ca ${options.caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  if (options.tokenFile !== undefined) {
    try {
      accessSync(options.tokenFile, constants.R_OK);
    } catch (error) {
      throw new Error(`cannot read --prometheus-token-file ${options.tokenFile}: ${(error as Error).message}`);
    }
  }
  const client = new PrometheusClient({ url: options.url, tokenFile: options.tokenFile, ca, timeoutMs: options.timeoutMs });
  const fleet = { client, selector: options.selector };
  return [...LOCAL_TOOLS, ...FLEET_TOOLS.map((tool) => tool(fleet))];
}
