// What the official MCP Registry checks in a server.json when a server is
// published, so that a release's server.json is known good before
// `mcp-publisher publish` sends it. First the registry's JSON Schema (vendored
// in test/fixtures/mcp-registry, see its README); then the rules the schema
// cannot express, ported from the registry's Go validators
// (modelcontextprotocol/registry, internal/validators/validators.go, utils.go,
// registries/npm.go, registries/mcpb.go); then diskprobe's own: every version is
// package.json's, and the packages are this one's.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
// ajv-formats is CommonJS with `exports.default` (see test/helpers/mcpSchema.ts).
import ajvFormats from 'ajv-formats';

import { projectRoot } from '../helpers/system.js';

/** The schema server.json names in `$schema`, and the sha256 of its published bytes. */
export const REGISTRY_SCHEMA = {
  url: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  path: resolve(projectRoot, 'test/fixtures/mcp-registry/server.schema.2025-12-11.json'),
  sha256: '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0',
} as const;

export interface ServerJsonOptions {
  /** The package.json the release is built from. */
  readonly packageJson: { readonly name: string; readonly version: string; readonly mcpName?: string | undefined };
  /** The sha256 of the .mcpb file actually built; without it, the committed placeholder is accepted. */
  readonly mcpbSha256?: string | undefined;
}

// The parts of a server.json the rules read, as the schema has already shaped them.
interface Argument {
  readonly type: 'positional' | 'named';
  readonly name?: string;
  readonly valueHint?: string;
  readonly value?: string;
  readonly default?: string;
}
interface Package {
  readonly registryType: string;
  readonly registryBaseUrl?: string;
  readonly identifier: string;
  readonly version?: string;
  readonly fileSha256?: string;
  readonly transport: { readonly type: string; readonly url?: string };
  readonly runtimeArguments?: readonly Argument[];
  readonly packageArguments?: readonly Argument[];
  readonly environmentVariables?: readonly { readonly name: string }[];
}
interface ServerJson {
  readonly name: string;
  readonly version: string;
  readonly websiteUrl?: string;
  readonly repository?: { readonly url: string; readonly source: string };
  readonly packages?: readonly Package[];
}

let validateSchema: ValidateFunction | undefined;

/** Schema problems, as `schema: <where> <what>`. */
function schemaProblems(serverJson: unknown): string[] {
  if (validateSchema === undefined) {
    // strict: false, because the generated schema uses `example`, which is no JSON Schema keyword.
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    validateSchema = ajv.compile(JSON.parse(readFileSync(REGISTRY_SCHEMA.path, 'utf8')));
  }
  if (validateSchema(serverJson)) return [];
  return (validateSchema.errors ?? []).map((error: ErrorObject) => `schema: ${error.instancePath || '(root)'} ${error.message}`);
}

// validators.go: namespacePattern and namePartPattern. The schema's pattern lets
// a part begin or end with '.' or '-'; the registry does not.
const SERVER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]\/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;

// validators.go, looksLikeVersionRange: comparator, hyphen and || ranges, and x/X/* wildcards.
const PART = String.raw`v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?`;
const RANGES = [
  new RegExp(String.raw`^\s*(?:\^|~|>=|<=|>|<|=)\s*${PART}\s*$`),
  new RegExp(String.raw`^\s*${PART}\s-\s*${PART}\s*$`),
  new RegExp(String.raw`^\s*(?:${PART}\s*)(?:\|\|\s*${PART}\s*)+$`),
];
const DOTTED_WILDCARD = /^\s*(?:v?\d+|x|X|\*)(?:\.(?:\d+|x|X|\*)){1,2}(?:-[0-9A-Za-z.-]+)?\s*$/;

function versionProblem(where: string, version: string, expected: string): string | undefined {
  // validators.go, validateVersion.
  if (version === 'latest') return `${where}: 'latest' is reserved; the registry wants one exact version`;
  const trimmed = version.trim();
  if (RANGES.some((range) => range.test(trimmed)) || (DOTTED_WILDCARD.test(trimmed) && /[xX*]/.test(trimmed))) {
    return `${where}: '${version}' looks like a version range; the registry wants one exact version`;
  }
  if (version !== expected) return `${where}: '${version}' is not package.json's version '${expected}'`;
  return undefined;
}

