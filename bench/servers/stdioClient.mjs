// The client side of `npm run bench:server`: spawns an MCP server, speaks
// newline-delimited JSON-RPC to it over its stdin and stdout, and reads its
// memory and CPU time from /proc. Kept cheap, since on a 2-vCPU machine the
// client competes with the server for CPU: under pipelined load it counts
// newlines instead of parsing responses.
//
// It speaks either era of MCP. A legacy client opens with the initialize
// handshake (2025-06-18) and sends bare requests; a modern one (2026-07-28)
// has no handshake, opens with server/discover, and carries the per-request
// fields in every request's params._meta (basic/index.mdx, "Per-request
// protocol fields"), as the results it expects carry resultType and serverInfo.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
export const MODERN_VERSION = '2026-07-28';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/** What a modern client puts in every request's params._meta: no logLevel, so no log notifications come back. */
const MODERN_META = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
});
const NEWLINE = 0x0a;
// Linux reports utime and stime in clock ticks of 1/USER_HZ s, and USER_HZ
// is 100 on every architecture Node runs on.
const TICK_NS = 1e7;
/** How long a checked batch waits for the next response before it calls the rest lost. */
const STALL_MS = 10_000;

/** The tools/call line each era's client sends, with request id `id`. */
const TOOL_CALL = {
  legacy: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"}}}\n`,
  modern: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"},"_meta":${MODERN_META}}}\n`,
};

/** What is wrong with a tools/call response to an `era` client, or undefined if nothing is. */
function toolCallProblem(message, era) {
  const { result } = message;
  if (result?.isError !== false || typeof result.content?.[0]?.text !== 'string') return 'not a successful tool result';
  if (era === 'modern' && (result.resultType !== 'complete' || typeof result._meta?.[SERVER_INFO]?.name !== 'string')) {
    return `no resultType "complete" and ${SERVER_INFO} in a ${MODERN_VERSION} result`;
  }
  return undefined;
}

