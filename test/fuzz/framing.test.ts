// Framing, fuzzed: any bytes, cut into chunks at any points, must frame as
// the reference model says (split on LF, one CR stripped, the cap, strict
// UTF-8), and the decoder must never throw nor keep the caller's buffers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { type Frame, LineDecoder } from '../../dist/jsonrpc/framing.js';
import { modelFrames } from './model.js';
import { check } from './seed.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Pieces that make framing interesting, among arbitrary bytes. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(utf8('\n'), utf8('\r'), utf8('\r\n'), utf8('\n\n'), utf8(' '), utf8('\t')) },
  { weight: 4, arbitrary: fc.constantFrom(utf8('{"a":1}'), utf8('"磁盘"'), utf8('😀'), utf8('x'), utf8('[]')) },
  // Valid and broken UTF-8: BOM, NBSP, U+2028, a cut 3-byte sequence, 0xFF, an overlong NUL, an encoded surrogate.
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      bytes(0xef, 0xbb, 0xbf),
      bytes(0xc2, 0xa0),
      bytes(0xe2, 0x80, 0xa8),
      bytes(0xe7, 0xa3),
      bytes(0xff),
      bytes(0xc0, 0x80),
      bytes(0xed, 0xa0, 0x80),
      bytes(0x80),
    ),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 12 }) },
);

const input = fc.array(piece, { maxLength: 40 }).map((pieces) => Buffer.concat(pieces));
/** Cut points anywhere in the input (sorted, duplicates allowed: empty chunks happen). */
const cuts = fc.array(fc.nat(), { maxLength: 12 });

/** Feeds `data` cut at `at`, spoiling each chunk after push as a caller reusing its buffer would. */
function decode(data: Buffer, at: number[], cap: number): Frame[] {
  const points = at.map((n) => (data.length === 0 ? 0 : n % (data.length + 1))).sort((a, b) => a - b);
  const decoder = new LineDecoder(cap);
  const frames: Frame[] = [];
  let from = 0;
  for (const to of [...points, data.length]) {
    const chunk = Buffer.from(data.subarray(from, to));
    frames.push(...decoder.push(chunk));
    chunk.fill(0x0a);
    // The memory bound: never more than the cap (and a CR) held, however long the line.
    // A private field, read on purpose: no public API shows it, and a rename should fail here loudly.
    expect((decoder as unknown as { buffered: number }).buffered).toBeLessThanOrEqual(cap + 1);
    from = to;
  }
  frames.push(...decoder.end());
  return frames;
}

describe('LineDecoder under fuzzing', () => {
  it('frames any bytes, cut anywhere, as the reference model does', async () => {
    await check(
      fc.property(input, cuts, fc.integer({ min: 0, max: 40 }), (data, at, cap) => {
        expect(decode(data, at, cap)).toEqual(modelFrames(data, cap));
      }),
      20_000,
      1,
    );
  });

  it('gives the same frames however the input is cut', async () => {
    await check(
      fc.property(input, cuts, cuts, (data, a, b) => {
        expect(decode(data, a, 1 << 20)).toEqual(decode(data, b, 1 << 20));
      }),
      5_000,
      2,
    );
  });

  it('skips a line far over the cap without keeping it, and frames the next', async () => {
    await check(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 5000 }), fc.boolean(), cuts, (cap, over, crlf, at) => {
        const long = Buffer.alloc(cap + over, 0x61);
        const data = Buffer.concat([long, Buffer.from(crlf ? '\r\n' : '\n'), Buffer.from('1\n')]);
        expect(decode(data, at, cap)).toEqual([
          { kind: 'oversized', bytes: cap + over },
          { kind: 'line', text: '1' },
        ]);
      }),
      2_000,
      3,
    );
  });
});