/** utils.go: the names a package's transport URL may use in {braces}. */
function templateVariables(pkg: Package): string[] {
  const args = [...(pkg.runtimeArguments ?? []), ...(pkg.packageArguments ?? [])];
  return [
    ...(pkg.environmentVariables ?? []).map((variable) => variable.name),
    ...args.flatMap((arg) => [arg.name, arg.valueHint].filter((name): name is string => name !== undefined && name !== '')),
  ];
}

/** utils.go, IsValidURL: the URL parses once each {variable} is replaced (a port by 8080), and is http(s) with a host. */
function isValidTemplatedUrl(url: string): boolean {
  const filled = url.replace(/:(\{[^}]+\})(\/|$)/g, ':8080$2').replace(/\{[^}]+\}/g, 'placeholder');
  if (!URL.canParse(filled)) return false;
  const parsed = new URL(filled);
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host !== '';
}

function transportProblems(where: string, pkg: Package): string[] {
  const { type, url } = pkg.transport;
  if (type === 'stdio') return url === undefined || url === '' ? [] : [`${where}.transport.url: a stdio transport has no url, but it is '${url}'`];
  if (url === undefined || url === '') return [`${where}.transport.url: a ${type} transport needs a url`];
  const available = templateVariables(pkg);
  const unknown = [...url.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!).filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    return [
      `${where}.transport.url: ${unknown.map((name) => `{${name}}`).join(', ')} in '${url}' names no argument or environment variable (available: ${available.join(', ')})`,
    ];
  }
  return isValidTemplatedUrl(url) ? [] : [`${where}.transport.url: '${url}' is no http(s) URL once its variables are filled in`];
}

/** validators.go, validateArgument: a named argument's name is the flag alone. */
function argumentProblems(where: string, args: readonly Argument[] | undefined): string[] {
  return (args ?? []).flatMap((arg, i) => {
    if (arg.type !== 'named') return [];
    const at = `${where}[${i}]`;
    const name = arg.name ?? '';
    if (name === '') return [`${at}.name: a named argument needs a name`];
    if (/[ <>$]/.test(name)) return [`${at}.name: '${name}' holds a space, '<', '>' or '$'; a named argument's name is the flag alone`];
    return (['value', 'default'] as const)
      .filter((field) => arg[field]?.startsWith(name))
      .map((field) => `${at}.${field}: '${arg[field]}' starts with the argument's name '${name}'`);
  });
}

// A GitHub release asset (the scheme is checked on its own): https://github.com/<owner>/<repo>/releases/download/<tag>/<file>.
const RELEASE_ASSET = /^https?:\/\/github\.com\/([\w.-]+\/[\w.-]+)\/releases\/download\/([^/]+)\/([^/]+)$/;

/**
 * An .mcpb's URL: https and containing "mcp" (registries/mcpb.go), a GitHub
 * release asset (official-registry-requirements.md: "MCPB: https://github.com
 * releases and https://gitlab.com releases only") of the server's repository,
 * at tag v<version>, named <package>-<version>.mcpb (what `npm run bundle:mcpb` writes).
 */
function mcpbProblems(where: string, pkg: Package, server: ServerJson, options: ServerJsonOptions): string[] {
  const { name, version } = options.packageJson;
  const id = pkg.identifier;
  const problems: string[] = [];
  if (!id.startsWith('https://')) problems.push(`${where}.identifier: '${id}' is not https`);
  if (!id.toLowerCase().includes('mcp')) problems.push(`${where}.identifier: '${id}' does not contain "mcp"`);
  const asset = RELEASE_ASSET.exec(id);
  if (asset === null) {
    problems.push(`${where}.identifier: '${id}' is not a GitHub release asset (https://github.com/<owner>/<repo>/releases/download/<tag>/<file>)`);
  } else {
    const [, repository, tag, file] = asset;
    if (`https://github.com/${repository}` !== server.repository?.url.replace(/\/$/, '')) {
      problems.push(`${where}.identifier: the release is ${repository}'s, not the repository's (${server.repository?.url ?? 'none'})`);
    }
    if (tag !== `v${version}`) problems.push(`${where}.identifier: the release tag '${tag}' is not 'v${version}'`);
    if (file !== `${name}-${version}.mcpb`) problems.push(`${where}.identifier: the file '${file}' is not '${name}-${version}.mcpb'`);
  }
  if (pkg.fileSha256 === undefined) problems.push(`${where}.fileSha256: an mcpb package needs the file's sha256 (package-types.mdx)`);
  else if (options.mcpbSha256 !== undefined && pkg.fileSha256 !== options.mcpbSha256) {
    problems.push(`${where}.fileSha256: '${pkg.fileSha256}' is not the built file's sha256 '${options.mcpbSha256}'`);
  }
  return problems;
}

