// ui://diskprobe/directory-usage: a directory_usage result as a squarified
// treemap, each subdirectory's area its share of the bytes (on disk, or
// apparent when that was asked), with a breadcrumb of the path. A click (or
// Enter) on a subdirectory, or on a part of the breadcrumb, calls
// directory_usage through the host for that path; the server answers a
// drill-down from the walk it kept, at once, and the view redraws.
import { counted, grouped } from '../src/format/counted.js';
import { humanSize } from '../src/format/humanSize.js';
import { baseName, h } from './dom.js';
import { HostBridge, type ToolResult } from './hostBridge.js';
import { applyHostContext } from './theme.js';
import { squarify } from './treemap.js';

interface Sizes {
  readonly allocated: number;
  readonly apparent: number;
}

interface Entry extends Sizes {
  readonly name: string;
  readonly path: string;
  readonly files: number;
  readonly directories: number;
  readonly complete: boolean;
}

interface Usage extends Sizes {
  readonly path: string;
  readonly files: number;
  readonly directories: number;
  readonly children: readonly Entry[];
  readonly others?: Sizes & { readonly count: number };
  readonly largestFiles: ReadonlyArray<Sizes & { readonly path: string }>;
  readonly errors?: { readonly count: number; readonly first: ReadonlyArray<{ path: string; code: string; message: string }> };
  readonly skipped?: readonly string[];
  readonly unfinished?: { readonly count: number; readonly first: readonly string[] };
  readonly complete: boolean;
}

/** What a tile stands for: a subdirectory (drillable), the directory's own files, or the subdirectories past `top`. */
type Part = { kind: 'directory'; entry: Entry } | { kind: 'files'; size: number } | { kind: 'others'; count: number; size: number };

const app = document.getElementById('app')!;
/** The arguments of the call shown, kept for drill-downs: depth, top, apparent, one_file_system. */
let args: Record<string, unknown> = {};

const bridge = new HostBridge(
  { name: 'diskprobe directory usage', version: '1' },
  {
    toolInput: (input) => {
      args = input;
    },
    toolResult: (result) => show(result),
    toolCancelled: () => message('The call was cancelled before it answered.'),
    hostContext: applyHostContext,
  },
);

const apparent = (): boolean => args.apparent === true;
const sizeOf = (sizes: Sizes): number => (apparent() ? sizes.apparent : sizes.allocated);
const measure = (): string => (apparent() ? 'apparent size' : 'on disk');

function message(text: string): void {
  app.replaceChildren(h('p', { class: 'notice', role: 'status' }, text));
}

function show(result: ToolResult): void {
  const usage = result.structuredContent as Usage | undefined;
  if (result.isError || usage === undefined || !Array.isArray(usage.children)) {
    message(result.content?.find((block) => block.type === 'text')?.text ?? 'No usage to show.');
    return;
  }
  render(usage);
}

async function open(path: string): Promise<void> {
  app.setAttribute('aria-busy', 'true');
  try {
    show(await bridge.callTool('directory_usage', { ...args, path }));
    // The keyboard stays in the map: on the new directory's largest part.
    app.querySelector<HTMLElement>('button.tile, button.crumb')?.focus({ preventScroll: true });
  } catch (error) {
    message(`Could not open ${path}: ${(error as Error).message}`);
  } finally {
    app.removeAttribute('aria-busy');
  }
}

/** The directories from the root down to `path`: / /a /a/b, or C:\ C:\a. */
function ancestors(path: string): string[] {
  const separator = path.includes('\\') && !path.startsWith('/') ? '\\' : '/';
  const parts = path.split(separator).filter((part, index) => part !== '' || index === 0);
  const paths: string[] = [];
  let current = '';
  for (const [index, part] of parts.entries()) {
    current = index === 0 ? `${part}${separator}` : `${current}${current.endsWith(separator) ? '' : separator}${part}`;
    paths.push(current);
  }
  return paths;
}

function breadcrumb(path: string): HTMLElement {
  const steps = ancestors(path);
  const items = steps.map((step, index) => {
    const label = index === 0 ? step : baseName(step);
    const last = index === steps.length - 1;
    return h('li', {}, last ? h('span', { 'aria-current': 'page' }, label) : h('button', { type: 'button', class: 'crumb', 'data-path': step }, label));
  });
  const nav = h('nav', { 'aria-label': 'Path' }, h('ol', { class: 'breadcrumb' }, ...items));
  nav.addEventListener('click', (event) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>('button[data-path]');
    if (target) void open(target.dataset.path!);
  });
  return nav;
}

function parts(usage: Usage): Part[] {
  const list: Part[] = usage.children.map((entry) => ({ kind: 'directory', entry }));
  if (usage.others && sizeOf(usage.others) > 0) list.push({ kind: 'others', count: usage.others.count, size: sizeOf(usage.others) });
  const below = usage.children.reduce((sum, entry) => sum + sizeOf(entry), 0) + (usage.others ? sizeOf(usage.others) : 0);
  const own = sizeOf(usage) - below;
  if (own > 0) list.push({ kind: 'files', size: own });
  return list;
}

const partSize = (part: Part): number => (part.kind === 'directory' ? sizeOf(part.entry) : part.size);

function partLabel(part: Part): string {
  if (part.kind === 'directory') return part.entry.name;
  if (part.kind === 'files') return 'files here';
  return `${grouped(part.count)} more`;
}

