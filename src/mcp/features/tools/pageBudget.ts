// One page of a listing tool's answer (list_mounts, fleet_disk_usage,
// disk_fill_forecast): as many items as asked for, while the text and the
// structuredContent each stay within TEXT_BUDGET bytes, however many items
// there are, so that no answer floods the model's context.

/** Bytes of text an answer holds at most; its structuredContent is held to the same. */
export const TEXT_BUDGET = 16 * 1024;
/** Room kept for the summary above the lines and the pointer to the rest below them. */
const FRAME_RESERVE = 1024;

/**
 * The items from `start` that fit: at most `limit`, and at least one, each
 * with its line of text and its entry of structuredContent.
 */
export function fitPage<T>(items: readonly T[], start: number, limit: number, line: (item: T) => string, entry: (item: T) => unknown): T[] {
  const page: T[] = [];
  let textBytes = FRAME_RESERVE;
  let dataBytes = FRAME_RESERVE;
  for (let i = start; i < items.length && page.length < limit; i++) {
    const item = items[i]!;
    const lineBytes = Buffer.byteLength(line(item)) + 1;
    const entryBytes = Buffer.byteLength(JSON.stringify(entry(item))) + 1;
    if (page.length > 0 && (textBytes + lineBytes > TEXT_BUDGET || dataBytes + entryBytes > TEXT_BUDGET)) break;
    page.push(item);
    textBytes += lineBytes;
    dataBytes += entryBytes;
  }
  return page;
}
