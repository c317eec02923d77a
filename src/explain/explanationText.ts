// An explanation in words, for a person (diskprobe explain) and a model
// (explain_disk_usage): the figure that matters first, then the parts as a
// short table that sums to df's Used, then what to do, then what was not
// seen. Sizes as df -h prints them.
import { counted } from '../format/counted.js';
import { humanSize } from '../format/humanSize.js';
import type { ExplainUsage } from './types.js';

type Explanation = ExplainUsage<number> | ExplainUsage<bigint>;

function big(value: number | bigint): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/** A signed size: df -h's for the magnitude. */
function signedSize(value: bigint): string {
  return value < 0n ? `-${humanSize(-value)}` : humanSize(value);
}

/** Percent of `whole`, one decimal. */
function share(part: bigint, whole: bigint): string {
  if (whole === 0n) return '';
  const tenths = (part * 1000n) / whole;
  const sign = tenths < 0n ? '-' : '';
  const magnitude = tenths < 0n ? -tenths : tenths;
  return `${sign}${magnitude / 10n}.${magnitude % 10n}%`;
}

/** The one sentence that leads: what holds the most of what a walk does not see. */
function headline(result: Explanation): string {
  const used = big(result.used);
  const total = humanSize(used);
  const deleted = result.deletedOpen ? big(result.deletedOpen.bytes) : 0n;
  const hidden = result.hidden ? big(result.hidden.bytes) : 0n;
  const unexplained = big(result.unexplained);
  const visible = result.visible === null ? null : big(result.visible);
  const gap = used - (visible ?? 0n);
  const notable = used / 100n; // below 1 % of Used, a part does not lead
  if (deleted > notable && deleted >= hidden && deleted >= unexplained) {
    const files = result.deletedOpen!.files.filter((file) => file.bytes !== null);
    const holders = new Set(files.flatMap((file) => file.holders.map((holder) => holder.pid)));
    const who = holders.size === 0 ? 'the kernel (a loop device or swap)' : `${counted(holders.size, 'process', 'processes')}`;
    return `${humanSize(deleted)} of the ${total} used on ${result.mountPoint} is held by deleted files that ${who} still ${holders.size === 1 ? 'has' : 'have'} open.`;
  }
  if (hidden > notable && hidden >= unexplained) {
    return `${humanSize(hidden)} of the ${total} used on ${result.mountPoint} is hidden under mount points: files a mount covers.`;
  }
  if (visible === null) return `${result.mountPoint} has ${total} used; the files on it could not be walked (see below).`;
  if (unexplained > notable)
    return `${humanSize(unexplained)} of the ${total} used on ${result.mountPoint} is not in any file, open file or covered directory that could be seen.`;
  return `The ${total} used on ${result.mountPoint} adds up: the files a walk sees hold ${share(visible, used)} of it${gap > 0n ? `, and the rest is accounted for below` : ''}.`;
}

/** The parts, as rows that sum to Used, then the reserve beside it. */
function partsTable(result: Explanation): string[] {
  const used = big(result.used);
  const rows: [string, string, string, string][] = [];
  const row = (name: string, value: number | bigint | null, note: string, ofUsed = true) => {
    rows.push([name, value === null ? 'unseen' : signedSize(big(value)), value === null || !ofUsed ? '' : share(big(value), used), note]);
  };
  row('visible files', result.visible, `a walk of ${result.walkedFrom} (du -x)`);
  const files = result.deletedOpen?.files.length ?? 0;
  row('deleted, still open', result.deletedOpen?.bytes ?? null, result.deletedOpen ? counted(files, 'file', 'files') : '');
  const mounts = result.hidden?.mounts.filter((mount) => big(mount.files ?? 0) > 0n).length ?? 0;
  row('hidden under mounts', result.hidden?.bytes ?? null, result.hidden ? `beneath ${counted(mounts, 'mount', 'mounts')}` : '');
  row('unexplained', result.unexplained, result.complete ? '' : 'holds what could not be seen');
  row('used', result.used, "df's Used", false);
  // Where nothing is reserved (tmpfs, XFS), the reserve's rows would only say 0.
  if (result.reserved !== 0 && result.reserved !== 0n) row('reserved for root', result.reserved, 'neither used nor available', false);
  if (result.reservedByFileSystem !== 0 && result.reservedByFileSystem !== 0n) {
    row(`kept by ${result.fsType}`, result.reservedByFileSystem, 'neither used nor available', false);
  }
  row('available', result.available, "df's Avail", false);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  return rows.map(([name, size, percent, note]) =>
    `  ${name.padEnd(widths[0]!)}  ${size.padStart(widths[1]!)}  ${percent.padStart(widths[2]!)}  ${note}`.trimEnd(),
  );
}

/** The whole text: headline, table, advice, what was not seen. */
export function explanationText(result: Explanation): string {
  const lines = [headline(result), '', `${result.mountPoint} (${result.fsType}):`, ...partsTable(result)];
  if (result.advice.length > 0) lines.push('', 'What to do:', ...result.advice.map((advice) => `  - ${advice}`));
  if (result.unseen.length > 0) lines.push('', 'Not seen:', ...result.unseen.map((unseen) => `  - ${unseen.part}: ${unseen.reason}`));
  return `${lines.join('\n')}\n`;
}
