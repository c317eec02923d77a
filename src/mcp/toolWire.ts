// Tools and their results as each protocol version shows them: fields newer
// than the negotiated version are left out.
import type { Tool, ToolResult } from './tools/tool.js';
import type { VersionRules } from './versions.js';

export function describeTool(tool: Tool, rules: VersionRules): Record<string, unknown> {
  return {
    name: tool.name,
    ...(rules.structuredOutput && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(rules.structuredOutput && tool.outputSchema && { outputSchema: tool.outputSchema }),
    ...(rules.toolAnnotations && {
      // Every diskprobe tool only reads, and only this machine.
      annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    }),
  };
}

export function toolResult(result: ToolResult, rules: VersionRules): Record<string, unknown> {
  return {
    // The text stays alongside structuredContent, for clients that show only text.
    content: [{ type: 'text', text: result.text }],
    ...(rules.structuredOutput && !result.isError && result.structured && { structuredContent: result.structured }),
    isError: result.isError === true,
  };
}