export class StdioClient {
  /**
   * Spawns `argv` (node's own arguments, e.g. a script path) with `env` added
   * to this process's, to be spoken to as an `era` ('legacy' or 'modern') client.
   */
  constructor(argv, { cwd, env, era = 'legacy' } = {}) {
    if (!Object.hasOwn(TOOL_CALL, era)) throw new RangeError(`era must be legacy or modern, not ${era}`);
    this.era = era;
    this.toolCall = TOOL_CALL[era];
    this.child = spawn(process.execPath, argv, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = this.child.pid;
    this.nextId = 1;
    this.pending = new Map(); // id → resolve, while responses are parsed
    this.tail = ''; // an incomplete line, while responses are parsed
    this.onCount = undefined; // set while responses are only counted
    this.onMessage = undefined; // set while a checked batch takes every parsed response
    this.stderr = '';
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text) => {
      this.stderr = (this.stderr + text).slice(-4000);
    });
    this.child.stdin.on('error', () => {}); // a server that died is reported by the request that waits on it
    this.child.stdout.on('data', (chunk) => this.receive(chunk));
    this.exited.then(({ code, signal }) => {
      const why = new Error(`server ${argv.join(' ')} exited (${signal ?? code})${this.stderr ? `: ${this.stderr.trim()}` : ''}`);
      for (const { reject } of this.pending.values()) reject(why);
      this.pending.clear();
      this.onCount?.(why);
    });
  }

  receive(chunk) {
    if (this.onCount) {
      let lines = 0;
      for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
      if (lines > 0) this.onCount(lines);
      return;
    }
    const lines = (this.tail + chunk.toString('utf8')).split('\n');
    this.tail = lines.pop();
    for (const line of lines) {
      if (line.trim() === '') continue;
      const message = JSON.parse(line);
      if (this.onMessage) {
        this.onMessage(message);
        continue;
      }
      const waiter = this.pending.get(message.id);
      if (waiter === undefined) continue; // a notification, or a late answer to a counted request
      this.pending.delete(message.id);
      waiter.resolve({ message, bytes: Buffer.byteLength(line) + 1 });
    }
  }

  /** Sends `line` (one request with id `id`); resolves with its response and the response line's length in bytes. */
  request(id, line) {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(line);
    });
  }

  /** Opens the connection as this client's era does: initialize (legacy) or server/discover (modern). */
  open() {
    return this.era === 'modern' ? this.discover() : this.initialize();
  }

  /** initialize, then notifications/initialized; resolves with the initialize response. */
  async initialize() {
    const { message } = await this.request(0, `${JSON.stringify(INITIALIZE)}\n`);
    if (message.result?.protocolVersion === undefined) throw new Error(`initialize failed: ${JSON.stringify(message)}`);
    this.child.stdin.write(INITIALIZED);
    return message;
  }

  /** server/discover, with the per-request _meta; resolves with its response once it names 2026-07-28. */
  async discover() {
    const { message } = await this.request(0, `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":${MODERN_META}}}\n`);
    const { result } = message;
    if (!result?.supportedVersions?.includes(MODERN_VERSION) || result.resultType !== 'complete') {
      throw new Error(`server/discover failed: ${JSON.stringify(message)}`);
    }
    return message;
  }

  /**
   * One tools/call of disk_usage; throws unless it answers with a result that
   * is not an error. Resolves with the response and its line's length in bytes.
   */
  async callTool() {
    const id = this.nextId++;
    const answer = await this.request(id, this.toolCall(id));
    const problem = toolCallProblem(answer.message, this.era);
    if (problem !== undefined) throw new Error(`tools/call failed (${problem}): ${JSON.stringify(answer.message)}`);
    return answer;
  }

  /** ns for each of `calls` tools/call requests sent one at a time, each awaited before the next. */
  async latencies(calls) {
    const ns = new Float64Array(calls);
    for (let i = 0; i < calls; i++) {
      const start = process.hrtime.bigint();
      await this.callTool();
      ns[i] = Number(process.hrtime.bigint() - start);
    }
    return ns;
  }

  /**
   * Sends `calls` tools/call requests keeping `inFlight` outstanding: a new
   * one for each response. Resolves with the elapsed ns and the server's CPU
   * ns (user + system, from /proc; undefined elsewhere) over the run.
   */
  pipelined(calls, inFlight) {
    return new Promise((resolve, reject) => {
      let sent = 0;
      let received = 0;
      const sendMore = (count) => {
        let text = '';
        for (const end = Math.min(calls, sent + count); sent < end; sent++) text += this.toolCall(this.nextId++);
        if (text !== '') this.child.stdin.write(text);
      };
      const cpuStart = this.cpuNs();
      const start = process.hrtime.bigint();
      this.onCount = (lines) => {
        if (lines instanceof Error) {
          this.onCount = undefined;
          reject(lines);
          return;
        }
        received += lines;
        if (received < calls) {
          sendMore(lines);
          return;
        }
        const elapsedNs = Number(process.hrtime.bigint() - start);
        const cpuEnd = this.cpuNs();
        this.onCount = undefined;
        resolve({ elapsedNs, cpuNs: cpuStart === undefined || cpuEnd === undefined ? undefined : cpuEnd - cpuStart });
      };
      sendMore(inFlight);
    });
  }

  /**
   * As `pipelined`, but every response is parsed and checked: each request
   * answered once, under its own id, with a successful tool result of this
   * client's era. Rejects on the first wrong answer, or when no response
   * has come for STALL_MS (naming how many are lost). Untimed: for warm-ups.
   */
  pipelinedChecked(calls, inFlight) {
    return new Promise((resolve, reject) => {
      const outstanding = new Set();
      let sent = 0;
      let answered = 0;
      let stall;
      let done = false;
      const finish = (error) => {
        if (done) return;
        done = true;
        clearTimeout(stall);
        this.onMessage = undefined;
        if (error) reject(error);
        else resolve();
      };
      const watch = () => {
        clearTimeout(stall);
        stall = setTimeout(() => finish(new Error(`${outstanding.size} of ${sent} pipelined tools/call requests got no answer in ${STALL_MS} ms`)), STALL_MS);
      };
      const sendMore = (count) => {
        let text = '';
        for (const end = Math.min(calls, sent + count); sent < end; sent++) {
          const id = this.nextId++;
          outstanding.add(id);
          text += this.toolCall(id);
        }
        if (text !== '') this.child.stdin.write(text);
      };
      this.exited.then(() =>
        finish(new Error(`the server exited with ${outstanding.size} requests unanswered${this.stderr ? `: ${this.stderr.trim()}` : ''}`)),
      );
      this.onMessage = (message) => {
        // A notification counts as an answer in the counted batches, so it is wrong here too.
        if (!outstanding.delete(message.id)) {
          finish(new Error(`a message that answers no request in flight: ${JSON.stringify(message)}`));
          return;
        }
        const problem = toolCallProblem(message, this.era);
        if (problem !== undefined) {
          finish(new Error(`pipelined tools/call ${message.id} failed (${problem}): ${JSON.stringify(message)}`));
          return;
        }
        answered++;
        if (answered === calls) finish();
        else {
          watch();
          sendMore(1);
        }
      };
      watch();
      sendMore(inFlight);
    });
  }

  /** The server's resident set in bytes (VmRSS), or undefined where /proc has none. */
  rssBytes() {
    try {
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'))?.[1];
      return kib === undefined ? undefined : Number(kib) * 1024;
    } catch {
      return undefined;
    }
  }

  /** The server's CPU time so far in ns (user + system), or undefined where /proc has none. */
  cpuNs() {
    try {
      // Fields after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * TICK_NS; // utime, stime: fields 14 and 15
    } catch {
      return undefined;
    }
  }

  /** Ends the server (SIGTERM) and resolves once it has exited. */
  async close() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/**
 * Spawns a server, waits for the answer to its era's opening request
 * (initialize, or a modern client's server/discover); resolves with the ms that took.
 */
export async function coldStart(argv, options) {
  const start = performance.now();
  const client = new StdioClient(argv, options);
  try {
    await client.open();
    return performance.now() - start;
  } finally {
    await client.close();
  }
}
