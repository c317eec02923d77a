// server.json is what a release sends to the official MCP Registry
// (docs/platforms.md, "Publishing a release"). The committed file carries a
// placeholder fileSha256; `npm run bundle:mcpb` writes a copy with the built
// file's. Here: the committed file passes the registry's schema and rules, its
// packages start a server diskprobe's command line accepts, and each rule the
// schema cannot express catches the copy that breaks it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { parseCommandLine } from '../../dist/cli/commandLine.js';
import type { ServeOptions } from '../../dist/cli/serve/serveCommandLine.js';
import { projectRoot } from '../helpers/system.js';
import { checkServerJson, REGISTRY_SCHEMA } from './serverJson.js';

const packageJson = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { name: string; version: string; mcpName: string };
const committed = JSON.parse(readFileSync(join(projectRoot, 'server.json'), 'utf8'));
const { version } = packageJson;

const check = (serverJson: unknown, mcpName = packageJson.mcpName) => checkServerJson(serverJson, { packageJson: { ...packageJson, mcpName } });

/** A copy of the committed server.json, changed by `edit`. */
function broken(edit: (copy: any) => void): unknown {
  const copy = structuredClone(committed);
  edit(copy);
  return copy;
}

/** The packages by what they are: npm over stdio, npm over HTTP, the bundle. */
const npmStdio = committed.packages.find((pkg: any) => pkg.registryType === 'npm' && pkg.transport.type === 'stdio');
const npmHttp = committed.packages.find((pkg: any) => pkg.registryType === 'npm' && pkg.transport.type === 'streamable-http');
const mcpb = committed.packages.find((pkg: any) => pkg.registryType === 'mcpb');

/** The arguments a host would pass: each value or default, a sample where there is none, repeated ones twice. */
function commandLine(args: readonly any[]): string[] {
  const samples: Record<string, string[]> = { '--root': ['/srv', '/data'], '--prometheus': ['http://prometheus:9090'] };
  return args.flatMap((arg) => {
    if (arg.type === 'positional') return [arg.value];
    const values = arg.value ?? arg.default ?? samples[arg.name];
    if (values === undefined) throw new Error(`no sample value for ${arg.name}`);
    return (Array.isArray(values) ? values : [values]).flatMap((value: string) => [arg.name, value]);
  });
}

describe('the vendored registry schema', () => {
  it('is the published 2025-12-11 file, the one server.json names', () => {
    const bytes = readFileSync(REGISTRY_SCHEMA.path);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(REGISTRY_SCHEMA.sha256);
    expect(JSON.parse(bytes.toString('utf8')).$id).toBe(REGISTRY_SCHEMA.url);
    expect(committed.$schema).toBe(REGISTRY_SCHEMA.url);
  });
});

describe('server.json as committed', () => {
  it('passes the schema and every rule, its fileSha256 a placeholder until a release is built', () => {
    expect(check(committed)).toEqual([]);
    expect(mcpb.fileSha256).toBe('0'.repeat(64));
    expect(checkServerJson(committed, { packageJson, mcpbSha256: 'a'.repeat(64) })).toEqual([
      `packages[2].fileSha256: '${'0'.repeat(64)}' is not the built file's sha256 '${'a'.repeat(64)}'`,
    ]);
  });

  it("names package.json's mcpName, version and package, and the release's .mcpb", () => {
    expect(committed.name).toBe('io.github.diskprobe/diskprobe');
    expect(packageJson.mcpName).toBe(committed.name);
    expect(committed.packages.map((pkg: any) => [pkg.registryType, pkg.identifier, pkg.version, pkg.transport.type])).toEqual([
      ['npm', 'diskprobe', version, 'stdio'],
      ['npm', 'diskprobe', version, 'streamable-http'],
      ['mcpb', `https://github.com/diskprobe/diskprobe/releases/download/v${version}/diskprobe-${version}.mcpb`, version, 'stdio'],
    ]);
  });

  it("starts a stdio server diskprobe's command line accepts, with every root", () => {
    const argv = commandLine(npmStdio.packageArguments);
    expect(argv).toEqual(['serve', '--root', '/srv', '--root', '/data', '--probe-timeout', '5000', '--prometheus', 'http://prometheus:9090']);
    const command = parseCommandLine(argv, {});
    expect(command.kind).toBe('serve');
    const options = (command as { options: ServeOptions }).options;
    expect(options).toMatchObject({ roots: ['/srv', '/data'], probeTimeout: 5000, http: undefined });
    expect(options.prometheus?.url.href).toBe('http://prometheus:9090/');
  });

  it('starts an HTTP server at the URL the package names', () => {
    // `serve --http` takes [host:]port. The package gives it the port alone, so
    // the server listens on 127.0.0.1, and the URL names the argument itself:
    // `{--http}`. The schema defines valueHint on positional arguments only
    // (NamedArgument has name, isRepeated and the Input fields), so
    // `"valueHint": "port"` on --http with `{port}` in the URL would validate only
    // because the schema allows unknown fields, and a client need not honour it.
    // An argument's name is the other thing a package URL may use (the schema's
    // StreamableHttpTransport.url; validators.go, collectAvailableVariables), as
    // the registry's own example does ("http://localhost:{--port}/mcp",
    // generic-server-json.md, "Local Server with URL Templating").
    expect(npmHttp.transport.url).toBe('http://127.0.0.1:{--http}/mcp');
    const argv = commandLine(npmHttp.packageArguments);
    const port = argv[argv.indexOf('--http') + 1]!;
    const options = (parseCommandLine(argv, {}) as { options: ServeOptions }).options;
    expect(options.http).toMatchObject({ host: '127.0.0.1', port: Number(port) });
    expect(options.roots).toEqual(['/srv', '/data']);
    expect(npmHttp.transport.url.replace('{--http}', port)).toBe(`http://${options.http!.host}:${options.http!.port}/mcp`);
  });
});

