// Draws assets/icon.png, the MCP Bundle's icon (512×512, as mcpb recommends):
// a disk's fullness as a ring, three quarters filled, on a rounded square.
// Plain code and zlib rather than an image library: the picture is a few
// shapes, and the output is the same bytes on every machine.
//   node scripts/draw-icon.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 512;
/** Samples per pixel side, for smooth edges. */
const SS = 4;
const BACKGROUND = [0x1f, 0x29, 0x37];
const TRACK = [0x37, 0x41, 0x51];
const FILL = [0x34, 0xd3, 0x99];
const CENTER = [0xf9, 0xfa, 0xfb];

/** The colour at (x, y) in 0..SIZE, or undefined outside the rounded square. */
function colourAt(x, y) {
  const r = 96; // corner radius
  const cx = Math.min(Math.max(x, r), SIZE - r);
  const cy = Math.min(Math.max(y, r), SIZE - r);
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return undefined;
  const dx = x - SIZE / 2;
  const dy = y - SIZE / 2;
  const d = Math.hypot(dx, dy);
  if (d < 56) return CENTER;
  if (d < 140 || d > 200) return BACKGROUND;
  // Clockwise from 12 o'clock: the first three quarters are used space.
  const turn = (Math.atan2(dx, -dy) / (2 * Math.PI) + 1) % 1;
  return turn < 0.75 ? FILL : TRACK;
}

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    const sum = [0, 0, 0, 0];
    for (let sy = 0; sy < SS; sy++) {
      for (let sx = 0; sx < SS; sx++) {
        const colour = colourAt(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
        if (colour === undefined) continue;
        for (let c = 0; c < 3; c++) sum[c] += colour[c];
        sum[3] += 1;
      }
    }
    const at = y * (SIZE * 4 + 1) + 1 + x * 4;
    const covered = sum[3];
    for (let c = 0; c < 3; c++) raw[at + c] = covered === 0 ? 0 : Math.round(sum[c] / covered);
    raw[at + 3] = Math.round((covered / (SS * SS)) * 255);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../assets/icon.png', import.meta.url), png);
console.log(`assets/icon.png: ${SIZE}×${SIZE}, ${png.length} bytes`);
