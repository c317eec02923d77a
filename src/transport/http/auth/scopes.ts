// The scopes an access token grants, and whether they cover what an
// operation needs. Scope hierarchies count (2026-07-28
// basic/authorization/index.mdx, "Step-Up Authorization Flow": "a broader
// scope implies narrower ones"): here by prefix on ':', so `diskprobe`
// covers `diskprobe:read`, and `diskprobe:read` covers `diskprobe:read:mounts`.

/** A scope token (RFC 6749 §3.3): printable ASCII but space, '"' and '\'. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scopes in a token's claims: `scope`, a space-separated string
 * (RFC 9068 §2.2.3, RFC 8693), or `scp`, which Entra ID writes as a string
 * and Okta as an array; either is read in either shape. Anything else
 * grants nothing.
 */
export function grantedScopes(claims: Readonly<Record<string, unknown>>): Set<string> {
  const granted = new Set<string>();
  for (const claim of [claims.scope, claims.scp]) {
    const items = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
    for (const item of items) if (typeof item === 'string' && item !== '') granted.add(item);
  }
  return granted;
}

/**
 * Whether `granted` holds `needed` itself or a broader scope that implies it.
 * @internal exported for the tests
 */
export function covers(granted: ReadonlySet<string>, needed: string): boolean {
  if (granted.has(needed)) return true;
  const parts = needed.split(':');
  for (let length = parts.length - 1; length >= 1; length--) {
    if (granted.has(parts.slice(0, length).join(':'))) return true;
  }
  return false;
}

/** The scopes of `needed` that `granted` does not cover. */
export function missingScopes(granted: ReadonlySet<string>, needed: readonly string[]): string[] {
  return needed.filter((scope) => !covers(granted, scope));
}
