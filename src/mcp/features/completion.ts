// completion/complete for the path argument of disk_report and the path
// variable of disk://usage/{+path}: mount points and directories that start
// with what was typed (server/utilities/completion.mdx).
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type CancelSignal, listMounts, stuckMounts } from '../../index.js';
import { RpcError } from '../../jsonrpc/errors.js';
import type { RootPolicy } from '../protocol/roots.js';
import { USAGE_TEMPLATE } from './resources.js';

/** The spec's limit on values per answer. */
const MAX_VALUES = 100;

function completesPath(ref: Record<string, unknown>, argument: string): boolean {
  if (argument !== 'path') return false;
  return (ref.type === 'ref/prompt' && ref.name === 'disk_report') || (ref.type === 'ref/resource' && ref.uri === USAGE_TEMPLATE);
}

export async function complete(params: Record<string, unknown>, roots: RootPolicy, timeout: number, signal: CancelSignal): Promise<unknown> {
  const ref = params.ref as Record<string, unknown> | undefined;
  const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
  if (
    typeof ref !== 'object' ||
    ref === null ||
    typeof argument !== 'object' ||
    argument === null ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  ) {
    throw RpcError.invalidParams('completion/complete needs params.ref and params.argument {name, value}');
  }
  if (!completesPath(ref, argument.name)) {
    throw RpcError.invalidParams(`nothing to complete for argument ${JSON.stringify(argument.name)} of ${JSON.stringify(ref.name ?? ref.uri)}`);
  }
  const typed = argument.value === '' ? '/' : argument.value;
  const found = new Set<string>();
  for (const mount of await listMounts({ timeout, signal })) if (mount.mountPoint.startsWith(typed)) found.add(mount.mountPoint);
  // Directories in the typed parent, unless it lies on a mount known to be dead.
  const parent = typed.endsWith('/') ? typed : dirname(typed);
  const stuck = stuckMounts();
  if (parent.startsWith('/') && !stuck.some((mountPoint) => parent === mountPoint || parent.startsWith(`${mountPoint}/`))) {
    try {
      for (const entry of await readdir(parent, { withFileTypes: true })) {
        const path = join(parent, entry.name);
        if (entry.isDirectory() && path.startsWith(typed)) found.add(path);
      }
    } catch {
      // Not a directory, or unreadable: the mount points are the answer.
    }
  }
  const values = [...found].filter((path) => roots.allowsByName(path) || roots.showsMount(path)).sort();
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}
