// The cursor of a tool's paged answer (list_mounts, fleet_disk_usage): the
// offset of the next page, tied to the arguments that made the listing, so
// that a cursor cannot page through a different one. Opaque to the model.

/** A short hash (FNV-1a) of the listing's arguments: a long filter cannot make the cursor long. */
function argumentsKey(listing: readonly unknown[]): string {
  const text = JSON.stringify(listing);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}

/** The cursor to the page that starts at `offset` of the listing made with `listing` (the arguments that shape it). */
export function encodeCursor(offset: number, listing: readonly unknown[]): string {
  return Buffer.from(JSON.stringify({ offset, query: argumentsKey(listing) })).toString('base64url');
}

/**
 * The offset a cursor points at, or why it cannot be used. `tool` and
 * `shaping` (the argument names that shape the listing) word the advice.
 */
export function decodeCursor(cursor: string, listing: readonly unknown[], tool: string, shaping: string): number | string {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { offset?: unknown; query?: unknown };
    if (!Number.isInteger(decoded.offset) || (decoded.offset as number) < 0) throw new Error('no offset');
    if (decoded.query !== argumentsKey(listing))
      return `this cursor belongs to a listing with other arguments: pass the same ${shaping} with it, or start again without a cursor`;
    return decoded.offset as number;
  } catch {
    return `this is not a cursor ${tool} gave: pass nextCursor exactly as received, or start again without one`;
  }
}
