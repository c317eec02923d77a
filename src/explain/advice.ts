// What to do about each part of an explanation, most bytes first: which
// process to restart (or how to empty a deleted log at once), which mount
// to look beneath, how to lower a reserve, and where to look for the rest.
import { humanSize } from '../format/humanSize.js';
import type { RawDeletedFile, RawExplanation } from './measured.js';

/** Files and mounts named at most, each; the rest are summed in one line. */
const SHOWN = 5;

function holderAdvice(file: RawDeletedFile): string {
  const size = humanSize(file.sized ? file.allocated : file.size);
  if (file.heldBy === 'loop') return `${size}: ${file.device} is backed by the deleted ${file.path}: unmount what uses it, then \`losetup -d ${file.device}\``;
  if (file.heldBy === 'swap') return `${size}: the deleted swap file ${file.path} is in use: \`swapoff ${file.path}\` frees it (once memory allows)`;
  const holders = file.holders.map((holder) => `${holder.command} (pid ${holder.pid})`);
  const unique = [...new Set(holders)];
  const who = unique.length <= 3 ? unique.join(', ') : `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more`;
  const withFd = file.holders.find((holder) => holder.fd !== null);
  if (file.heldBy === 'tmpfile')
    return `${size}: an unnamed temporary file (O_TMPFILE) in ${file.path.replace(/\/#\d+$/, '') || '/'}, held by ${who}: freed when it closes it`;
  if (withFd === undefined) return `${size}: ${file.path}, deleted, still mapped by ${who}: restart it to free the space`;
  const truncate = file.holders.length === 1 || unique.length === 1 ? `, or empty it now: \`: > /proc/${withFd.pid}/fd/${withFd.fd}\`` : '';
  return `${size}: ${file.path}, deleted, still open in ${who}: restart or reload it to free the space${truncate}`;
}

export function adviceFor(result: Omit<RawExplanation, 'advice' | 'elapsedMs'>): string[] {
  const advice: { bytes: bigint; text: string }[] = [];
  const files = result.deletedOpen?.files ?? [];
  for (const file of files.slice(0, SHOWN)) advice.push({ bytes: file.sized ? file.allocated : file.size, text: holderAdvice(file) });
  if (files.length > SHOWN) {
    const rest = files.slice(SHOWN).reduce((sum, file) => sum + (file.sized ? file.allocated : 0n), 0n);
    advice.push({ bytes: rest, text: `${humanSize(rest)} more in ${files.length - SHOWN} other deleted files still held (see deletedOpen.files)` });
  }
  // A covered directory that holds nothing still has its own block: no advice for that.
  const mounts = (result.hidden?.mounts ?? []).filter((mount) => (mount.files ?? 0n) > 0n);
  for (const mount of mounts.slice(0, SHOWN)) {
    advice.push({
      bytes: mount.bytes!,
      text:
        `${humanSize(mount.bytes!)} hidden beneath the mount on ${mount.mountPoint}: unmount it to see those files, ` +
        `or bind-mount ${result.mountPoint} elsewhere (\`mount --bind ${result.mountPoint} /mnt/under\`) and look in the same directory there`,
    });
  }
  if (mounts.length > SHOWN) advice.push({ bytes: 0n, text: `${mounts.length - SHOWN} more mounts hide files (see hidden.mounts)` });
  if ((result.reserved ?? 0n) > 0n && result.fsType.startsWith('ext')) {
    advice.push({
      bytes: result.reserved!,
      text: `${humanSize(result.reserved!)} reserved for root (counted as neither used nor available): \`tune2fs -m 1\` on its device lowers the reserve to 1 %`,
    });
  }
  const tenth = result.used / 20n;
  if (result.unexplained > tenth && result.unexplained > 0n) {
    advice.push({
      bytes: result.unexplained,
      text: `${humanSize(result.unexplained)} unexplained; on ${result.fsType} that is usually: ${result.remainder.join('; ')}`,
    });
  }
  return advice.sort((a, b) => (b.bytes > a.bytes ? 1 : b.bytes < a.bytes ? -1 : 0)).map((item) => item.text);
}
