// The test host page: what a host that renders MCP Apps does, with the
// official host-side bridge of @modelcontextprotocol/ext-apps (AppBridge).
// It renders a view's HTML in a sandboxed iframe, hands it the tool's input
// and result, and relays the view's tools/call to the server through the
// test (window.callServerTool, which the test exposes). Bundled for the
// browser by views.browser.test.ts.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Render {
  readonly html: string;
  readonly input: Record<string, unknown>;
  readonly result: Record<string, unknown>;
  readonly theme: 'light' | 'dark';
  readonly width: number;
}

declare global {
  interface Window {
    callServerTool(params: { name: string; arguments?: Record<string, unknown> | undefined }): Promise<Record<string, unknown>>;
    renderView(render: Render): Promise<void>;
    setTheme(theme: 'light' | 'dark'): Promise<void>;
    /** The tools/call requests the view sent, in order. */
    toolCalls: Array<{ name: string; arguments?: Record<string, unknown> | undefined }>;
  }
}

/** A few of the host style variables (apps.mdx, "Theming"), per theme: a host may send any subset. */
const VARIABLES: Record<'light' | 'dark', Record<string, string>> = {
  light: { '--color-background-primary': 'rgb(250, 250, 250)', '--color-text-primary': 'rgb(20, 20, 20)' },
  dark: { '--color-background-primary': 'rgb(24, 24, 27)', '--color-text-primary': 'rgb(244, 244, 245)' },
};

let bridge: AppBridge | undefined;
window.toolCalls = [];

window.renderView = async ({ html, input, result, theme, width }) => {
  const frame = document.createElement('iframe');
  // As a host does: scripts, and an opaque origin of its own.
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('title', 'MCP App');
  frame.style.cssText = `width:${width}px;height:400px;border:0;display:block`;
  document.body.replaceChildren(frame);
  // `as never`: the package types the variables as all 77, where the spec lets a host send any of them.
  const hostContext = { theme, styles: { variables: VARIABLES[theme] as never }, platform: 'web' as const, locale: 'en-US' };
  bridge = new AppBridge(null, { name: 'diskprobe-test-host', version: '1.0.0' }, { serverTools: {} }, { hostContext });
  bridge.oncalltool = async (params) => {
    window.toolCalls.push(params);
    return (await window.callServerTool(params)) as never;
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result as never);
};

window.setTheme = async (theme) => {
  await bridge!.sendHostContextChange({ theme, styles: { variables: VARIABLES[theme] as never } });
};
