// The disk_report prompt: asks the model to check usage and suggest what to clean.
import { RpcError } from '../../jsonrpc/errors.js';
import type { VersionRules } from '../protocol/versions.js';
import { isAbsolutePath } from './absolutePath.js';

const PROMPT = {
  name: 'disk_report',
  title: 'Disk usage report',
  description: 'Check how full the disks are and suggest what to clean up',
  arguments: [{ name: 'path', description: 'An absolute path to focus on, e.g. /var; omit to look at every file system', required: false }],
};

export function listPrompts(rules: VersionRules): unknown {
  const { title, ...rest } = PROMPT;
  return { prompts: [rules.structuredOutput ? { ...rest, title } : rest] };
}

export function getPrompt(params: Record<string, unknown>): unknown {
  if (params.name !== PROMPT.name) throw RpcError.invalidParams(`unknown prompt ${JSON.stringify(params.name)}; prompts/list names ${PROMPT.name}`);
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  if (typeof args !== 'object' || args === null) throw RpcError.invalidParams('arguments must be an object');
  const path = args.path;
  if (path !== undefined && (typeof path !== 'string' || !isAbsolutePath(path))) {
    throw RpcError.invalidParams(`"path" must be an absolute path such as /var, not ${JSON.stringify(path)}`);
  }
  const scope =
    path === undefined ? 'every mounted file system (use list_mounts)' : `the file system holding ${path} (use disk_usage with path ${JSON.stringify(path)})`;
  return {
    description: path === undefined ? 'Disk usage report for every file system' : `Disk usage report for ${path}`,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text:
            `Check the disk usage of ${scope} with the diskprobe tools. ` +
            'Report which file systems are fullest, with their percentage used and space left, and point out any that do not respond. ' +
            `Then find what fills ${path === undefined ? 'the fullest ones' : 'it'} with directory_usage (start at the mount point, then drill into the largest subtrees), ` +
            'and suggest what could be cleaned up to free space, based on the largest subtrees and files it shows (caches, logs, old packages, temporary files), ' +
            'most space first, saying which suggestions are safe and which need care. ' +
            'If what directory_usage finds on a file system falls well short of its used space, call explain_disk_usage for it: ' +
            'it names deleted files that processes still hold open (and how to free them), files hidden under mount points, and the root reserve.',
        },
      },
    ],
  };
}
