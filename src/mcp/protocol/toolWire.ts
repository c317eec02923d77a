// Tools and their results as each protocol version shows them: fields newer
// than the negotiated version are left out.
import { toolViewMeta } from '../../apps/appViews.js';
import type { Tool, ToolResult } from './tool.js';
import type { VersionRules } from './versions.js';

/** A tool as tools/list shows it; `apps`: the client renders MCP Apps, so a tool with a view links to it. */
export function describeTool(tool: Tool, rules: VersionRules, apps: boolean): Record<string, unknown> {
  return {
    name: tool.name,
    ...(rules.structuredOutput && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(rules.structuredOutput && tool.outputSchema && { outputSchema: tool.outputSchema }),
    ...(rules.toolAnnotations && {
      // Every diskprobe tool only reads. Most read only this machine; the fleet's ask a Prometheus elsewhere (tools.mdx, "Tool Annotations": openWorldHint).
      annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: tool.openWorld === true },
    }),
    ...(apps && tool.view && { _meta: toolViewMeta(tool.view) }),
  };
}

/**
 * A tool's result as the version shows it. structuredContent came in
 * 2025-06-18; a client that renders MCP Apps gets it in any version, as
 * that is where a view reads its data (apps.mdx, "Data Passing").
 */
export function toolResult(result: ToolResult, rules: VersionRules, apps = false): Record<string, unknown> {
  return {
    // The text stays alongside structuredContent, for clients that show only text.
    content: [{ type: 'text', text: result.text }],
    ...((rules.structuredOutput || apps) && !result.isError && result.structured && { structuredContent: result.structured }),
    isError: result.isError === true,
  };
}
