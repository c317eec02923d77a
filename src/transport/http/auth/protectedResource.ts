// What a client learns before it has a token: the protected resource
// metadata (RFC 9728), at the well-known URLs 2026-07-28
// basic/authorization/authorization-server-discovery.mdx names (the
// endpoint's path inserted, then the root), and the WWW-Authenticate
// challenge that points to it (RFC 9728 §5.1, RFC 6750 §3). Both stay open:
// a client cannot authenticate to learn how to authenticate.
import type { IncomingMessage, ServerResponse } from 'node:http';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** RFC 9728 §2: the fields diskprobe publishes. */
export interface ProtectedResource {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly resource_name: string;
}

/** The metadata's URL for `resource`: the well-known prefix inserted before its path (RFC 9728 §3.1). */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** RFC 6750 §3: error_description is printable ASCII without '"' and '\'. */
function quotable(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7E]/g, '?');
}

/** A Bearer challenge: the error (none when no token came), the scopes needed, and where the metadata is. */
export function challenge(options: { error: string | undefined; detail: string; scopes: readonly string[]; metadataUrl: string }): string {
  const params = [`resource_metadata="${options.metadataUrl}"`, `scope="${options.scopes.join(' ')}"`];
  if (options.error !== undefined) params.unshift(`error="${options.error}"`, `error_description="${quotable(options.detail)}"`);
  return `Bearer ${params.join(', ')}`;
}

/**
 * Serves the metadata if `req` asks for it, at the root or with a path
 * inserted: the endpoint's own, or the resource's when a proxy puts it
 * elsewhere. Returns whether it did. `describe` answers undefined until the
 * server knows its own address.
 */
export function serveMetadata(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  endpoint: string,
  describe: () => ProtectedResource | undefined,
): boolean {
  const document = describe();
  const inserted = [endpoint, ...(document === undefined ? [] : [new URL(document.resource).pathname])];
  if (path !== WELL_KNOWN && !inserted.some((item) => path === `${WELL_KNOWN}${item}`)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${req.method} is not served: GET ${path}\n`);
    return true;
  }
  if (document === undefined) {
    res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain; charset=utf-8' });
    res.end('the server is starting\n');
    return true;
  }
  const body = JSON.stringify(document);
  // Public, and read by browser-based clients from other origins.
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'max-age=300',
    'access-control-allow-origin': '*',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