describe('the schema', () => {
  it('refuses a description over 100 characters, and a name with two slashes', () => {
    expect(check(broken((copy) => (copy.description = 'x'.repeat(101))))).toEqual(['schema: /description must NOT have more than 100 characters']);
    expect(check(broken((copy) => (copy.name = 'io.github.diskprobe/disk/probe')))).toEqual([
      'schema: /name must match pattern "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"',
    ]);
  });
});

describe('the rules beyond the schema each catch the copy that breaks them', () => {
  const url = mcpb.identifier as string;
  it.each<[string, (copy: any) => void, string[], string?]>([
    [
      "a name part that ends in '-' (the registry's name pattern, stricter than the schema's)",
      (copy) => (copy.name = 'io.github.diskprobe/diskprobe-'),
      ["name: 'io.github.diskprobe/diskprobe-' is not 'namespace/name' with one slash, each part beginning and ending with a letter or digit"],
      'io.github.diskprobe/diskprobe-',
    ],
    [
      "a name other than package.json's mcpName",
      (copy) => (copy.name = 'io.github.other/diskprobe'),
      ["name: 'io.github.other/diskprobe' is not package.json's mcpName 'io.github.diskprobe/diskprobe'"],
    ],
    ['a server version of "latest"', (copy) => (copy.version = 'latest'), ["version: 'latest' is reserved; the registry wants one exact version"]],
    ["a server version other than package.json's", (copy) => (copy.version = '9.9.9'), [`version: '9.9.9' is not package.json's version '${version}'`]],
    [
      'a package version that is a range',
      (copy) => (copy.packages[0].version = `^${version}`),
      [`packages[0].version: '^${version}' looks like a version range; the registry wants one exact version`],
    ],
    [
      'a package version that is a wildcard',
      (copy) => (copy.packages[1].version = '0.x'),
      ["packages[1].version: '0.x' looks like a version range; the registry wants one exact version"],
    ],
    [
      "a package version other than package.json's",
      (copy) => (copy.packages[2].version = '0.0.9'),
      [`packages[2].version: '0.0.9' is not package.json's version '${version}'`],
    ],
    [
      'a package without a version',
      (copy) => delete copy.packages[0].version,
      [`packages[0].version: missing; it must be package.json's version '${version}'`],
    ],
    [
      "an npm identifier other than package.json's name",
      (copy) => (copy.packages[0].identifier = 'diskprobe-cli'),
      ["packages[0].identifier: 'diskprobe-cli' is not package.json's name 'diskprobe'"],
    ],
    [
      'an npm registry other than registry.npmjs.org',
      (copy) => (copy.packages[1].registryBaseUrl = 'https://npm.example.com'),
      ["packages[1].registryBaseUrl: 'https://npm.example.com' is not https://registry.npmjs.org, the only npm registry allowed"],
    ],
    [
      'an .mcpb URL over http',
      (copy) => (copy.packages[2].identifier = url.replace('https:', 'http:')),
      [`packages[2].identifier: '${url.replace('https:', 'http:')}' is not https`],
    ],
    [
      'an .mcpb URL without "mcp" in it',
      (copy) => (copy.packages[2].identifier = url.replace(/\.mcpb$/, '.zip')),
      [
        `packages[2].identifier: '${url.replace(/\.mcpb$/, '.zip')}' does not contain "mcp"`,
        `packages[2].identifier: the file 'diskprobe-${version}.zip' is not 'diskprobe-${version}.mcpb'`,
      ],
    ],
    [
      'an .mcpb that is no GitHub release asset',
      (copy) => (copy.packages[2].identifier = `https://example.com/mcp/diskprobe-${version}.mcpb`),
      [
        `packages[2].identifier: 'https://example.com/mcp/diskprobe-${version}.mcpb' is not a GitHub release asset (https://github.com/<owner>/<repo>/releases/download/<tag>/<file>)`,
      ],
    ],
    [
      "an .mcpb released from another repository than the server's",
      (copy) => (copy.packages[2].identifier = url.replace('diskprobe/diskprobe', 'someone/diskprobe')),
      ["packages[2].identifier: the release is someone/diskprobe's, not the repository's (https://github.com/diskprobe/diskprobe)"],
    ],
    [
      "an .mcpb under another version's tag",
      (copy) => (copy.packages[2].identifier = url.replace(`/v${version}/`, '/v0.0.9/')),
      [`packages[2].identifier: the release tag 'v0.0.9' is not 'v${version}'`],
    ],
    [
      'an .mcpb file named for another version',
      (copy) => (copy.packages[2].identifier = url.replace(`diskprobe-${version}.mcpb`, 'diskprobe-0.0.9.mcpb')),
      [`packages[2].identifier: the file 'diskprobe-0.0.9.mcpb' is not 'diskprobe-${version}.mcpb'`],
    ],
    [
      'an .mcpb without its sha256',
      (copy) => delete copy.packages[2].fileSha256,
      ["packages[2].fileSha256: an mcpb package needs the file's sha256 (package-types.mdx)"],
    ],
    [
      'a stdio transport with a url',
      (copy) => (copy.packages[0].transport.url = 'http://127.0.0.1:8080/mcp'),
      ["packages[0].transport.url: a stdio transport has no url, but it is 'http://127.0.0.1:8080/mcp'"],
    ],
    [
      'an HTTP URL naming a variable no argument defines',
      (copy) => (copy.packages[1].transport.url = 'http://127.0.0.1:{port}/mcp'),
      [
        "packages[1].transport.url: {port} in 'http://127.0.0.1:{port}/mcp' names no argument or environment variable (available: --http, --root, --probe-timeout, --prometheus)",
      ],
    ],
    [
      'an HTTP URL that is no URL once filled in',
      (copy) => (copy.packages[1].transport.url = 'http://{--root}:{--http}:{--http}/mcp'),
      ["packages[1].transport.url: 'http://{--root}:{--http}:{--http}/mcp' is no http(s) URL once its variables are filled in"],
    ],
    [
      "a named argument's name holding its value",
      (copy) => (copy.packages[0].packageArguments[2].name = '--probe-timeout <ms>'),
      ["packages[0].packageArguments[2].name: '--probe-timeout <ms>' holds a space, '<', '>' or '$'; a named argument's name is the flag alone"],
    ],
    [
      "a named argument's default starting with its name",
      (copy) => (copy.packages[0].packageArguments[2].default = '--probe-timeout=5000'),
      ["packages[0].packageArguments[2].default: '--probe-timeout=5000' starts with the argument's name '--probe-timeout'"],
    ],
    [
      "a repository URL that is no GitHub repository (and so no longer the .mcpb release's)",
      (copy) => (copy.repository.url = 'https://github.com/diskprobe'),
      [
        "repository: 'https://github.com/diskprobe' (github) is not a GitHub repository URL",
        "packages[2].identifier: the release is diskprobe/diskprobe's, not the repository's (https://github.com/diskprobe)",
      ],
    ],
    ['a websiteUrl over http', (copy) => (copy.websiteUrl = 'http://diskprobe.example'), ["websiteUrl: 'http://diskprobe.example' is not https"]],
  ])('%s', (_, edit, problems, mcpName) => {
    expect(check(broken(edit), mcpName)).toEqual(problems);
  });
});
