// The OAuth options of `serve --http` and `metrics --listen`, read through
// the public parser: what they default to, and every way of getting them
// wrong, refused at start with a message that names the option.
import { describe, expect, it } from 'vitest';

import type { AuthOptions } from '../../dist/cli/authCommandLine.js';
import { type Command, parseCommandLine } from '../../dist/cli/commandLine.js';
import { UsageError } from '../../dist/cli/usageError.js';

const ISSUER = 'https://login.example.com/realms/ops';

/** Both commands that take the OAuth options, each with the option that makes it listen. */
const COMMANDS = [
  { name: 'serve', flag: '--http' },
  { name: 'metrics', flag: '--listen' },
] as const;

/** The auth options `args` give, after `command --flag listen`. */
function auth(command: (typeof COMMANDS)[number], args: string[], listen = '127.0.0.1:0'): AuthOptions | undefined {
  const parsed: Command = parseCommandLine([command.name, command.flag, listen, ...args], {});
  if (parsed.kind === 'serve') return parsed.options.http?.auth;
  if (parsed.kind === 'metrics') return parsed.options.auth;
  throw new Error(`parsed as ${parsed.kind}`);
}

/** The UsageError `args` throw; fails the test when they throw none, or something else. */
function usageError(args: string[]): UsageError {
  let thrown: unknown;
  try {
    parseCommandLine(args, {});
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `${args.join(' ')} should be refused`).toBeInstanceOf(UsageError);
  return thrown as UsageError;
}