function tile(part: Part, total: number, box: { x: number; y: number; width: number; height: number }, starred: number): HTMLElement {
  const size = partSize(part);
  const share = total > 0 ? (100 * size) / total : 0;
  const name = partLabel(part);
  const incomplete = part.kind === 'directory' && !part.entry.complete;
  const description =
    `${name}: ${humanSize(size)} ${measure()}, ${share.toFixed(1)}%` +
    (part.kind === 'directory' ? `, ${counted(part.entry.files, 'file')}` : '') +
    (incomplete ? ', not fully listed' : '') +
    (starred > 0 ? `, holds ${starred} of the largest files` : '');
  const style = `left:${box.x}%;top:${box.y}%;width:${box.width}%;height:${box.height}%`;
  const content = [
    h('span', { class: 'name' }, name),
    h('span', { class: 'size' }, humanSize(size)),
    incomplete && h('span', { class: 'flag' }, 'incomplete'),
    starred > 0 && h('span', { class: 'star', 'aria-hidden': 'true' }, `★${starred}`),
  ];
  const classes = `tile ${part.kind}${incomplete ? ' incomplete' : ''}`;
  const data = { class: classes, style, title: description, 'aria-label': description, 'data-size': size, 'data-kind': part.kind };
  if (part.kind !== 'directory') return h('div', { ...data, role: 'img' }, ...content);
  return h('button', { ...data, type: 'button', 'data-path': part.entry.path }, ...content);
}

function treemap(usage: Usage): HTMLElement {
  const all = parts(usage);
  const total = all.reduce((sum, part) => sum + partSize(part), 0);
  const files = usage.largestFiles;
  const starredIn = (part: Part): number =>
    part.kind === 'directory'
      ? files.filter((file) => file.path.startsWith(part.entry.path) && /^[\\/]/.test(file.path.slice(part.entry.path.length))).length
      : 0;
  const tiles = squarify(
    all.map((part) => ({ item: part, size: partSize(part) })),
    { x: 0, y: 0, width: 100, height: 100 },
  );
  const map = h(
    'div',
    { class: 'treemap', role: 'group', 'aria-label': `What fills ${usage.path}, ${measure()}` },
    ...tiles.map((placed) => tile(placed.item, total, placed, starredIn(placed.item))),
  );
  map.addEventListener('click', (event) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>('button[data-path]');
    if (target) void open(target.dataset.path!);
  });
  map.addEventListener('keydown', (event) => moveFocus(map, event));
  if (tiles.length === 0) map.append(h('p', { class: 'empty' }, 'Nothing here takes any space.'));
  return map;
}

/** Arrow keys move between tiles in reading order; Enter and Space press a tile, as any button. */
function moveFocus(map: HTMLElement, event: KeyboardEvent): void {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (step === undefined) return;
  const tiles = [...map.querySelectorAll<HTMLElement>('button.tile')];
  const at = tiles.indexOf(document.activeElement as HTMLElement);
  const next = tiles[Math.min(tiles.length - 1, Math.max(0, at + step))];
  if (next) {
    next.focus();
    event.preventDefault();
  }
}

function summary(usage: Usage): HTMLElement {
  return h(
    'p',
    { class: 'summary' },
    h('strong', {}, humanSize(sizeOf(usage))),
    ` ${measure()} · ${counted(usage.files, 'file')} · ${counted(usage.directories, 'directory', 'directories')}`,
  );
}

function notices(usage: Usage): HTMLElement[] {
  const list: HTMLElement[] = [];
  if (!usage.complete) {
    const again = h('button', { type: 'button', class: 'again' }, 'Show the rest');
    again.addEventListener('click', () => void open(usage.path));
    const count = usage.unfinished?.count ?? 0;
    list.push(h('p', { class: 'notice incomplete', role: 'status' }, `Still walking: ${counted(count, 'directory', 'directories')} not listed yet. `, again));
  }
  if (usage.errors && usage.errors.count > 0) {
    const first = usage.errors.first.map((error) => h('li', {}, `${error.path}: ${error.message}`));
    list.push(
      h(
        'details',
        { class: 'notice unreadable' },
        h('summary', {}, `${counted(usage.errors.count, 'entry', 'entries')} could not be read (not counted)`),
        h('ul', {}, ...first),
      ),
    );
  }
  if (usage.skipped && usage.skipped.length > 0) {
    list.push(h('p', { class: 'notice unreadable' }, `Not entered, not responding: ${usage.skipped.join(', ')}`));
  }
  return list;
}

function largestFiles(usage: Usage): HTMLElement | undefined {
  if (usage.largestFiles.length === 0) return undefined;
  const items = usage.largestFiles.map((file) =>
    h('li', {}, h('span', { class: 'size' }, humanSize(sizeOf(file))), ' ', h('span', { class: 'path' }, file.path)),
  );
  return h('section', { class: 'files', 'aria-label': 'Largest files' }, h('h2', {}, '★ Largest files'), h('ol', {}, ...items));
}

function render(usage: Usage): void {
  app.replaceChildren(breadcrumb(usage.path), summary(usage), ...notices(usage), treemap(usage), largestFiles(usage) ?? '');
}

bridge.connect().catch((error: Error) => message(`The host did not answer: ${error.message}`));
