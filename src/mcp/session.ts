// One MCP session: the lifecycle, the negotiated version, and which methods
// answer in which state (basic/lifecycle.mdx). The one place the state is
// checked: awaitingInitialize → awaitingInitialized → ready.

import { backend, onMountEvent } from '../index.js';
import type { DispatcherHandlers, RequestContext } from '../jsonrpc/dispatcher.js';
import { RpcError } from '../jsonrpc/errors.js';
import { isRequestId, type RequestId } from '../jsonrpc/messages.js';
import { complete } from './completion.js';
import { validateArguments } from './inputValidation.js';
import { isLogLevel, type LogLevel, McpLogger } from './logging.js';
import { getPrompt, listPrompts } from './prompts.js';
import { listResources, listResourceTemplates, readResource } from './resources.js';
import type { RootPolicy } from './roots.js';
import type { Tool, ToolContext } from './tools/tool.js';
import { describeTool, toolResult } from './toolWire.js';
import { LATEST_PROTOCOL_VERSION, negotiateProtocolVersion, type ProtocolVersion, VERSION_RULES, type VersionRules } from './versions.js';

export type SessionState = 'awaitingInitialize' | 'awaitingInitialized' | 'ready';

export interface Notification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface SessionOptions {
  readonly serverVersion: string;
  readonly tools: readonly Tool[];
  /** Milliseconds a file system has to answer. */
  readonly probeTimeout: number;
  /** The --root allowlist (no roots: every path). */
  readonly roots: RootPolicy;
  readonly logLevel: LogLevel;
  /** Sends a notification to the client. */
  readonly notify: (notification: Notification) => void;
  /** Cancels an in-flight request (the dispatcher's). */
  readonly cancel: (id: RequestId, reason?: string) => void;
  /** Reports a bug to stderr. */
  readonly reportBug: (message: string) => void;
}

export const INSTRUCTIONS =
  'Use disk_usage to see how full the file system holding one path is (pass unit "percent" or "mb" for a single figure), ' +
  'list_mounts for every mounted file system at once, and system_info for the host itself. ' +
  'Paths must be absolute, such as / or /data; relative paths are refused. ' +
  'A file system that does not answer is reported as not responding rather than waited on.';

type Params = Record<string, unknown>;
type Handler = (params: Params, context: RequestContext) => unknown;

export class McpSession implements DispatcherHandlers {
  private state: SessionState = 'awaitingInitialize';
  /** The initialize request's id: the spec says a cancel of it is ignored (basic/utilities/cancellation.mdx). */
  private initializeId: RequestId | undefined;
  private protocolVersion: ProtocolVersion = LATEST_PROTOCOL_VERSION;
  private readonly logger: McpLogger;
  private readonly unsubscribe: () => void;
  private readonly methods: ReadonlyMap<string, Handler>;

  constructor(private readonly options: SessionOptions) {
    this.logger = new McpLogger(options.logLevel, (notification) => {
      // Nothing but pings goes out before the client says it is ready.
      if (this.state === 'ready') options.notify(notification);
    });
    this.unsubscribe = onMountEvent((event) => {
      if (event.type === 'stuck')
        this.logger.log('warning', { event: 'probe timed out', mountPoint: event.mountPoint, path: event.path, timeoutMs: event.timeout });
      else if (event.type === 'recovered')
        this.logger.log('info', { event: 'mount answers again', mountPoint: event.mountPoint, stuckForMs: Math.round(event.stuckForMs) });
      else this.logger.log('info', { event: 'mount table changed', added: event.added, removed: event.removed });
    });
    // A Map, so "__proto__" or "constructor" is just an unknown method.
    this.methods = new Map<string, Handler>([
      ['initialize', (params) => this.initialize(params)],
      ['tools/list', (params) => this.listTools(params)],
      ['tools/call', (params, context) => this.callTool(params, context)],
      ['logging/setLevel', (params) => this.setLogLevel(params)],
      ['resources/list', (params, context) => listResources(params, this.rules, this.toolContext(context, undefined))],
      ['resources/templates/list', () => listResourceTemplates(this.rules)],
      ['resources/read', (params, context) => readResource(params, this.toolContext(context, undefined))],
      ['prompts/list', () => listPrompts(this.rules)],
      ['prompts/get', (params) => getPrompt(params)],
      ['completion/complete', (params, context) => complete(params, options.roots, options.probeTimeout, context.signal)],
    ]);
  }

  get currentState(): SessionState {
    return this.state;
  }

  get version(): ProtocolVersion {
    return this.protocolVersion;
  }

  private get rules(): VersionRules {
    return VERSION_RULES[this.protocolVersion];
  }

  close(): void {
    this.unsubscribe();
  }

  acceptsBatch(): boolean {
    // Before initialize no version is agreed, and initialize itself may not be batched.
    return this.state !== 'awaitingInitialize' && VERSION_RULES[this.protocolVersion].batches;
  }

