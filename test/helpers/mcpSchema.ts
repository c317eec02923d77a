// Checks what an MCP server writes against the official JSON Schema of the
// negotiated protocol version, as published by the specification project and
// vendored in test/fixtures/mcp-schema/<version>/schema.json (see its README).
// The schemas are data we do not edit: where one of them disagrees with JSON-RPC
// 2.0 (an error response's `id: null`), this file says so rather than patch it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
// ajv-formats is CommonJS with `exports.default`; under NodeNext the default
// import is the whole module, so the plugin is its `.default`.
import ajvFormats from 'ajv-formats';

import { projectRoot } from './system.js';

/** The versions agreed by the initialize handshake. */
export type LegacyVersion = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25';
/** Every version whose schema messages can be checked against: the handshake versions and 2026-07-28, named per request. */
export type ProtocolVersion = LegacyVersion | typeof MODERN_VERSION;

export const PROTOCOL_VERSIONS: readonly LegacyVersion[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const MODERN_VERSION = '2026-07-28';

/** Where the vendored schemas live: `<version>/schema.json`, with SHA256SUMS beside them. */
export const schemaDir = resolve(projectRoot, 'test/fixtures/mcp-schema');
const schemaPath = (version: string): string => resolve(schemaDir, version, 'schema.json');

/**
 * The one problem `validateServerMessage` reports for an error response whose
 * `id` is null, so a test can tolerate exactly that and nothing else.
 *
 * JSON-RPC 2.0 §5 says the id MUST be null when the request's id could not be
 * read (parse error, invalid request), but every MCP schema types the id as
 * RequestId = string | integer. Through 2025-06-18 JSONRPCError also requires
 * `id`; 2025-11-25's JSONRPCErrorResponse makes it optional (absent is valid,
 * null still is not).
 */
export const NULL_ID_PROBLEM =
  'id is null: JSON-RPC 2.0 §5 requires null when the request id could not be read, but the MCP schema types id as string | integer';

/** Names the versions' schemas give the two response envelopes. */
const ENVELOPES: Record<ProtocolVersion, { readonly result: string; readonly error: string }> = {
  '2024-11-05': { result: 'JSONRPCResponse', error: 'JSONRPCError' },
  '2025-03-26': { result: 'JSONRPCResponse', error: 'JSONRPCError' },
  '2025-06-18': { result: 'JSONRPCResponse', error: 'JSONRPCError' },
  // 2025-11-25 renamed both; its JSONRPCResponse is now the union of the two.
  '2025-11-25': { result: 'JSONRPCResultResponse', error: 'JSONRPCErrorResponse' },
  '2026-07-28': { result: 'JSONRPCResultResponse', error: 'JSONRPCErrorResponse' },
};

/** The result definition that answers each request method a server handles. */
const RESULT_DEFINITIONS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult',
  // 2026-07-28
  'server/discover': 'DiscoverResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

interface LoadedSchema {
  readonly ajv: Ajv | Ajv2020;
  /** `definitions` (draft-07) or `$defs` (2020-12). */
  readonly defsKeyword: string;
  readonly definitions: Readonly<Record<string, AnySchemaObject>>;
  readonly validators: Map<string, ValidateFunction>;
}

const loaded = new Map<ProtocolVersion, LoadedSchema>();

function load(version: ProtocolVersion): LoadedSchema {
  const cached = loaded.get(version);
  if (cached) return cached;
  const document = JSON.parse(readFileSync(schemaPath(version), 'utf8')) as AnySchemaObject;
  const defsKeyword = '$defs' in document ? '$defs' : 'definitions';
  // strict: false because the schemas are generated, not written for ajv, and
  // ajv's strict mode rejects some harmless constructs in them. allErrors so a
  // broken message shows all its problems; verbose so problems can show the
  // offending value.
  const options = { strict: false, allErrors: true, verbose: true };
  const ajv = defsKeyword === '$defs' ? new Ajv2020(options) : new Ajv(options);
  // The schemas use the formats uri, uri-template and byte (base64); without
  // ajv-formats they would be ignored, and a malformed resource URI would pass.
  ajvFormats.default(ajv);
  // The whole document is added once, so `#/definitions/X` references inside
  // it resolve; each definition is compiled on first use.
  ajv.addSchema(document, version);
  const schema: LoadedSchema = {
    ajv,
    defsKeyword,
    definitions: document[defsKeyword] as Record<string, AnySchemaObject>,
    validators: new Map(),
  };
  loaded.set(version, schema);
  return schema;
}

function hasDefinition(version: ProtocolVersion, name: string): boolean {
  return Object.hasOwn(load(version).definitions, name);
}

/**
 * Validates `value` against definition `name` of `version` (e.g. 'InitializeResult', 'CallToolResult',
 * 'JSONRPCError', 'ServerNotification'). Returns human-readable problems, empty when valid.
 * Throws if that version's schema has no such definition.
 */
export function validateDefinition(version: ProtocolVersion, name: string, value: unknown): string[] {
  return check(version, name, value, '');
}

/** `check` reports paths as JSON pointers into the whole message: `at` is where `value` sits in it. */
function check(version: ProtocolVersion, name: string, value: unknown, at: string): string[] {
  const schema = load(version);
  let validate = schema.validators.get(name);
  if (!validate) {
    if (!hasDefinition(version, name)) throw new Error(`MCP ${version} has no definition named ${name}`);
    validate = schema.ajv.getSchema(`${version}#/${schema.defsKeyword}/${name}`);
    if (!validate) throw new Error(`ajv could not compile ${name} of MCP ${version}`);
    schema.validators.set(name, validate);
  }
  if (validate(value)) return [];
  return explain(version, name, validate.errors ?? [], at);
}

/**
 * Turns ajv's errors into one line per problem. A failed anyOf over tagged
 * definitions (content blocks by `type`, notifications by `method`) makes ajv
 * report every branch's mismatch; instead, the branch whose tag matches is
 * validated on its own, or, when no tag matches, one line names the allowed tags.
 */
function explain(version: ProtocolVersion, name: string, errors: readonly ErrorObject[], at: string): string[] {
  const problems: string[] = [];
  const explained: string[] = [];
  const within = (path: string, base: string): boolean => path === base || path.startsWith(`${base}/`);
  const anyOfs = errors.filter((error) => error.keyword === 'anyOf').sort((a, b) => a.instancePath.length - b.instancePath.length);
  for (const error of anyOfs) {
    if (explained.some((base) => within(error.instancePath, base))) continue;
    const tagged = taggedBranches(version, error);
    if (!tagged) continue;
    explained.push(error.instancePath);
    const where = at + error.instancePath;
    const match = tagged.branches.find((branch) => branch.tag === tagged.value);
    if (match) {
      problems.push(...check(version, match.name, error.data, where));
    } else {
      const allowed = tagged.branches.map((branch) => JSON.stringify(branch.tag)).join(', ');
      problems.push(`${name} at ${where || '/'}: ${tagged.key} ${preview(tagged.value)} is none of ${allowed}`);
    }
  }
  for (const error of errors) {
    if (explained.some((base) => within(error.instancePath, base))) continue;
    problems.push(`${name} at ${at + error.instancePath || '/'}: ${error.message ?? error.keyword}${detail(error)}`);
  }
  return [...new Set(problems)];
}

interface TaggedBranches {
  readonly key: string;
  readonly value: unknown;
  readonly branches: readonly { readonly name: string; readonly tag: string }[];
}

/** The branches of a failed anyOf of `$ref`s that share a `const` property such as `type` or `method`. */
function taggedBranches(version: ProtocolVersion, error: ErrorObject): TaggedBranches | undefined {
  const { definitions, defsKeyword } = load(version);
  const options: unknown = error.schema;
  const data: unknown = error.data;
  if (!Array.isArray(options) || !isRecord(data)) return undefined;
  const prefix = `#/${defsKeyword}/`;
  const names: string[] = [];
  for (const option of options) {
    const ref: unknown = isRecord(option) ? option.$ref : undefined;
    if (typeof ref !== 'string' || !ref.startsWith(prefix)) return undefined;
    names.push(ref.slice(prefix.length));
  }
  const constOf = (definition: string, key: string): unknown => {
    const properties: unknown = definitions[definition]?.properties;
    const property: unknown = isRecord(properties) ? properties[key] : undefined;
    return isRecord(property) ? property.const : undefined;
  };
  for (const key of ['type', 'method']) {
    const branches = names.map((branch) => ({ name: branch, tag: constOf(branch, key) }));
    if (branches.every((branch): branch is { name: string; tag: string } => typeof branch.tag === 'string')) {
      return { key, value: data[key], branches };
    }
  }
  return undefined;
}

function detail(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'const':
      return ` ${JSON.stringify(params.allowedValue)}, got ${preview(error.data)}`;
    case 'enum':
      return ` (${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}), got ${preview(error.data)}`;
    case 'type':
    case 'format':
      return `, got ${preview(error.data)}`;
    default:
      return '';
  }
}

