// The native backend and the fs.statfs fallback, side by side on the same
// paths: where f_bsize = f_frsize they must agree on every field.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { DeadMountGuard } from '../../dist/probe/deadMountGuard.js';
import { parseMountInfo } from '../../dist/probe/mountInfo.js';
import { MountTable } from '../../dist/probe/mountTable.js';
import { createNativeBackend } from '../../dist/probe/nativeBackend.js';
import { loadNativeBinding } from '../../dist/probe/nativeBinding.js';
import { createStatfsBackend } from '../../dist/probe/statfsBackend.js';
import { announceSkip, linuxSkipReason } from '../helpers/system.js';

const binding = loadNativeBinding();
const skip = announceSkip('native vs fallback', linuxSkipReason ?? (binding instanceof Error ? `the addon does not load: ${binding.message}` : undefined));

describe.skipIf(skip)('native and fallback backends agree', () => {
  // A skipped suite is still collected: read /proc and start the addon only where it runs.
  const table = new MountTable(skip ? [] : parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')));
  const context = { guard: new DeadMountGuard(), mountOf: (key: number, path: string) => table.containing(key, path) ?? table.lexical(path) };
  const native = (skip ? undefined : createNativeBackend(binding as Exclude<typeof binding, Error>, context)) as ReturnType<typeof createNativeBackend>;
  const fallback = createStatfsBackend(context);
  const paths = ['/', '/dev/shm', '/tmp', process.cwd()];

  it.each(paths)('on %s, synchronously and asynchronously, in numbers and bigints', async (path) => {
    const target = { osPath: path, path, mountPoint: table.lexical(path)?.mountPoint ?? '/' };
    for (const bigint of [false, true]) {
      const pairs = [
        [native.sync(target.osPath, target.path, bigint), fallback.sync(target.osPath, target.path, bigint)],
        [await native.async(target, bigint, 5000, undefined), await fallback.async(target, bigint, 5000, undefined)],
        [native.syncWithTimeout(target, bigint, 5000), fallback.syncWithTimeout(target, bigint, 5000)],
      ];
      for (const [a, b] of pairs) {
        // Free space moves between two calls on a busy disk; the rest may not.
        const { free: _fa, available: _aa, used: _ua, usedPercent: _pa, inodes: ia, backend: ba, ...restA } = a!;
        const { free: _fb, available: _ab, used: _ub, usedPercent: _pb, inodes: ib, backend: bb, ...restB } = b!;
        expect(restA).toEqual(restB);
        expect([ba, bb]).toEqual(['native', 'statfs']);
        expect(ia?.total).toEqual(ib?.total);
        if (path !== '/' && path !== '/tmp' && path !== process.cwd()) expect(a).toEqual({ ...b, backend: 'native' });
      }
    }
  });

  it('fail alike on a missing path', async () => {
    const target = { osPath: '/no/such/dir', path: '/no/such/dir', mountPoint: '/' };
    expect(() => native.sync(target.osPath, target.path, false)).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/no/such/dir' }));
    expect(() => fallback.sync(target.osPath, target.path, false)).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/no/such/dir' }));
    await expect(native.async(target, false, 5000, undefined)).rejects.toMatchObject({ code: 'ENOENT', errno: -2 });
    await expect(fallback.async(target, false, 5000, undefined)).rejects.toMatchObject({ code: 'ENOENT', errno: -2 });
  });
});
