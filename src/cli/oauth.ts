// OAuth for `serve --http` and `metrics --listen`, at start: the resource
// server made from the command line, named once the server listens, and
// the issuers' keys fetched so that the first request need not wait.
import { readFileSync } from 'node:fs';

import type { IntrospectionClient } from '../transport/http/auth/introspection.js';
import { ResourceServer } from '../transport/http/auth/resourceServer.js';
import type { AuthOptions } from './authCommandLine.js';

/** The resource server for --auth-issuer; throws a message when a static token is given too. */
export async function protect(options: AuthOptions, token: string | undefined): Promise<ResourceServer> {
  if (token !== undefined) {
    throw new Error('DISKPROBE_TOKEN is set, and --auth-issuer asks for OAuth tokens: use one or the other (unset DISKPROBE_TOKEN)');
  }
  const introspection = options.introspectionFile === undefined ? undefined : readClient(options.introspectionFile);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  return ResourceServer.create({ issuers: options.issuers, scopes: options.scopes, plainJwt: options.plainJwt, introspection, log }, options.audience);
}

/** --auth-introspection's file: {"client_id": "…", "client_secret": "…"}, this server's credentials at the issuer. */
function readClient(path: string): IntrospectionClient {
  let value: { client_id?: unknown; client_secret?: unknown };
  try {
    value = JSON.parse(readFileSync(path, 'utf8')) as typeof value;
  } catch (error) {
    const why = error instanceof SyntaxError ? `it is not JSON (${error.message})` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new Error(`cannot read --auth-introspection ${path}: ${why}`);
  }
  if (typeof value?.client_id !== 'string' || typeof value.client_secret !== 'string' || value.client_id === '' || value.client_secret === '') {
    throw new Error(`--auth-introspection ${path} needs {"client_id": "…", "client_secret": "…"}: this server's own credentials at the issuer`);
  }
  return { clientId: value.client_id, clientSecret: value.client_secret };
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
