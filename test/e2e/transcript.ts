// The conversation with a server as the client saw it, both directions, and
// the check of every line the server wrote: a complete line of UTF-8 JSON,
// valid for its protocol version, and, for a response, for the method of the
// request it answers. A line's version is its request's when that request
// named one in _meta (2026-07-28: a response, the request's progress, a
// subscription's notifications), else the version in force (the one
// initialize agreed). No I/O: the client feeds it bytes.
import { MODERN_VERSION, NULL_ID_PROBLEM, PROTOCOL_VERSIONS, type ProtocolVersion, validateServerMessage } from '../helpers/mcpSchema.js';

export type RequestId = string | number;

/** A result as the test reads it; its shape is what the schema check vouches for. */
export type Result = Record<string, any>;

/** One response: `result` or `error`, never both (the schema check enforces it). */
export interface RpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly result?: Result;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** One line the server wrote. */
export interface Received {
  /** Position among the lines, from 0. */
  readonly index: number;
  /** The line as written, without its newline. */
  readonly line: string;
  /** The parsed line; undefined if it was not JSON (which is itself a problem). */
  readonly message: unknown;
  /** The protocol version it was checked against. */
  readonly version: ProtocolVersion;
  /** For a response: the method of the request it answers, when the client sent that request. */
  readonly requestMethod: string | undefined;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const isResponse = (value: unknown): value is RpcResponse => isRecord(value) && !('method' in value) && ('result' in value || 'error' in value);

/** A message with the given id: 1 and "1" differ. */
export const withId =
  (id: RequestId | null) =>
  (message: unknown): boolean =>
    isRecord(message) && message.id === id;

const isKnownVersion = (value: unknown): value is ProtocolVersion => (PROTOCOL_VERSIONS as readonly unknown[]).includes(value);

/** The version a request names in its _meta, if it names 2026-07-28. */
function modernVersionOf(request: Record<string, unknown>): ProtocolVersion | undefined {
  const meta = isRecord(request.params) ? request.params._meta : undefined;
  return isRecord(meta) && meta['io.modelcontextprotocol/protocolVersion'] === MODERN_VERSION ? MODERN_VERSION : undefined;
}

/** Ids as map keys: 1 and "1" are different ids. */
const idKey = (id: unknown): string => JSON.stringify(id);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Splits bytes into complete lines; keeps the unfinished tail. */
class LineSplitter {
  private tail = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let data = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a)) {
      lines.push(data.subarray(0, newline));
      data = data.subarray(newline + 1);
    }
    this.tail = Buffer.from(data);
    return lines;
  }

  /** Bytes after the last newline. */
  get pending(): number {
    return this.tail.length;
  }
}

export class Transcript {
  /** Every line the server wrote, in order. */
  readonly received: Received[] = [];
  /** What is wrong with them: schema violations, and anything that is not a complete JSON line. */
  readonly problems: string[] = [];

  private readonly incoming = new LineSplitter();
  private readonly outgoing = new LineSplitter();
  private readonly chunks: Buffer[] = [];
  /** Method of each request sent and not yet answered, by idKey. */
  private readonly methods = new Map<string, string>();
  /** The version 2026-07-28 requests named, by idKey of their id, and of their progress token. */
  private readonly requestVersions = new Map<string, ProtocolVersion>();
  private readonly tokenVersions = new Map<string, ProtocolVersion>();
  private current: ProtocolVersion;
  private negotiated = false;

  /** `version`: what to check against until an initialize is sent or answered. */
  constructor(version: ProtocolVersion) {
    this.current = version;
  }

  /** The protocol version lines are checked against now. */
  get version(): ProtocolVersion {
    return this.current;
  }

