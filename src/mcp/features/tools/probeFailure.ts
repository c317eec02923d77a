// A failed probe as a tool result the model can act on: the code, the path
// and the reason, e.g. "ENOENT: /data: no such file or directory" or
// "ETIMEDOUT: /mnt/nfs: mount not responding after 5000 ms".
import { displayPath } from '../../../format/displayPath.js';
import { failureReason } from '../../../format/failureReason.js';
import type { ToolResult } from '../../protocol/tool.js';

export function probeFailure(path: string, error: unknown, timeoutMs: number): ToolResult {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'ERROR';
  const reason = displayPath(failureReason(error, timeoutMs));
  const shown = displayPath(path);
  const text = code === 'ETIMEDOUT' ? `ETIMEDOUT: ${shown}: mount ${reason}` : `${code}: ${shown}: ${reason}`;
  return { text, isError: true };
}