describe.each(COMMANDS)('$name $flag with --auth-issuer', (command) => {
  const refused = (args: string[], listen = '127.0.0.1:0') => usageError([command.name, command.flag, listen, ...args]).message;

  it('has no OAuth without --auth-issuer', () => {
    expect(auth(command, [])).toBeUndefined();
  });

  it('defaults to scope diskprobe:read, no audience of its own and at+jwt only', () => {
    expect(auth(command, ['--auth-issuer', ISSUER])).toEqual({ issuers: [ISSUER], audience: undefined, scopes: ['diskprobe:read'], plainJwt: false });
  });

  it('takes several issuers and scopes, each once, in the order given', () => {
    const options = auth(command, [
      '--auth-issuer',
      ISSUER,
      '--auth-scope',
      'diskprobe:metrics',
      '--auth-issuer=http://127.0.0.1:8080',
      '--auth-scope',
      'diskprobe',
      '--auth-issuer',
      ISSUER,
      '--auth-scope=diskprobe:metrics',
      '--auth-audience',
      'https://disks.example.com/mcp',
      '--auth-plain-jwt',
    ]);
    expect(options).toEqual({
      issuers: [ISSUER, 'http://127.0.0.1:8080'],
      audience: 'https://disks.example.com/mcp',
      scopes: ['diskprobe:metrics', 'diskprobe'],
      plainJwt: true,
    });
  });

  it('replaces the default scope with the scopes given, rather than adding to it', () => {
    expect(auth(command, ['--auth-issuer', ISSUER, '--auth-scope', 'other:scope'])?.scopes).toEqual(['other:scope']);
  });

  it.each([['http://127.0.0.1:8080'], ['http://localhost:9'], ['http://[::1]:8080/realms/dev'], ['http://127.1.2.3'], ['https://as.example:8443/x/']])(
    'accepts the issuer %s (https, or http on loopback)',
    (issuer) => {
      expect(auth(command, ['--auth-issuer', issuer])?.issuers).toEqual([issuer]);
    },
  );

  it.each([['--auth-scope', 'diskprobe:read'], ['--auth-audience', 'https://disks.example.com/mcp'], ['--auth-plain-jwt']])(
    'refuses %s without --auth-issuer',
    (...args: string[]) => {
      const message = refused(args);
      expect(message).toContain(args[0]);
      expect(message).toContain('--auth-issuer');
    },
  );

  it('takes --auth-introspection with exactly one issuer (given once or repeated)', () => {
    expect(auth(command, ['--auth-issuer', ISSUER, '--auth-introspection', '/etc/diskprobe/rs.json'])?.introspectionFile).toBe('/etc/diskprobe/rs.json');
    expect(auth(command, ['--auth-issuer', ISSUER, '--auth-issuer', ISSUER, '--auth-introspection', 'rs.json'])?.introspectionFile).toBe('rs.json');
    expect(auth(command, ['--auth-issuer', ISSUER])?.introspectionFile).toBeUndefined();
    const message = refused(['--auth-issuer', ISSUER, '--auth-issuer', 'https://other.example', '--auth-introspection', 'rs.json']);
    expect(message).toContain("'--auth-introspection'");
    expect(message).toContain('--auth-issuer');
    expect(refused(['--auth-introspection', 'rs.json'])).toBe("option '--auth-introspection' needs --auth-issuer <url>");
  });

  it('refuses --auth-issuer together with --token-file', () => {
    const message = refused(['--auth-issuer', ISSUER, '--token-file', '/etc/diskprobe/token']);
    expect(message).toContain('--token-file');
    expect(message).toContain('--auth-issuer');
  });

  it.each([['http://as.example'], ['http://10.0.0.1:8080'], ['http://localhost.example.com'], ['http://127.0.0.1.nip.io']])(
    'refuses the plain-http issuer %s off loopback',
    (issuer) => {
      const message = refused(['--auth-issuer', issuer]);
      expect(message).toContain("'--auth-issuer'");
      expect(message).toContain('https');
      expect(message).toContain(issuer);
    },
  );

  it.each([['ftp://as.example/'], ['file:///etc/issuer'], ['ws://127.0.0.1:8080']])('refuses the issuer %s, which is no http(s) URL', (issuer) => {
    const message = refused(['--auth-issuer', issuer]);
    expect(message).toContain("'--auth-issuer'");
    expect(message).toContain('https');
  });

  it.each([['not a url'], [''], ['as.example/realms/ops']])('refuses the issuer %j, which is no URL', (issuer) => {
    const message = refused(['--auth-issuer', issuer]);
    expect(message).toContain("'--auth-issuer' needs a URL");
  });

  it.each([['https://as.example/?tenant=1'], ['https://as.example/#x'], ['https://user:pass@as.example/'], ['https://user@as.example/']])(
    'refuses the issuer %s, which carries a query, fragment or credentials',
    (issuer) => {
      const message = refused(['--auth-issuer', issuer]);
      expect(message).toContain("'--auth-issuer'");
      expect(message).toMatch(/credentials, a query or a fragment/);
    },
  );

  it('checks every issuer given, not only the first', () => {
    expect(refused(['--auth-issuer', ISSUER, '--auth-issuer', 'http://as.example'])).toContain('http://as.example');
  });

  it.each([['diskprobe read'], ['diskprobe:"read"'], ['back\\slash'], [''], ['tab\there'], ['é']])('refuses the scope %j', (scope) => {
    const message = refused(['--auth-issuer', ISSUER, '--auth-scope', scope]);
    expect(message).toContain("'--auth-scope'");
    expect(message).toContain(`'${scope}'`);
  });

  it('refuses offline_access, which clients ask for themselves', () => {
    const message = refused(['--auth-issuer', ISSUER, '--auth-scope', 'diskprobe:read', '--auth-scope', 'offline_access']);
    expect(message).toContain("'--auth-scope'");
    expect(message).toContain('offline_access');
  });

  it.each([['ftp://disks.example.com/mcp'], ['not a url'], ['https://disks.example.com/mcp?x=1']])('refuses the audience %j', (audience) => {
    expect(refused(['--auth-issuer', ISSUER, '--auth-audience', audience])).toContain("'--auth-audience'");
  });

  it.each([['0.0.0.0:8080'], ['[::]:8080']])('needs --auth-audience on the wildcard address %s, which has no name clients use', (listen) => {
    const message = refused(['--auth-issuer', ISSUER], listen);
    expect(message).toContain('--auth-audience');
    expect(message).toContain(command.flag);
    expect(message).toContain(command.name === 'serve' ? '/mcp' : '/metrics');
    const audience = `https://disks.example.com:8080${command.name === 'serve' ? '/mcp' : '/metrics'}`;
    expect(auth(command, ['--auth-issuer', ISSUER, '--auth-audience', audience], listen)).toEqual({
      issuers: [ISSUER],
      audience,
      scopes: ['diskprobe:read'],
      plainJwt: false,
    });
  });

  // Node binds each of these to :: or 0.0.0.0 all the same: the server would
  // listen on every interface and name itself http://[::0]:8080/mcp, an
  // audience no client's token carries.
  it.each([['[::0]:8080'], ['[0:0:0:0:0:0:0:0]:8080'], ['0:8080']])('needs --auth-audience on %s, another spelling of the wildcard address', (listen) => {
    expect(refused(['--auth-issuer', ISSUER], listen)).toContain('--auth-audience');
  });

  it('needs no --auth-audience on a named or loopback address', () => {
    for (const listen of ['127.0.0.1:8080', '[::1]:8080', 'localhost:8080', 'disks.example.com:8080', '10.1.2.3:8080', '8080']) {
      expect(auth(command, ['--auth-issuer', ISSUER], listen)?.audience).toBeUndefined();
    }
  });
});

describe('--auth-issuer without a listening address', () => {
  it.each([
    [['serve', '--auth-issuer', ISSUER], '--http'],
    [['--auth-issuer', ISSUER], '--http'], // serve is the default command
    [['metrics', '--auth-issuer', ISSUER], '--listen'],
  ])('refuses %j: it needs %s', (args, flag) => {
    expect(usageError(args).message).toBe(`option '--auth-issuer' needs ${flag}`);
  });

  it.each([
    [['serve', '--auth-scope', 'diskprobe:read']],
    [['serve', '--auth-plain-jwt']],
    [['metrics', '--auth-audience', 'https://disks.example.com/metrics']],
  ])('refuses %j: the option needs --auth-issuer first', (args) => {
    expect(usageError(args).message).toMatch(/^option '--auth-[a-z-]+' needs --auth-issuer <url>$/);
  });

  it('leaves df and du without the OAuth options', () => {
    expect(usageError(['df', '--auth-issuer', ISSUER])).toBeDefined();
  });
});