function packageProblems(pkg: Package, index: number, server: ServerJson, options: ServerJsonOptions): string[] {
  const where = `packages[${index}]`;
  const problems: string[] = [];
  const version =
    pkg.version === undefined
      ? `${where}.version: missing; it must be package.json's version '${options.packageJson.version}'`
      : versionProblem(`${where}.version`, pkg.version, options.packageJson.version);
  if (version !== undefined) problems.push(version);
  problems.push(...argumentProblems(`${where}.runtimeArguments`, pkg.runtimeArguments));
  problems.push(...argumentProblems(`${where}.packageArguments`, pkg.packageArguments));
  problems.push(...transportProblems(where, pkg));
  if (pkg.registryType === 'npm') {
    // registries/npm.go reads mcpName from registry.npmjs.org/<identifier>/<version>, the only npm registry allowed.
    if (pkg.identifier !== options.packageJson.name) {
      problems.push(`${where}.identifier: '${pkg.identifier}' is not package.json's name '${options.packageJson.name}'`);
    }
    if (pkg.registryBaseUrl !== undefined && pkg.registryBaseUrl !== 'https://registry.npmjs.org') {
      problems.push(`${where}.registryBaseUrl: '${pkg.registryBaseUrl}' is not https://registry.npmjs.org, the only npm registry allowed`);
    }
  } else if (pkg.registryType === 'mcpb') {
    problems.push(...mcpbProblems(where, pkg, server, options));
  } else {
    problems.push(`${where}.registryType: '${pkg.registryType}' is not one diskprobe publishes (npm, mcpb)`);
  }
  return problems;
}

function serverProblems(server: ServerJson, options: ServerJsonOptions): string[] {
  const problems: string[] = [];
  if (!SERVER_NAME.test(server.name)) {
    problems.push(`name: '${server.name}' is not 'namespace/name' with one slash, each part beginning and ending with a letter or digit`);
  }
  // registries/npm.go: the published package.json's mcpName must be the server's name.
  if (server.name !== options.packageJson.mcpName) {
    problems.push(`name: '${server.name}' is not package.json's mcpName '${options.packageJson.mcpName ?? '(none)'}'`);
  }
  const version = versionProblem('version', server.version, options.packageJson.version);
  if (version !== undefined) problems.push(version);
  // validators.go, validateRepository: the source's own URL form.
  if (
    server.repository !== undefined &&
    !(server.repository.source === 'github' && /^https?:\/\/(www\.)?github\.com\/[\w.-]+\/[\w.-]+\/?$/.test(server.repository.url))
  ) {
    problems.push(`repository: '${server.repository.url}' (${server.repository.source}) is not a GitHub repository URL`);
  }
  if (server.websiteUrl !== undefined && !server.websiteUrl.startsWith('https://')) problems.push(`websiteUrl: '${server.websiteUrl}' is not https`);
  return problems;
}

/**
 * Every problem the registry, or diskprobe's release, would have with
 * `serverJson`; empty when there is none. The rules beyond the schema read a
 * schema-valid document, so they run only once the schema passes.
 */
export function checkServerJson(serverJson: unknown, options: ServerJsonOptions): string[] {
  const schema = schemaProblems(serverJson);
  if (schema.length > 0) return schema;
  const server = serverJson as ServerJson;
  return [...serverProblems(server, options), ...(server.packages ?? []).flatMap((pkg, index) => packageProblems(pkg, index, server, options))];
}
