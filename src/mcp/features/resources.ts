// Resources: disk://mounts (what list_mounts reports, as JSON), the
// template disk://usage/{+path} (the usage of one path), and the MCP Apps
// views (ui://diskprobe/..., listed to clients that render them). resources/list
// is paginated with an opaque cursor (server/utilities/pagination.mdx).

import { readView, rendersApps, viewListings } from '../../apps/appViews.js';
import { failureReason } from '../../format/failureReason.js';
import { diskUsage, listMounts } from '../../index.js';
import { RpcError } from '../../jsonrpc/errors.js';
import { dfMounts } from '../../probe/mountProbes.js';
import { resourceNotFound } from '../protocol/errors.js';
import type { RequestScope } from '../protocol/requestScope.js';
import type { ToolContext } from '../protocol/tool.js';
import type { VersionRules } from '../protocol/versions.js';
import { isAbsolutePath } from './absolutePath.js';
import { listedMount } from './tools/mountListing.js';
import { usageData } from './tools/usageSchema.js';

export const MOUNTS_URI = 'disk://mounts';
const USAGE_PREFIX = 'disk://usage/';
export const USAGE_TEMPLATE = 'disk://usage/{+path}';
/** Resources per page of resources/list. */
const PAGE_SIZE = 10;

/** The URI of a path's usage: RFC 6570 reserved expansion keeps "/" and percent-encodes the rest. */
function usageUri(path: string): string {
  return USAGE_PREFIX + encodeURI(path).replace(/[?#]/g, (c) => encodeURIComponent(c));
}

function withTitle(rules: VersionRules, title: string): { title?: string } {
  return rules.structuredOutput ? { title } : {};
}

/** Cursors are opaque to clients; here, the offset of the next page, base64url-encoded with a tag. */
function encodeCursor(offset: number): string {
  return Buffer.from(`diskprobe:${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  const match = typeof cursor === 'string' ? /^diskprobe:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString()) : null;
  if (!match) throw RpcError.invalidParams(`unknown cursor ${JSON.stringify(cursor)}: pass back a nextCursor exactly as received`);
  return Number(match[1]);
}

export async function listResources(params: Record<string, unknown>, scope: RequestScope, context: ToolContext): Promise<unknown> {
  const { rules } = scope;
  const offset = decodeCursor(params.cursor);
  const mounts = (await listMounts({ timeout: context.probeTimeout, signal: context.signal })).filter((mount) => context.roots.showsMount(mount.mountPoint));
  const all = [
    {
      uri: MOUNTS_URI,
      name: 'mounts',
      ...withTitle(rules, 'Mounted file systems'),
      description: 'Every mounted file system with its usage (what list_mounts reports), as JSON',
      mimeType: 'application/json',
    },
    ...mounts.map((mount) => ({
      uri: usageUri(mount.mountPoint),
      name: `usage of ${mount.mountPoint}`,
      ...withTitle(rules, `Disk usage of ${mount.mountPoint}`),
      description: `Usage of the ${mount.fsType} file system mounted at ${mount.mountPoint}, as JSON`,
      mimeType: 'application/json',
    })),
    ...(rendersApps(scope.clientCapabilities) ? viewListings((title) => withTitle(rules, title)) : []),
  ];
  if (offset > all.length) throw RpcError.invalidParams('the cursor points past the end of the list; start again without one');
  const page = all.slice(offset, offset + PAGE_SIZE);
  return { resources: page, ...(offset + PAGE_SIZE < all.length && { nextCursor: encodeCursor(offset + PAGE_SIZE) }) };
}

export function listResourceTemplates(rules: VersionRules): unknown {
  return {
    resourceTemplates: [
      {
        uriTemplate: USAGE_TEMPLATE,
        name: 'usage',
        ...withTitle(rules, 'Disk usage of a path'),
        description: 'The usage of the file system holding an absolute path, e.g. disk://usage//data for /data, as JSON',
        mimeType: 'application/json',
      },
    ],
  };
}

/**
 * A missing resource is -32002 or -32602 by version (VersionRules); a probe
 * that failed otherwise (a dead mount, EACCES) is rules.probeFailedCode, with
 * the URI and the errno code in data.
 */
export async function readResource(params: Record<string, unknown>, rules: VersionRules, context: ToolContext): Promise<unknown> {
  const { uri } = params;
  if (typeof uri !== 'string') throw RpcError.invalidParams('resources/read needs params.uri');
  const notFound = (): RpcError => resourceNotFound(uri, rules);
  if (uri === MOUNTS_URI) {
    // Everything at once, in df's order: an application reads this, not a model (list_mounts pages for those).
    const listed = await dfMounts({ timeout: context.probeTimeout, signal: context.signal, include: (mountPoint) => context.roots.showsMount(mountPoint) });
    if (context.signal.aborted) throw context.signal.reason;
    const mounts = listed.map((outcome) => listedMount(outcome, context.probeTimeout).entry);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ mounts }) }] };
  }
  if (uri.startsWith('ui://')) {
    const view = readView(uri);
    if (view === undefined) throw notFound();
    return view;
  }
  if (!uri.startsWith(USAGE_PREFIX)) throw notFound();
  let path: string;
  try {
    path = decodeURI(uri.slice(USAGE_PREFIX.length));
  } catch {
    throw notFound();
  }
  if (!isAbsolutePath(path)) throw notFound();
  try {
    const usage = await diskUsage(path, { timeout: context.probeTimeout, signal: context.signal });
    if (!context.roots.allows(path)) throw notFound();
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(usageData(usage)) }] };
  } catch (error) {
    if (error instanceof RpcError) throw error;
    const code = (error as { code?: unknown }).code;
    // Outside the roots reads as not found, whether or not the path exists.
    if (!context.roots.allowsFailed(path, error) || code === 'ENOENT' || code === 'ENOTDIR') throw notFound();
    if ((error as Error).name === 'AbortError') throw error;
    throw new RpcError(rules.probeFailedCode, `${String(code)}: ${path}: ${failureReason(error, context.probeTimeout)}`, { uri, code });
  }
}
