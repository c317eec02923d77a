// Where an authorization server says what it offers: its metadata, found
// by RFC 8414 or OpenID Connect discovery in the order of 2026-07-28
// basic/authorization/authorization-server-discovery.mdx, and the small
// JSON fetches that read it and the documents it points to.
import { isLoopbackHost } from '../loopback.js';

/** The authorization server cannot be asked, and nothing is held: answer 503, and say when to retry. */
export class IssuerUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'IssuerUnavailable';
  }
}

/** Metadata and key sets are small; a larger answer is not one. */
const MAX_DOCUMENT_BYTES = 1 << 20;

/**
 * Where an issuer's metadata may be, in the spec's order: RFC 8414 first, then OpenID Connect, path inserted before appended.
 * @internal exported for the tests
 */
export function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  // Joined as text: a path such as //other.example/x, resolved against the origin, would name another host.
  const at = (suffix: string): URL => new URL(`${url.origin}${suffix}`);
  if (path === '') return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [at(`/.well-known/oauth-authorization-server${path}`), at(`/.well-known/openid-configuration${path}`), at(`${path}/.well-known/openid-configuration`)];
}

/** Whether a URL may carry keys: https, or http to loopback (a server on this machine). */
export function isSecureEnough(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

export function reason(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return cause.code;
  // fetch's own "fetch failed" says nothing; its cause says what failed (TLS, DNS, a redirect).
  if (cause?.message !== undefined) return cause.message;
  return (error as Error).message ?? String(error);
}

export async function fetchJson(url: URL, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
  // Redirects are not followed: an issuer's documents are where discovery says. A 3xx is "not here",
  // as a 404 is, so that discovery goes on to the next place.
  const response = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json' } });
  if (!response.ok) {
    await response.body?.cancel();
    return { status: response.status, body: undefined };
  }
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`${url} is ${declared} bytes, more than a key set or metadata document can be`);
  // Counted as it arrives: a server that declares no length cannot make us hold more.
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the stream.
    if (size > MAX_DOCUMENT_BYTES) {
      throw new Error(`${url} is more than ${MAX_DOCUMENT_BYTES} bytes, more than a key set or metadata document can be`);
    }
    chunks.push(chunk);
  }
  try {
    return { status: response.status, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    throw new Error(`${url} is not JSON`);
  }
}

/** RFC 8414 §2: the fields diskprobe reads. */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly jwks_uri?: unknown;
  readonly introspection_endpoint?: unknown;
}

/** The issuer's metadata: the first document that answers and names this issuer exactly (RFC 8414 §3.3). */
export async function discoverMetadata(issuer: string, signal: AbortSignal): Promise<AuthorizationServerMetadata> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const { status, body } = await fetchJson(url, signal);
    if (body === undefined) {
      tried.push(`${url} (${status}${status >= 300 && status < 400 ? ', a redirect, not followed' : ''})`);
      continue;
    }
    const metadata = body as AuthorizationServerMetadata;
    if (metadata.issuer !== issuer) {
      throw new Error(`${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}: give --auth-issuer exactly as the server writes it`);
    }
    return metadata;
  }
  throw new Error(`no metadata at ${tried.join(', ')}`);
}
