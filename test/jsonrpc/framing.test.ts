import { describe, expect, it } from 'vitest';

import { encodeMessage, type Frame, LineDecoder } from '../../dist/jsonrpc/framing.js';

const lines = (frames: Frame[]): string[] => frames.map((frame) => (frame.kind === 'line' ? frame.text : `<${frame.kind}>`));

describe('LineDecoder', () => {
  it('frames every message, wherever the chunks split it, even inside a multi-byte character', () => {
    const input = Buffer.from('{"a":"磁盘 ✓"}\r\n{"b":2}\n\n{"c":"😀"}\n');
    for (let cut = 0; cut <= input.length; cut++) {
      for (let cut2 = cut; cut2 <= input.length; cut2 += 3) {
        const decoder = new LineDecoder(1024);
        const frames = [
          ...decoder.push(input.subarray(0, cut)),
          ...decoder.push(input.subarray(cut, cut2)),
          ...decoder.push(input.subarray(cut2)),
          ...decoder.end(),
        ];
        expect(lines(frames)).toEqual(['{"a":"磁盘 ✓"}', '{"b":2}', '{"c":"😀"}']);
      }
    }
  });

  it('skips an oversized line up to its newline, reports it once, and goes on', () => {
    const decoder = new LineDecoder(10);
    const frames = [...decoder.push(Buffer.from('{"x":"01234')), ...decoder.push(Buffer.from('56789"}')), ...decoder.push(Buffer.from('\n{"ok":1}\n'))];
    expect(frames).toEqual([
      { kind: 'oversized', bytes: 18 },
      { kind: 'line', text: '{"ok":1}' },
    ]);
    expect(lines(new LineDecoder(4).push(Buffer.from('12345\n1234\n')))).toEqual(['<oversized>', '1234']);
  });

  it('counts an oversized line without the CR of its CRLF, whether skipped early or late (found by fuzzing)', () => {
    // Skipped as it streams in (far over the cap) and caught at its newline (one byte over) must agree.
    expect(new LineDecoder(2).push(Buffer.from('12345\r\n'))).toEqual([{ kind: 'oversized', bytes: 5 }]);
    expect(new LineDecoder(4).push(Buffer.from('12345\r\n'))).toEqual([{ kind: 'oversized', bytes: 5 }]);
    const split = new LineDecoder(2);
    expect([...split.push(Buffer.from('12345\r')), ...split.push(Buffer.from('\n'))]).toEqual([{ kind: 'oversized', bytes: 5 }]);
    const atEnd = new LineDecoder(2);
    expect([...atEnd.push(Buffer.from('12345\r')), ...atEnd.end()]).toEqual([{ kind: 'oversized', bytes: 5 }]);
  });

  it('treats only JSON whitespace as a blank line: a BOM or U+00A0 alone is a line, to be answered -32700 (found by fuzzing)', () => {
    expect(lines(new LineDecoder(100).push(Buffer.from(' \t\r\n\r\n\n')))).toEqual([]);
    expect(lines(new LineDecoder(100).push(Buffer.from('\ufeff\n\u00a0\n\u2028\n')))).toEqual(['\ufeff', '\u00a0', '\u2028']);
  });

  it('counts the cap in bytes, not characters', () => {
    expect(lines(new LineDecoder(6).push(Buffer.from('"磁盘"\n')))).toEqual(['<oversized>']); // 8 bytes
    expect(lines(new LineDecoder(8).push(Buffer.from('"磁盘"\n')))).toEqual(['"磁盘"']);
  });

  it('reports a line that is not valid UTF-8, and keeps the next one', () => {
    const frames = new LineDecoder(100).push(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a, 0x31, 0x0a]));
    expect(lines(frames)).toEqual(['<encoding>', '1']);
  });

  it('keeps a partial line when the caller reuses its buffer', () => {
    const decoder = new LineDecoder(100);
    const buffer = Buffer.from('{"a":');
    decoder.push(buffer);
    buffer.fill(0x20);
    expect(lines(decoder.push(Buffer.from('1}\n')))).toEqual(['{"a":1}']);
  });

  it('returns a last line without a newline at the end of input', () => {
    const decoder = new LineDecoder(100);
    expect(decoder.push(Buffer.from('{"tail":true}'))).toEqual([]);
    expect(lines(decoder.end())).toEqual(['{"tail":true}']);
  });
});

describe('encodeMessage', () => {
  it('writes one line, with raw UTF-8 and escaped control characters', () => {
    const line = encodeMessage({ text: '磁盘\nline' });
    expect(line).toBe('{"text":"磁盘\\nline"}\n');
    expect(line.indexOf('\n')).toBe(line.length - 1);
  });
});