  request(method: string, params: Params | undefined, context: RequestContext): unknown {
    if (method === 'ping') return {}; // in every state (basic/utilities/ping.mdx)
    const handler = this.methods.get(method);
    if (handler === undefined) throw RpcError.methodNotFound(method);
    // A capability not declared in this version: its methods do not exist (docs/baseline.md §3).
    if (method === 'completion/complete' && !this.rules.completions && this.state !== 'awaitingInitialize') throw RpcError.methodNotFound(method);
    if (method === 'initialize') {
      if (this.state !== 'awaitingInitialize') throw RpcError.invalidRequest('initialize was already received; a session is initialized once');
      this.initializeId = context.id;
    } else if (this.state === 'awaitingInitialize') {
      throw RpcError.invalidRequest(`the session is not initialized: send initialize before ${method}`);
    } else if (this.state === 'awaitingInitialized') {
      // Strict, as the seed's §2 describes: until the client confirms, only ping.
      throw RpcError.invalidRequest(`send notifications/initialized first: until then the server answers only ping (got ${method})`);
    }
    if (params !== undefined && Array.isArray(params)) throw RpcError.invalidParams('params must be an object');
    return handler(params ?? {}, context);
  }

  notification(method: string, params: Params | undefined): void {
    if (method === 'notifications/initialized') {
      if (this.state !== 'awaitingInitialized') return;
      this.state = 'ready';
      if (backend === 'statfs') {
        this.logger.log('warning', {
          event: 'fallback backend in use',
          detail: 'the native addon did not load; sizes come from fs.statfs and are inexact where f_bsize differs from f_frsize',
        });
      }
    } else if (method === 'notifications/cancelled') {
      const id = params?.requestId;
      // Unknown and finished ids are ignored (basic/utilities/cancellation.mdx).
      if (isRequestId(id) && id !== this.initializeId) this.options.cancel(id, typeof params?.reason === 'string' ? params.reason : undefined);
    }
    // Other notifications need nothing from this server.
  }

  internalError(error: unknown, method: string): void {
    this.options.reportBug(`diskprobe: internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  private initialize(params: Params): unknown {
    if (typeof params.protocolVersion !== 'string') {
      throw RpcError.invalidParams('initialize needs params.protocolVersion, the protocol version the client wants (e.g. "2025-11-25")');
    }
    this.protocolVersion = negotiateProtocolVersion(params.protocolVersion);
    this.state = 'awaitingInitialized';
    return {
      protocolVersion: this.protocolVersion,
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: false, listChanged: false },
        prompts: { listChanged: false },
        logging: {},
        ...(this.rules.completions && { completions: {} }),
      },
      serverInfo: { name: 'diskprobe', version: this.options.serverVersion },
      instructions: INSTRUCTIONS,
    };
  }

  private listTools(params: Params): unknown {
    // All tools fit one page; a cursor can only be one this server never issued.
    if (params.cursor !== undefined) throw RpcError.invalidParams(`unknown cursor ${JSON.stringify(params.cursor)}`);
    return { tools: this.options.tools.map((tool) => describeTool(tool, VERSION_RULES[this.protocolVersion])) };
  }

  private async callTool(params: Params, context: RequestContext): Promise<unknown> {
    const rules = VERSION_RULES[this.protocolVersion];
    if (typeof params.name !== 'string') throw RpcError.invalidParams('tools/call needs params.name, the name of a tool from tools/list');
    const tool = this.options.tools.find((candidate) => candidate.name === params.name);
    if (tool === undefined) {
      throw RpcError.invalidParams(`unknown tool ${JSON.stringify(params.name)}; tools/list names ${this.options.tools.map((t) => t.name).join(', ')}`);
    }
    // Arguments that are not an object break the request itself, not the
    // tool's input schema: -32602 in every version (SEP-1303 keeps these).
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw RpcError.invalidParams(`params.arguments must be an object, not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}`);
    }
    const problems = validateArguments(tool.inputSchema, args, tool.hints);
    if (problems.length > 0) {
      const message = `invalid arguments for ${tool.name}: ${problems.join('; ')}`;
      // SEP-1303 (2025-11-25): a result the model can read and correct, not a protocol error.
      if (rules.inputErrorsAsToolResults) return toolResult({ text: message, isError: true }, rules);
      throw RpcError.invalidParams(message);
    }
    const meta = params._meta as { progressToken?: unknown } | undefined;
    const token = meta !== null && typeof meta === 'object' && isRequestId(meta.progressToken) ? meta.progressToken : undefined;
    const toolContext = this.toolContext(context, token);
    try {
      return toolResult(await tool.call((params.arguments ?? {}) as Params, toolContext), rules);
    } finally {
      toolContext.answered = true;
    }
  }

  /** What a tool (or resource) gets to work with; progress goes out only if the client sent a token. */
  private toolContext(context: RequestContext, token: RequestId | undefined): ToolContext & { answered: boolean } {
    const rules = this.rules;
    let last = -Infinity;
    const toolContext = {
      answered: false,
      signal: context.signal,
      probeTimeout: this.options.probeTimeout,
      roots: this.options.roots,
      log: (level: LogLevel, data: unknown) => this.logger.log(level, data),
      progress: (progress: number, total?: number, message?: string) => {
        // Increasing, and none after the response (basic/utilities/progress.mdx).
        if (token === undefined || toolContext.answered || progress <= last || context.signal.aborted) return;
        last = progress;
        this.options.notify({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress,
            ...(total !== undefined && { total }),
            ...(message !== undefined && rules.progressMessage && { message }),
          },
        });
      },
    };
    return toolContext;
  }

  private setLogLevel(params: Params): unknown {
    if (!isLogLevel(params.level)) {
      throw RpcError.invalidParams(`level must be one of debug, info, notice, warning, error, critical, alert, emergency, not ${JSON.stringify(params.level)}`);
    }
    this.logger.setLevel(params.level);
    return {};
  }
}
