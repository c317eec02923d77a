// ui://diskprobe/explain: an explain_disk_usage result as one stacked bar
// of df's Used (the files a walk sees, deleted files still open, files
// hidden under mounts, the rest), each part as wide as its share, then the
// reserve and what is available beside it, the advice, and what could not be
// seen. A part that was not measured is drawn as nothing and named.
import { humanSize } from '../src/format/humanSize.js';
import { h } from './dom.js';
import { HostBridge, type ToolResult } from './hostBridge.js';
import { applyHostContext } from './theme.js';

interface Explanation {
  readonly mountPoint: string;
  readonly fsType: string;
  readonly used: number;
  readonly available: number;
  readonly reserved: number | null;
  readonly reservedByFileSystem: number | null;
  readonly visible: number | null;
  readonly deletedOpen: { readonly bytes: number } | null;
  readonly hidden: { readonly bytes: number } | null;
  readonly unexplained: number;
  readonly advice: readonly string[];
  readonly unseen: readonly { readonly part: string; readonly reason: string }[];
}

interface Part {
  readonly key: string;
  readonly label: string;
  /** Bytes; null where the part was not measured. */
  readonly bytes: number | null;
}

const app = document.getElementById('app')!;

/** Percent of `whole`, one decimal. */
const share = (part: number, whole: number): string => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '');

/** A size that may be negative (unexplained, when a file grew during the walk). */
const size = (bytes: number): string => (bytes < 0 ? `-${humanSize(-bytes)}` : humanSize(bytes));

function partsOf(result: Explanation): Part[] {
  return [
    { key: 'visible', label: 'visible files', bytes: result.visible },
    { key: 'deleted', label: 'deleted, still open', bytes: result.deletedOpen?.bytes ?? null },
    { key: 'hidden', label: 'hidden under mounts', bytes: result.hidden?.bytes ?? null },
    { key: 'unexplained', label: 'unexplained', bytes: result.unexplained },
  ];
}

function bar(parts: readonly Part[], used: number): HTMLElement {
  // Each measured part as wide as its share of Used; a negative rest draws nothing.
  const segments = parts
    .filter((part) => part.bytes !== null && part.bytes > 0)
    .map((part) =>
      h('span', {
        class: `segment ${part.key}`,
        'data-part': part.key,
        'data-bytes': part.bytes!,
        style: `width:${used > 0 ? (100 * part.bytes!) / used : 0}%`,
        title: `${part.label}: ${size(part.bytes!)} (${share(part.bytes!, used)})`,
        role: 'img',
        'aria-label': `${part.label}: ${size(part.bytes!)}, ${share(part.bytes!, used)} of used`,
      }),
    );
  return h('div', { class: 'stacked', role: 'group', 'aria-label': `df's Used, ${humanSize(used)}, by part` }, ...segments);
}

function legend(parts: readonly Part[], used: number): HTMLElement {
  return h(
    'ul',
    { class: 'legend' },
    ...parts.map((part) =>
      h(
        'li',
        { class: `part ${part.key}`, 'data-part': part.key },
        h('span', { class: `swatch ${part.key}` }),
        h('span', { class: 'label' }, part.label),
        ' ',
        h('span', { class: 'bytes' }, part.bytes === null ? 'not seen' : `${size(part.bytes)} · ${share(part.bytes, used)}`),
      ),
    ),
  );
}

function beside(result: Explanation): HTMLElement {
  const rows: string[] = [];
  if (result.reserved !== null && result.reserved > 0) rows.push(`${humanSize(result.reserved)} reserved for root`);
  if (result.reservedByFileSystem !== null && result.reservedByFileSystem > 0) rows.push(`${humanSize(result.reservedByFileSystem)} kept by ${result.fsType}`);
  const reserve = rows.length > 0 ? `; ${rows.join(', ')}: counted as neither used nor available` : '';
  return h('p', { class: 'figures' }, `${humanSize(result.available)} available${reserve}`);
}

function show(result: ToolResult): void {
  const answer = result.structuredContent as Explanation | undefined;
  if (result.isError || answer === undefined || typeof answer.used !== 'number') {
    app.replaceChildren(h('p', { class: 'notice', role: 'status' }, result.content?.find((block) => block.type === 'text')?.text ?? 'Nothing to show.'));
    return;
  }
  const parts = partsOf(answer);
  const children: (HTMLElement | false)[] = [
    h('p', { class: 'summary' }, h('strong', {}, answer.mountPoint), ` (${answer.fsType}): ${humanSize(answer.used)} used`),
    bar(parts, answer.used),
    legend(parts, answer.used),
    beside(answer),
    answer.advice.length > 0 && h('ul', { class: 'advice', 'aria-label': 'What to do' }, ...answer.advice.map((line) => h('li', {}, line))),
    answer.unseen.length > 0 &&
      h(
        'ul',
        { class: 'notice incomplete unseen', 'aria-label': 'Not seen' },
        ...answer.unseen.map((unseen) => h('li', {}, `${unseen.part}: ${unseen.reason}`)),
      ),
  ];
  app.replaceChildren(...children.filter((child): child is HTMLElement => child !== false));
}

const bridge = new HostBridge(
  { name: 'diskprobe explain', version: '1' },
  {
    toolResult: show,
    toolCancelled: () => app.replaceChildren(h('p', { class: 'notice', role: 'status' }, 'The call was cancelled before it answered.')),
    hostContext: applyHostContext,
  },
);
bridge.connect().catch((error: Error) => app.replaceChildren(h('p', { class: 'notice' }, `The host did not answer: ${error.message}`)));
