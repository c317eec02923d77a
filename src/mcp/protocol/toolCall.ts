// tools/list and tools/call: the tools as the version shows them, and a
// call's arguments checked against the inputSchema the model was shown.

import { rendersApps } from '../../apps/appViews.js';
import { RpcError } from '../../jsonrpc/errors.js';
import { validateArguments } from './inputValidation.js';
import type { RequestScope } from './requestScope.js';
import type { Tool, ToolResult } from './tool.js';
import { type ServerLimits, toolContext } from './toolContext.js';
import { describeTool, toolResult } from './toolWire.js';

type Params = Record<string, unknown>;

export function listTools(tools: readonly Tool[], params: Params, scope: RequestScope): Params {
  // All tools fit one page; a cursor can only be one this server never issued.
  if (params.cursor !== undefined) throw RpcError.invalidParams(`unknown cursor ${JSON.stringify(params.cursor)}`);
  // In the order given, every time (server/tools.mdx in 2026-07-28: deterministic, for clients' caches).
  const apps = rendersApps(scope.clientCapabilities);
  return { tools: tools.map((tool) => describeTool(tool, scope.rules, apps)) };
}

export async function callTool(tools: readonly Tool[], params: Params, scope: RequestScope, limits: ServerLimits): Promise<Params> {
  const { rules } = scope;
  if (typeof params.name !== 'string') throw RpcError.invalidParams('tools/call needs params.name, the name of a tool from tools/list');
  const tool = tools.find((candidate) => candidate.name === params.name);
  if (tool === undefined) {
    throw RpcError.invalidParams(`unknown tool ${JSON.stringify(params.name)}; tools/list names ${tools.map((t) => t.name).join(', ')}`);
  }
  // Arguments that are not an object break the request itself, not the
  // tool's input schema: -32602 in every version (SEP-1303 keeps these).
  const args = params.arguments;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw RpcError.invalidParams(`params.arguments must be an object, not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}`);
  }
  const problems = validateArguments(tool.inputSchema, args, tool.hints);
  if (problems.length > 0) {
    const message = `invalid arguments for ${tool.name}: ${problems.join('; ')}`;
    // SEP-1303 (2025-11-25): a result the model can read and correct, not a protocol error.
    if (rules.inputErrorsAsToolResults) return toolResult({ text: message, isError: true }, rules);
    throw RpcError.invalidParams(message);
  }
  const context = toolContext(scope, limits);
  // Its first progress as the work starts, not with its result (issue 27).
  if (tool.reportsProgress === true) context.begin();
  let result: ToolResult;
  try {
    result = await tool.call((args ?? {}) as Params, context);
  } catch (error) {
    void context.done(); // thrown: a cancelled call, or a bug; no wait
    throw error;
  }
  // A result right behind its progress would be read with it, and the progress lost (PROGRESS_LEAD_MS).
  const lead = context.done();
  if (lead !== undefined) await lead;
  return toolResult(result, rules, rendersApps(scope.clientCapabilities));
}
