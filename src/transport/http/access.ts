// Who may talk to the HTTP endpoint (basic/transports/streamable-http.mdx,
// "Security Warning"): against DNS rebinding, a server on loopback answers
// only requests whose Host names loopback, and any request whose Origin is
// present must come from loopback too (or, off loopback, from the server's
// own host): else 403. With a token, every request carries it as a bearer
// token, compared in constant time: else 401 with WWW-Authenticate.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { isLoopbackName } from './loopback.js';

export interface AccessPolicy {
  /** The server listens on loopback only: Host must name it. */
  readonly loopback: boolean;
  /** The bearer token every request must carry; undefined: none is asked for (loopback only). */
  readonly token: string | undefined;
}

export interface Denial {
  readonly status: 401 | 403;
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The host name of a Host header value ("name:port", "[v6]:port"), lower-cased. */
function hostName(value: string): string {
  const bracketed = /^(\[[^\]]*\])(?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return value.replace(/:\d+$/, '').toLowerCase();
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Why `req` may not be served, or undefined when it may. */
export function checkAccess(req: IncomingMessage, policy: AccessPolicy): Denial | undefined {
  const host = req.headers.host;
  if (host === undefined) return { status: 403, detail: 'the request has no Host header', headers: {} };
  const name = hostName(host);
  if (policy.loopback && !isLoopbackName(name)) {
    return { status: 403, detail: `Host ${host} is not this server's: it listens on loopback only (a DNS rebinding attempt?)`, headers: {} };
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originName: string | undefined;
    try {
      originName = hostName(new URL(origin).host);
    } catch {
      originName = undefined;
    }
    const allowed = originName !== undefined && (isLoopbackName(originName) || (!policy.loopback && originName === name));
    if (!allowed) return { status: 403, detail: `Origin ${origin} may not use this server (DNS rebinding protection)`, headers: {} };
  }
  if (policy.token !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    const challenge = { 'www-authenticate': 'Bearer realm="diskprobe"' };
    if (match === null) return { status: 401, detail: 'this server needs a bearer token: Authorization: Bearer <token>', headers: challenge };
    if (!timingSafeEqual(digest(match[1]!), digest(policy.token))) {
      return {
        status: 401,
        detail: "the bearer token is not this server's",
        headers: { 'www-authenticate': 'Bearer realm="diskprobe", error="invalid_token"' },
      };
    }
  }
  return undefined;
}
