// MCP Apps, the extension io.modelcontextprotocol/ui (ext-apps,
// specification/2026-01-26/apps.mdx), on the server's side: whether a host
// renders apps, the views as UI resources, and the link a tool carries
// to its view. The views themselves are web pages built from views/ into
// dist/views/ (scripts/bundle-views.mjs); they get their data from the tool
// results the host hands them, and nothing from anywhere else.
//
// A host that does not declare the extension sees no difference: no
// extension in the capabilities, no ui:// resources listed, no link on the
// tools. The views can still be read by URI, as any resource.
import { readFileSync } from 'node:fs';

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one MIME type of a view (apps.mdx, "UI Resource Format"). */
const UI_MIME_TYPE = 'text/html;profile=mcp-app';

export interface AppView {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The page under dist/views/. */
  readonly file: string;
}

export const DIRECTORY_VIEW: AppView = {
  uri: 'ui://diskprobe/directory-usage',
  name: 'directory-usage',
  title: 'What fills a directory',
  description: 'A treemap of a directory_usage result: click a directory to drill down',
  file: 'directory-usage.html',
};

export const MOUNTS_VIEW: AppView = {
  uri: 'ui://diskprobe/mounts',
  name: 'mounts',
  title: 'How full each mount is',
  description: 'A bar of fullness for each mount of a list_mounts result',
  file: 'mounts.html',
};

export const EXPLAIN_VIEW: AppView = {
  uri: 'ui://diskprobe/explain',
  name: 'explain',
  title: 'Why df and du disagree',
  description: "An explain_disk_usage result as one stacked bar of df's Used: visible files, deleted files still open, hidden files, the rest",
  file: 'explain.html',
};

const VIEWS: readonly AppView[] = [DIRECTORY_VIEW, MOUNTS_VIEW, EXPLAIN_VIEW];

/**
 * The resource's `_meta.ui`, on its listing and its contents alike (the
 * contents' wins): no `csp`, so the host applies the spec's default, which
 * allows no network at all, and the views need none.
 */
const RESOURCE_META = { ui: { prefersBorder: true } };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether the client renders MCP Apps: it lists the extension, with the
 * HTML profile among its MIME types (apps.mdx, "Client<>Server Capability
 * Negotiation"). Legacy clients say so in initialize, 2026-07-28 clients in
 * each request's clientCapabilities.
 */
export function rendersApps(clientCapabilities: Readonly<Record<string, unknown>>): boolean {
  const extensions = clientCapabilities.extensions;
  const ui = isObject(extensions) ? extensions[UI_EXTENSION] : undefined;
  return isObject(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(UI_MIME_TYPE);
}

/** The server's half of the extension, for its capabilities: no settings of its own (extensions/overview.mdx, "Server Capabilities"). */
export function appsCapability(): Record<string, unknown> {
  return { [UI_EXTENSION]: {} };
}

/**
 * A tool's `_meta` linking it to its view: `ui.resourceUri`, and the flat
 * `ui/resourceUri` that hosts built before the stable revision still read
 * (apps.mdx, "Resource Discovery"). Visible to the model and the app alike,
 * the default.
 */
export function toolViewMeta(view: AppView): Record<string, unknown> {
  return { ui: { resourceUri: view.uri }, 'ui/resourceUri': view.uri };
}

/** The views as resources/list entries. */
export function viewListings(withTitle: (title: string) => { title?: string }): Record<string, unknown>[] {
  return VIEWS.map((view) => ({
    uri: view.uri,
    name: view.name,
    ...withTitle(view.title),
    description: view.description,
    mimeType: UI_MIME_TYPE,
    _meta: RESOURCE_META,
  }));
}

const pages = new Map<string, string>();

/** The page of a view, read once; its file sits in dist/views/, beside dist/mcp/ and dist/bin/, whichever this module is bundled into. */
function page(view: AppView): string {
  let html = pages.get(view.uri);
  if (html === undefined) {
    html = readFileSync(new URL(`../views/${view.file}`, import.meta.url), 'utf8');
    pages.set(view.uri, html);
  }
  return html;
}

/** resources/read of a ui:// URI: the view's page, or undefined when no view has that URI. */
export function readView(uri: string): Record<string, unknown> | undefined {
  const view = VIEWS.find((candidate) => candidate.uri === uri);
  if (view === undefined) return undefined;
  return { contents: [{ uri, mimeType: UI_MIME_TYPE, text: page(view), _meta: RESOURCE_META }] };
}
