// Newline-delimited JSON framing, free of I/O: bytes in, complete lines out.
// Chunks are kept in a list until a newline arrives (no concatenation per
// chunk), so a line split across many reads costs one copy, and a multi-byte
// character split across two reads is decoded whole.

/** One framed line, or why there is none. */
export type Frame =
  | { readonly kind: 'line'; readonly text: string }
  /** A line longer than the cap: discarded up to its newline. */
  | { readonly kind: 'oversized'; readonly bytes: number }
  /** A line that is not valid UTF-8. */
  | { readonly kind: 'encoding' };

const NEWLINE = 0x0a;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class LineDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Set while the rest of an oversized line is being skipped; counts its bytes. */
  private skipping: number | undefined;
  /** Whether the last byte skipped was a CR: it then belongs to the line ending, and is not counted. */
  private skippedCr = false;

  constructor(private readonly maxBytes: number) {}

  /** Takes the next chunk; returns the lines it completes. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      this.take(chunk.subarray(start, newline), frames, true);
      start = newline + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start), frames, false);
    return frames;
  }

  /** At end of input: the last line, if it had no newline. */
  end(): Frame[] {
    const frames: Frame[] = [];
    if (this.skipping !== undefined) frames.push({ kind: 'oversized', bytes: this.skippedBytes() });
    else if (this.buffered > 0) this.emit(frames);
    this.reset();
    return frames;
  }

  private take(part: Buffer, frames: Frame[], complete: boolean): void {
    if (this.skipping !== undefined) {
      this.skipping += part.length;
      if (part.length > 0) this.skippedCr = part[part.length - 1] === 0x0d;
    } else if (this.buffered + part.length > this.maxBytes + 1) {
      // + 1: a CRLF's CR is no part of the message
      this.skipping = this.buffered + part.length;
      this.skippedCr = part[part.length - 1] === 0x0d; // part is not empty: buffered alone never exceeds the cap + 1
      this.chunks = [];
      this.buffered = 0;
    } else if (part.length > 0) {
      this.chunks.push(part);
      this.buffered += part.length;
    }
    if (!complete) {
      // The chunk is the caller's and may be reused: keep a copy of the tail.
      const last = this.chunks.length - 1;
      if (last >= 0 && this.chunks[last] === part) this.chunks[last] = Buffer.from(part);
      return;
    }
    if (this.skipping !== undefined) {
      frames.push({ kind: 'oversized', bytes: this.skippedBytes() });
      this.reset();
      return;
    }
    this.emit(frames);
  }

  private emit(frames: Frame[]): void {
    let bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.reset();
    // CRLF is accepted: the CR belongs to the line ending, not the message.
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > this.maxBytes) {
      frames.push({ kind: 'oversized', bytes: bytes.length });
      return;
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      frames.push({ kind: 'encoding' });
      return;
    }
    if (!isBlank(text)) frames.push({ kind: 'line', text });
  }

  /** The skipped line's length as emit() would count it: without the CR of a CRLF. */
  private skippedBytes(): number {
    return this.skipping! - (this.skippedCr ? 1 : 0);
  }

  private reset(): void {
    this.chunks = [];
    this.buffered = 0;
    this.skipping = undefined;
    this.skippedCr = false;
  }
}

/**
 * Blank by JSON's own whitespace (RFC 8259 §2), not String#trim's: a line of
 * U+00A0 or a BOM is no JSON, and gets its -32700 like any other.
 */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * One message as one line. JSON.stringify escapes control characters inside
 * strings, so the only newline is the terminator, and it writes non-ASCII
 * as raw UTF-8 rather than \u escapes (the seed's ensure_ascii=False).
 */
export function encodeMessage(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
