// ui://diskprobe/mounts: a list_mounts result as a bar of fullness per
// mount, in the order the tool sorted them. A mount that does not answer is
// marked so, a read-only one says it, and inodes show beside the bytes
// where they are the tighter of the two, by 5 points or more (a disk can be full of small files
// long before its bytes run out).
import { counted, grouped } from '../src/format/counted.js';
import { humanSize } from '../src/format/humanSize.js';
import { meaningfulDevice } from '../src/format/mountLabel.js';
import { h } from './dom.js';
import { HostBridge, type ToolResult } from './hostBridge.js';
import { applyHostContext } from './theme.js';

interface Inodes {
  readonly total: number;
  readonly used: number;
  readonly usedPercent: number;
}

interface Mount {
  readonly mountPoint: string;
  readonly device: string;
  readonly fsType: string;
  readonly readOnly: boolean;
  readonly usage: {
    readonly total: number;
    readonly used: number;
    readonly available: number;
    readonly usedPercent: number;
    readonly inodes: Inodes | null;
  } | null;
  readonly error: string | null;
}

interface Listing {
  readonly mounts: readonly Mount[];
  readonly total: number;
  readonly offset: number;
}

const app = document.getElementById('app')!;
/** Points by which inodes must be fuller than bytes to be shown: the tighter limit, not a rounding's worth. */
const INODES_TIGHTER_BY = 5;

/** df's Use%: the percentage rounded up, so a nearly full disk never reads as less full than it is. */
const percent = (value: number): string => `${Math.ceil(value)}%`;

function meter(label: string, value: number, detail: string): HTMLElement {
  const level = value >= 95 ? 'critical' : value >= 85 ? 'high' : 'normal';
  return h(
    'div',
    {
      class: `meter ${level}`,
      role: 'meter',
      'aria-label': label,
      'aria-valuemin': 0,
      'aria-valuemax': 100,
      'aria-valuenow': Math.min(100, Math.ceil(value)),
      'aria-valuetext': `${percent(value)} used, ${detail}`,
    },
    h('span', { class: 'fill', style: `width:${Math.min(100, value)}%` }),
  );
}

function row(mount: Mount): HTMLElement {
  const badges = [
    h('span', { class: 'badge' }, mount.fsType),
    mount.readOnly && h('span', { class: 'badge readonly' }, 'read-only'),
    mount.error !== null && h('span', { class: 'badge stuck' }, 'not responding'),
  ];
  // The device where it says more than the type (not "devtmpfs" again on devtmpfs).
  const device = meaningfulDevice(mount.fsType, mount.device);
  const head = h(
    'div',
    { class: 'head' },
    h('span', { class: 'point' }, mount.mountPoint),
    ' ',
    ...badges,
    device !== undefined && h('span', { class: 'device' }, device),
  );
  const usage = mount.usage;
  if (usage === null) {
    return h('li', { class: 'mount stuck', 'data-mount-point': mount.mountPoint }, head, h('p', { class: 'error' }, mount.error ?? 'no usage'));
  }
  const bytes = `${humanSize(usage.used)} of ${humanSize(usage.total)}, ${humanSize(usage.available)} available`;
  const parts = [
    head,
    meter(`Space on ${mount.mountPoint}`, usage.usedPercent, bytes),
    h('p', { class: 'figures' }, `${percent(usage.usedPercent)} used · ${bytes}`),
  ];
  const inodes = usage.inodes;
  if (inodes !== null && inodes.total > 0 && inodes.usedPercent >= usage.usedPercent + INODES_TIGHTER_BY) {
    const inodeCount = `${grouped(inodes.used)} of ${counted(inodes.total, 'inode')}`;
    parts.push(
      meter(`Inodes on ${mount.mountPoint}`, inodes.usedPercent, inodeCount),
      h('p', { class: 'figures inodes' }, `${percent(inodes.usedPercent)} of inodes used · ${inodeCount}`),
    );
  }
  return h(
    'li',
    { class: mount.readOnly ? 'mount readonly' : 'mount', 'data-mount-point': mount.mountPoint, 'data-used-percent': usage.usedPercent },
    ...parts,
  );
}

function show(result: ToolResult): void {
  const listing = result.structuredContent as Listing | undefined;
  if (result.isError || listing === undefined || !Array.isArray(listing.mounts)) {
    app.replaceChildren(h('p', { class: 'notice', role: 'status' }, result.content?.find((block) => block.type === 'text')?.text ?? 'No mounts to show.'));
    return;
  }
  const shown = listing.mounts.length;
  const caption =
    shown === listing.total
      ? counted(shown, 'mount')
      : `${grouped(listing.offset + 1)}–${grouped(listing.offset + shown)} of ${counted(listing.total, 'mount')}`;
  app.replaceChildren(h('p', { class: 'summary' }, caption), h('ul', { class: 'mounts', 'aria-label': 'Mounts' }, ...listing.mounts.map(row)));
}

const bridge = new HostBridge(
  { name: 'diskprobe mounts', version: '1' },
  {
    toolResult: show,
    toolCancelled: () => app.replaceChildren(h('p', { class: 'notice', role: 'status' }, 'The call was cancelled before it answered.')),
    hostContext: applyHostContext,
  },
);
bridge.connect().catch((error: Error) => app.replaceChildren(h('p', { class: 'notice' }, `The host did not answer: ${error.message}`)));
