// When df counts far more used than the files a walk finds, the tools that
// see both say so and point to explain_disk_usage, which says why.
import { humanSize } from '../../../format/humanSize.js';

/** A gap worth a word: a tenth of Used, and at least 64 MiB. */
const GAP_SHARE = 10;
const GAP_MIN_BYTES = 64 * 2 ** 20;

/** The sentence for a gap between df's `used` and the `walked` bytes of the file system at `mountPoint`; undefined when it is small. */
export function dfGapNote(used: number, walked: number, mountPoint: string): string | undefined {
  const gap = used - walked;
  if (gap <= Math.max(used / GAP_SHARE, GAP_MIN_BYTES)) return undefined;
  return (
    `df counts ${humanSize(used)} used on ${mountPoint}, ${humanSize(gap)} more than the files a walk finds there: ` +
    'explain_disk_usage says where the rest is (deleted files still open, files hidden under mounts).'
  );
}
