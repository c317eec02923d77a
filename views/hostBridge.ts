// The view's side of MCP Apps (ext-apps specification/2026-01-26/apps.mdx,
// "Transport Layer" and "Lifecycle"): JSON-RPC 2.0 over postMessage with the
// host, which relays tools/call to this server. A view says ui/initialize,
// gets the host's context (theme, style variables), says
// ui/notifications/initialized, then hears the tool's input and result.
// Written here rather than taken from @modelcontextprotocol/ext-apps: its
// App alone needs the SDK and zod beside it, 130 KB gzipped, past the 60 KB a
// view may weigh.

const APPS_PROTOCOL_VERSION = '2026-01-26';

type Json = Record<string, unknown>;

/** What the host tells a view of itself (apps.mdx, "Host Context"); only what the views read. */
export interface HostContext {
  readonly theme?: 'light' | 'dark';
  readonly styles?: { readonly variables?: Readonly<Record<string, string | undefined>>; readonly css?: { readonly fonts?: string } };
  readonly locale?: string;
}

/** A tools/call result as the host hands it on. */
export interface ToolResult {
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  readonly structuredContent?: Json;
  readonly isError?: boolean;
}

export interface ViewHandlers {
  /** The arguments the tool was called with (ui/notifications/tool-input). */
  toolInput?(args: Json): void;
  /** The tool's result (ui/notifications/tool-result). */
  toolResult?(result: ToolResult): void;
  /** The call was cancelled before it answered (ui/notifications/tool-cancelled). */
  toolCancelled?(reason: string | undefined): void;
  /** The host's context, at start and each time part of it changes (ui/notifications/host-context-changed). */
  hostContext?(context: HostContext): void;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export class HostBridge {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  private context: HostContext = {};

  constructor(
    private readonly appInfo: { name: string; version: string },
    private readonly handlers: ViewHandlers,
    private readonly host: Window = window.parent,
  ) {
    window.addEventListener('message', (event) => this.receive(event));
  }

  /** The handshake; resolves once the host may send the tool's input. */
  async connect(): Promise<void> {
    const result = await this.request('ui/initialize', {
      appInfo: this.appInfo,
      appCapabilities: { availableDisplayModes: ['inline'] },
      protocolVersion: APPS_PROTOCOL_VERSION,
    });
    this.context = isObject(result) && isObject(result.hostContext) ? (result.hostContext as HostContext) : {};
    this.handlers.hostContext?.(this.context);
    this.notify('ui/notifications/initialized', {});
    this.reportSize();
  }

  /** Calls a tool of this view's server, through the host. */
  async callTool(name: string, args: Json): Promise<ToolResult> {
    return (await this.request('tools/call', { name, arguments: args })) as ToolResult;
  }

  /** Tells the host the view's size each time it changes, so that an inline frame fits it (ui/notifications/size-changed). */
  private reportSize(): void {
    let last = '';
    const report = (): void => {
      const { scrollWidth: width, scrollHeight: height } = document.documentElement;
      const size = `${width}x${height}`;
      if (size === last) return;
      last = size;
      this.notify('ui/notifications/size-changed', { width, height });
    };
    new ResizeObserver(report).observe(document.documentElement);
    report();
  }

  private request(method: string, params: Json): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.host.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
    });
  }

  private notify(method: string, params: Json): void {
    this.host.postMessage({ jsonrpc: '2.0', method, params }, '*');
  }

  private receive(event: MessageEvent): void {
    if (event.source !== this.host) return;
    const message: unknown = event.data;
    if (!isObject(message) || message.jsonrpc !== '2.0') return;
    const { id, method } = message;
    if (typeof method !== 'string') {
      const waiting = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (waiting === undefined) return;
      this.pending.delete(id as number);
      if (isObject(message.error)) waiting.reject(new Error(String(message.error.message ?? 'the host refused the request')));
      else waiting.resolve(message.result);
      return;
    }
    const params = isObject(message.params) ? message.params : {};
    if (id !== undefined) {
      this.answer(id, method);
      return;
    }
    if (method === 'ui/notifications/tool-input') this.handlers.toolInput?.(isObject(params.arguments) ? params.arguments : {});
    else if (method === 'ui/notifications/tool-result') this.handlers.toolResult?.(params as ToolResult);
    else if (method === 'ui/notifications/tool-cancelled') this.handlers.toolCancelled?.(typeof params.reason === 'string' ? params.reason : undefined);
    else if (method === 'ui/notifications/host-context-changed') {
      this.context = { ...this.context, ...(params as HostContext) };
      this.handlers.hostContext?.(this.context);
    }
  }

  /** The host's requests: teardown and ping need nothing but an answer; the view offers no tools of its own. */
  private answer(id: unknown, method: string): void {
    const reply =
      method === 'ui/resource-teardown' || method === 'ping'
        ? { jsonrpc: '2.0', id, result: {} }
        : { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
    this.host.postMessage(reply, '*');
  }
}