  /** Everything the server wrote, as bytes. */
  get stdout(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** Bytes the server wrote after its last newline: at the end, a problem. */
  get unfinishedBytes(): number {
    return this.incoming.pending;
  }

  /** Bytes the client wrote: request methods are remembered by id, and the version an initialize asks for. */
  sent(bytes: Buffer): void {
    for (const line of this.outgoing.push(bytes)) {
      let message: unknown;
      try {
        message = JSON.parse(strictUtf8.decode(line));
      } catch {
        continue; // deliberately broken input: no request to answer with a result
      }
      for (const item of Array.isArray(message) ? message : [message]) {
        if (!isRecord(item) || typeof item.method !== 'string') continue;
        if (typeof item.id !== 'string' && !Number.isInteger(item.id)) continue;
        this.methods.set(idKey(item.id), item.method);
        const modern = modernVersionOf(item);
        if (modern !== undefined) {
          this.requestVersions.set(idKey(item.id), modern);
          const token = isRecord(item.params) && isRecord(item.params._meta) ? item.params._meta.progressToken : undefined;
          if (token !== undefined) this.tokenVersions.set(idKey(token), modern);
        }
        // Until an initialize is answered, check against what the test asks for.
        if (item.method === 'initialize' && !this.negotiated && isRecord(item.params) && isKnownVersion(item.params.protocolVersion)) {
          this.current = item.params.protocolVersion;
        }
      }
    }
  }

  /** Bytes the server wrote; returns how many complete lines they finished. */
  output(bytes: Buffer): number {
    this.chunks.push(bytes);
    const lines = this.incoming.push(bytes);
    for (const line of lines) this.receive(line);
    return lines.length;
  }

  private receive(bytes: Buffer): void {
    const index = this.received.length;
    const record = (line: string, message: unknown, requestMethod?: string, version = this.current): void => {
      this.received.push({ index, line, message, version, requestMethod });
    };
    let line: string;
    try {
      line = strictUtf8.decode(bytes);
    } catch {
      this.problems.push(`line ${index} is not valid UTF-8`);
      return record(bytes.toString('latin1'), undefined);
    }
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.problems.push(`line ${index} is not JSON: ${line.slice(0, 200)}`);
      return record(line, undefined);
    }
    // JSON allows whitespace around a value; a message line has none (a stray CR would be some).
    if (line !== line.trim()) this.problems.push(`line ${index} has whitespace around the message: ${JSON.stringify(line.slice(0, 200))}`);

    const version = this.versionOf(message);
    const requestMethod = this.answered(message);
    const elementMethods = Array.isArray(message) ? message.map((element) => this.answered(element)) : [];
    // The initialize result is shaped for the version it announces.
    if (requestMethod === 'initialize' && isRecord(message) && isRecord(message.result) && isKnownVersion(message.result.protocolVersion)) {
      this.current = message.result.protocolVersion;
      this.negotiated = true;
    }
    record(line, message, requestMethod, version);

    const problems = [...validateServerMessage(version, message, requestMethod)];
    // The batch check looks at envelopes only; each element is also checked against its method's result.
    elementMethods.forEach((method, position) => {
      if (method !== undefined) {
        const element = (message as unknown[])[position];
        problems.push(...validateServerMessage(version, element, method).map((problem) => `/${position}: ${problem}`));
      }
    });
    // JSON-RPC 2.0 requires id null when the request's id could not be read; the MCP schemas do
    // not allow it (see NULL_ID_PROBLEM). Excused once per such error response, nothing else is.
    const elements = Array.isArray(message) ? message : [message];
    let excused = elements.filter((element) => isRecord(element) && 'error' in element && element.id === null).length;
    for (const problem of problems) {
      if (problem === NULL_ID_PROBLEM && excused > 0) {
        excused--;
        continue;
      }
      const context = `${version}${requestMethod ? `, answering ${requestMethod}` : ''}`;
      this.problems.push(`line ${index} (${context}): ${problem}\n    ${line.slice(0, 300)}`);
    }
  }

  /**
   * The version a line is checked against: its request's, for a response to
   * a 2026-07-28 request, that request's progress, or a notification of its
   * subscription (tagged with the subscriptions/listen request's id); else
   * the version in force.
   */
  private versionOf(message: unknown): ProtocolVersion {
    if (!isRecord(message)) return this.current;
    if (isResponse(message)) return this.requestVersions.get(idKey(message.id)) ?? this.current;
    const params = isRecord(message.params) ? message.params : {};
    if (params.progressToken !== undefined) return this.tokenVersions.get(idKey(params.progressToken)) ?? this.current;
    const subscription = isRecord(params._meta) ? params._meta['io.modelcontextprotocol/subscriptionId'] : undefined;
    if (subscription !== undefined) return this.requestVersions.get(idKey(subscription)) ?? this.current;
    return this.current;
  }

  /** The method of the request `response` answers, forgotten once answered. */
  private answered(response: unknown): string | undefined {
    if (!isResponse(response) || response.id === null) return undefined;
    const key = idKey(response.id);
    const method = this.methods.get(key);
    this.methods.delete(key);
    return method;
  }
}
