// OAuth for `serve --http` and `metrics --listen`, at start: the resource
// server made from the command line, named once the server listens, and
// the issuers' keys fetched so that the first request need not wait.
import { ResourceServer } from '../http/auth/resourceServer.js';
import type { AuthOptions } from './authCommandLine.js';

/** The resource server for --auth-issuer; throws a message when a static token is given too. */
export async function protect(options: AuthOptions, token: string | undefined): Promise<ResourceServer> {
  if (token !== undefined) {
    throw new Error('DISKPROBE_TOKEN is set, and --auth-issuer asks for OAuth tokens: use one or the other (unset DISKPROBE_TOKEN)');
  }
  return ResourceServer.create({ issuers: options.issuers, scopes: options.scopes, plainJwt: options.plainJwt }, options.audience);
}

/** A host as it appears in a URL: IPv6 in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Names the server (unless --auth-audience did), logs what it asks of tokens, and fetches the issuers' keys. */
export function announce(auth: ResourceServer, ownUrl: string, log: (line: string) => void): void {
  auth.identify(ownUrl);
  const described = auth.describe()!;
  log(
    `diskprobe: OAuth: access tokens from ${described.authorization_servers.join(', ')} for ${described.resource}, with scope ${described.scopes_supported.join(' ')}`,
  );
  void auth.warm().then((failures) => {
    for (const failure of failures) log(`diskprobe: ${failure}; requests are answered 503 until its keys can be fetched`);
  });
}
