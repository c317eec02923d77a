// loopback.ts tells IPv4 addresses apart without node:net (which the command
// line would otherwise load at every start): node:net's isIP is the oracle.
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { isIPv4, isLoopbackHost, isLoopbackName } from '../../../dist/transport/http/loopback.js';

const byte = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '01', '007', '-1', '', ' 1', '1 ', '0x1', '1e2', '255', '256'));
const addressLike = fc.oneof(
  fc.tuple(byte, byte, byte, byte).map((parts) => parts.join('.')),
  fc.array(byte, { maxLength: 6 }).map((parts) => parts.join('.')),
  fc.string(),
  fc.constantFrom('127.0.0.1', '127.1', '127.0.0.1.', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', '127.0.0.1\n', '１２７.0.0.1'),
);

describe('loopback', () => {
  it("tells IPv4 addresses as node:net's isIP does", () => {
    fc.assert(
      fc.property(addressLike, (name) => {
        expect(isIPv4(name)).toBe(isIP(name) === 4);
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes localhost, 127.0.0.0/8 and ::1 (bracketed or not) for loopback, and nothing else', () => {
    for (const host of ['localhost', '127.0.0.1', '127.255.0.9', '::1', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['127.1', '128.0.0.1', '0.0.0.0', '::', '[::]', 'localhost.', 'example.com', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host)).toBe(false);
    for (const name of ['localhost', '127.0.0.1', '127.3.2.1', '[::1]', '::1']) expect(isLoopbackName(name)).toBe(true);
    for (const name of ['127.1', '10.0.0.1', 'example.com', '[::2]']) expect(isLoopbackName(name)).toBe(false);
  });
});