function preview(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates one complete message a server wrote (a parsed JSON line) for `version`.
 * `requestMethod` is the method of the request it answers: with it, a result is also checked
 * against that method's result definition (tools/call → CallToolResult, …); without it
 * (notifications, error responses, responses to unknown requests) only the envelope is.
 * Elements of a batch are checked as envelopes only, since each answers a different request.
 * Returns human-readable problems, empty when valid.
 */
export function validateServerMessage(version: ProtocolVersion, message: unknown, requestMethod?: string): string[] {
  if (Array.isArray(message)) return validateBatch(version, message);
  return validateSingle(version, message, requestMethod, '');
}

function validateBatch(version: ProtocolVersion, batch: readonly unknown[]): string[] {
  const problems: string[] = [];
  // Batches came in with 2025-03-26 and left again with 2025-06-18; the schema
  // is the judge of which versions have them.
  if (!hasDefinition(version, 'JSONRPCBatchResponse')) {
    problems.push(`a batch (JSON array) is not a message in ${version}: its schema has no JSONRPCBatchResponse`);
  }
  // JSON-RPC 2.0 §6: with nothing to answer, the server sends nothing, not [].
  if (batch.length === 0) problems.push('an empty batch: JSON-RPC 2.0 §6 says to send nothing instead');
  batch.forEach((element, index) => {
    // JSONRPCBatchResponse's items are responses only.
    if (isRecord(element) && !('result' in element) && !('error' in element)) {
      problems.push(`/${index}: a batch response may hold only responses (result or error)`);
    }
    problems.push(...validateSingle(version, element, undefined, `/${index}`));
  });
  return problems;
}

function validateSingle(version: ProtocolVersion, message: unknown, requestMethod: string | undefined, at: string): string[] {
  const where = at || '/';
  if (!isRecord(message)) return [`${where}: a message must be a JSON object, got ${preview(message)}`];
  const envelope = ENVELOPES[version];

  if ('error' in message) {
    const problems: string[] = [];
    if ('result' in message) problems.push(`${where}: has both result and error (JSON-RPC 2.0 §5 allows one)`);
    let response = message;
    if (message.id === null) {
      problems.push(NULL_ID_PROBLEM);
      // A stand-in id, so the rest of the response is still checked.
      response = { ...message, id: 0 };
    }
    problems.push(...check(version, envelope.error, response, at));
    return problems;
  }

  if ('result' in message) {
    const problems = check(version, envelope.result, message, at);
    if (requestMethod !== undefined) {
      const definition = RESULT_DEFINITIONS[requestMethod];
      if (definition === undefined) problems.push(`${where}: no result definition is known for method ${requestMethod}`);
      else problems.push(...check(version, definition, message.result, `${at}/result`));
    }
    return problems;
  }

  if ('method' in message) {
    // The older schemas' notification and request definitions describe only
    // method and params, so the envelope is checked as well for jsonrpc and id.
    return 'id' in message
      ? [...check(version, 'JSONRPCRequest', message, at), ...check(version, 'ServerRequest', message, at)]
      : [...check(version, 'JSONRPCNotification', message, at), ...check(version, 'ServerNotification', message, at)];
  }

  return [`${where}: neither a response (result or error) nor a notification or request (method)`];
}
