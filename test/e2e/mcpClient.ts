// A test client for the built MCP server (dist/bin/diskprobe.js): it spawns the
// server, writes bytes or messages to its stdin, and waits for what comes
// back, never for long. Tests get servers from the `startServer` fixture,
// whose teardown ends each server and fails the test if any line it wrote
// breaks the protocol (see transcript.ts), so no test can forget the check.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { test as base } from 'vitest';

import type { ProtocolVersion } from '../helpers/mcpSchema.js';
import { projectRoot } from '../helpers/system.js';
import { isResponse, type Received, type RequestId, type Result, type RpcResponse, Transcript } from './transcript.js';

export { isRecord, isResponse, type Received, type RequestId, type Result, type RpcResponse, withId } from './transcript.js';

export const serverPath = `${projectRoot}dist/bin/diskprobe.js`;

/** What serverInfo.version must say. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(`${projectRoot}package.json`, 'utf8')) as { version: string }).version;

/** What the server answers when asked for a version it does not support. */
export const LATEST_VERSION: ProtocolVersion = '2025-11-25';

/** The per-request _meta of a 2026-07-28 request, with `extra` (logLevel, progressToken, …) added. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'diskprobe-e2e', version: '1.0.0' },
    ...extra,
  };
}

/** How long a test waits for something the server should say at once: a bound on failure, not a measurement. */
const WAIT_MS = 5000;
/** How long the server has to exit once its input ends. */
const EXIT_MS = 5000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface ServerOptions {
  /** Command-line arguments after dist/bin/diskprobe.js, e.g. ['--max-message-bytes', '1000']. */
  readonly args?: readonly string[];
  /** Added to the environment, e.g. { DISKPROBE_BACKEND: 'statfs' }. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The version the test is about to ask for: what the server's messages are
   * checked against until an initialize says otherwise. Default: the latest.
   */
  readonly version?: ProtocolVersion;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface InitializeOptions {
  /** Also send notifications/initialized (default true). */
  readonly initialized?: boolean;
  readonly capabilities?: Record<string, unknown>;
}

/** Rejects after `ms` with `message`, unless `promise` settles first. */
async function within<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class McpClient {
  private readonly transcript: Transcript;
  private readonly child: ChildProcessWithoutNullStreams;
  private stderrText = '';
  private nextId = 1;
  private readonly waiters = new Set<() => void>();
  private exitStatus: Exit | undefined;
  private readonly closed: Promise<Exit>;
  /** Whether the test dealt with the exit itself (close(), kill()), so teardown need not judge it. */
  private exitHandled = false;
  /** Whether the test closed the server's stdout, so its last line may be cut short. */
  private stdoutClosed = false;

  constructor(options: ServerOptions = {}) {
    this.transcript = new Transcript(options.version ?? LATEST_VERSION);
    this.child = spawn(process.execPath, [serverPath, ...(options.args ?? [])], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      if (this.transcript.output(chunk) > 0) this.wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString('utf8')));
    // A server that exits (or crashes) before reading everything closes the pipe: the exit
    // status tells that story, not an unhandled EPIPE here.
    this.child.stdin.on('error', () => {});
    // 'close' comes after the pipes are drained, so every line is in by then.
    this.closed = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exitStatus = { code, signal };
        this.wake();
        resolve(this.exitStatus);
      });
    });
  }

  /** Every line the server wrote so far, in order. */
  get received(): readonly Received[] {
    return this.transcript.received;
  }

  /** Everything the server wrote to stdout so far, as bytes. */
  get stdout(): Buffer {
    return this.transcript.stdout;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** How many lines have arrived: a mark for `since` and `waitFor`. */
  get mark(): number {
    return this.received.length;
  }

  /** The messages that arrived after `mark`. */
  since(mark: number): unknown[] {
    return this.received.slice(mark).map((entry) => entry.message);
  }

  /** Raw bytes, no framing added: for split messages, bad encodings, CRLF. */
  write(data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    this.transcript.sent(bytes);
    this.child.stdin.write(bytes);
  }

  /** Raw bytes, and `done` once the pipe has taken them all (the write's callback). */
  writeWithCallback(data: string, done: () => void): void {
    const bytes = Buffer.from(data, 'utf8');
    this.transcript.sent(bytes);
    this.child.stdin.write(bytes, () => done());
  }

  /** One line: an object or array as JSON, a string as it is; the newline is added. */
  send(message: object | string): void {
    this.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** A fresh id of the form `request` uses (integers from 1). */
  newId(): number {
    return this.nextId++;
  }

  /** Sends a request and resolves with its response, result or error. */
  async request(method: string, params?: Record<string, unknown>, id: RequestId = this.newId()): Promise<RpcResponse> {
    const mark = this.mark;
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    return this.response(id, mark);
  }

  /** Sends a request and resolves with its result; an error response fails the test. */
  async result(method: string, params?: Record<string, unknown>): Promise<Result> {
    const response = await this.request(method, params);
    if (!response.result) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  /** A 2026-07-28 request: `params` with the per-request _meta (plus `meta`) added. */
  modern(method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, id: RequestId = this.newId()): Promise<RpcResponse> {
    return this.request(method, { ...params, _meta: modernMeta(meta) }, id);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) });
  }

  /** tools/call of `name` with `args`; `extra` adds to the params (e.g. _meta). */
  callTool(name: string, args?: unknown, extra: Record<string, unknown> = {}): Promise<RpcResponse> {
    return this.request('tools/call', { name, ...(args !== undefined && { arguments: args }), ...extra });
  }

  /** The first response with `id` after `mark`. */
  async response(id: RequestId | null, mark = 0, timeoutMs = WAIT_MS): Promise<RpcResponse> {
    const found = await this.waitFor((message) => isResponse(message) && message.id === id, `a response with id ${JSON.stringify(id)}`, {
      after: mark,
      timeoutMs,
    });
    return found.message as RpcResponse;
  }

  /**
   * The first message after `after` (default: the very first) that `predicate`
   * accepts. Rejects, failing the test, when none comes within `timeoutMs` or
   * the server exits first.
   */
  waitFor(
    predicate: (message: unknown) => boolean,
    what: string,
    { after = 0, timeoutMs = WAIT_MS }: { after?: number; timeoutMs?: number } = {},
  ): Promise<Received> {
    return new Promise((resolve, reject) => {
      let searched = after;
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      const check = (): void => {
        for (; searched < this.received.length; searched++) {
          const entry = this.received[searched]!;
          if (predicate(entry.message)) {
            done();
            resolve(entry);
            return;
          }
        }
        if (this.exitStatus) {
          done();
          reject(new Error(`the server exited (${JSON.stringify(this.exitStatus)}) before ${what}${this.context()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${what} within ${timeoutMs} ms${this.context()}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Waits `ms` and returns what arrived meanwhile: for "nothing is sent" assertions. */
  async quietFor(ms: number): Promise<unknown[]> {
    const mark = this.mark;
    await sleep(ms);
    return this.since(mark);
  }

  /** initialize with `version`, then (by default) notifications/initialized. Resolves with the result. */
  async initialize(version: string = this.transcript.version, options: InitializeOptions = {}): Promise<Result> {
    const result = await this.result('initialize', {
      protocolVersion: version,
      capabilities: options.capabilities ?? {},
      clientInfo: { name: 'diskprobe-e2e', version: '1.0.0' },
    });
    if (options.initialized !== false) this.notify('notifications/initialized');
    return result;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Closes the read end of the server's stdout, as a host that dies does; the test then owns the exit. */
  closeStdout(): void {
    this.stdoutClosed = true;
    this.exitHandled = true;
    this.child.stdout.destroy();
  }

  /** Sends a signal; the test then owns the exit (see `exited`). */
  kill(signal: NodeJS.Signals): void {
    this.exitHandled = true;
    this.child.kill(signal);
  }

  /** Resolves with the exit status once the server has exited and its output is all read; fails after `timeoutMs`. */
  exited(timeoutMs = EXIT_MS): Promise<Exit> {
    this.exitHandled = true;
    return within(this.closed, timeoutMs, () => `the server did not exit within ${timeoutMs} ms${this.context()}`);
  }

  /** Ends stdin (EOF) and resolves with the exit status. */
  close(timeoutMs = EXIT_MS): Promise<Exit> {
    this.child.stdin.end();
    return this.exited(timeoutMs);
  }

  /**
   * Teardown: ends the server if the test did not, and returns every problem:
   * lines that break the protocol, bytes after the last newline, a server that
   * would not exit, or exited badly when the test was not watching.
   */
  async finish(): Promise<string[]> {
    const problems = this.transcript.problems;
    if (!this.exitStatus) {
      this.child.stdin.end();
      try {
        await within(this.closed, EXIT_MS, () => 'timeout');
      } catch {
        this.child.kill('SIGKILL');
        problems.push(`the server did not exit within ${EXIT_MS} ms of EOF; killed${this.context()}`);
        await within(this.closed, EXIT_MS, () => 'timeout').catch(() => problems.push('and it would not die'));
      }
    }
    if (this.transcript.unfinishedBytes > 0 && !this.stdoutClosed)
      problems.push(`stdout ended with ${this.transcript.unfinishedBytes} bytes that are not a complete line`);
    const status = this.exitStatus;
    if (!this.exitHandled && status && (status.code !== 0 || status.signal !== null)) {
      problems.push(`the server exited with ${JSON.stringify(status)} at EOF${this.context()}`);
    }
    return problems;
  }

  /** The tail of the conversation, for failure messages. */
  private context(): string {
    const last = this.received.slice(-5).map((entry) => `  ${entry.line.slice(0, 300)}`);
    const stderr = this.stderrText.trim();
    return `\nlast lines from the server:\n${last.join('\n') || '  (none)'}${stderr ? `\nstderr:\n${stderr.slice(-2000)}` : ''}`;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

export interface McpFixtures {
  /** Starts a server that teardown ends and whose every line it checks. */
  startServer: (options?: ServerOptions) => McpClient;
}

/**
 * `it` with a `startServer` fixture. Teardown ends each server's input, waits
 * for it to exit, and fails the test if any line it wrote is not a complete
 * JSON line valid for the version then in force (an error response's id
 * null excepted: JSON-RPC 2.0 requires it, see NULL_ID_PROBLEM).
 */
export const it = base.extend<McpFixtures>({
  startServer: async ({}, use) => {
    const clients: McpClient[] = [];
    await use((options) => {
      const client = new McpClient(options);
      clients.push(client);
      return client;
    });
    const problems = (await Promise.all(clients.map((client) => client.finish()))).flat();
    if (problems.length > 0) throw new Error(`the server broke the protocol:\n${problems.join('\n')}`);
  },
});
