// The fs-style errors the probe throws, for errno values libuv has no name for.
import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';

import { errnoError, validateTimeout } from '../../dist/probe/errors.js';

describe('probe errors', () => {
  it("names errno values libuv does not know as Node would, with the OS errno negated and glibc's text", () => {
    const stale = errnoError(constants.errno.ESTALE, 'statvfs', '/mnt/nfs');
    expect({ code: stale.code, errno: stale.errno, message: stale.message }).toEqual({
      code: 'ESTALE',
      errno: -constants.errno.ESTALE,
      message: "ESTALE: stale file handle, statvfs '/mnt/nfs'",
    });
    expect(errnoError(constants.errno.EDQUOT, 'statvfs', '/x').message).toBe("EDQUOT: disk quota exceeded, statvfs '/x'");
    // Known to libuv: its own errno and text, as fs reports them.
    expect(errnoError(constants.errno.ENOENT, 'statvfs', '/x')).toMatchObject({
      code: 'ENOENT',
      errno: -constants.errno.ENOENT,
      message: "ENOENT: no such file or directory, statvfs '/x'",
    });
    // No name at all: UNKNOWN, still with its number.
    expect(errnoError(4242, 'statvfs', '/x')).toMatchObject({
      code: 'UNKNOWN',
      errno: -4242,
      message: "UNKNOWN: system error 4242, statvfs '/x'",
      path: '/x',
      syscall: 'statvfs',
    });
  });

  it('rounds a fractional timeout up to whole milliseconds, and keeps Infinity', () => {
    expect(validateTimeout(0.5)).toBe(1);
    expect(validateTimeout(1.5)).toBe(2);
    expect(validateTimeout(100)).toBe(100);
    expect(validateTimeout(Infinity)).toBe(Infinity);
    expect(validateTimeout(undefined)).toBe(undefined);
  });
});
