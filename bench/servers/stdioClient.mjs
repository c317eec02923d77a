// The client side of `npm run bench:server`: spawns an MCP server, speaks
// newline-delimited JSON-RPC to it over its stdin and stdout, and reads its
// memory and CPU time from /proc. Kept cheap, since on a 2-vCPU machine the
// client competes with the server for CPU: under pipelined load it counts
// newlines instead of parsing responses.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
const NEWLINE = 0x0a;
// Linux reports utime and stime in clock ticks of 1/USER_HZ s, and USER_HZ
// is 100 on every architecture Node runs on.
const TICK_NS = 1e7;

/** The tools/call line the bench sends, with request id `id`. */
const toolCall = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"disk_usage","arguments":{"path":"/"}}}\n`;

export class StdioClient {
  /** Spawns `argv` (node's own arguments, e.g. a script path) with `env` added to this process's. */
  constructor(argv, { cwd, env } = {}) {
    this.child = spawn(process.execPath, argv, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = this.child.pid;
    this.nextId = 1;
    this.pending = new Map(); // id → resolve, while responses are parsed
    this.tail = ''; // an incomplete line, while responses are parsed
    this.onCount = undefined; // set while responses are only counted
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

  /** initialize, then notifications/initialized; resolves with the initialize response. */
  async initialize() {
    const { message } = await this.request(0, `${JSON.stringify(INITIALIZE)}\n`);
    if (message.result?.protocolVersion === undefined) throw new Error(`initialize failed: ${JSON.stringify(message)}`);
    this.child.stdin.write(INITIALIZED);
    return message;
  }

  /**
   * One tools/call of disk_usage; throws unless it answers with a result that
   * is not an error. Resolves with the response and its line's length in bytes.
   */
  async callTool() {
    const id = this.nextId++;
    const answer = await this.request(id, toolCall(id));
    const { result } = answer.message;
    if (result?.isError !== false || typeof result.content?.[0]?.text !== 'string') {
      throw new Error(`tools/call failed: ${JSON.stringify(answer.message)}`);
    }
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
        for (const end = Math.min(calls, sent + count); sent < end; sent++) text += toolCall(this.nextId++);
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

/** Spawns a server, waits for its initialize response; resolves with the ms that took. */
export async function coldStart(argv, options) {
  const start = performance.now();
  const client = new StdioClient(argv, options);
  try {
    await client.initialize();
    return performance.now() - start;
  } finally {
    await client.close();
  }
}
