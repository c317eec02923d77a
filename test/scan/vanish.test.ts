// A file removed while the walk lists its directory, made deterministic by
// the FUSE fixture's `vanish` mode (test/fixtures/fusefix.c): its root lists
// "small", "gone" and "large", and "gone" answers ENOENT when looked up.
// The walk must count the other two, name "gone" among its errors as fs
// does, and finish. Runs once per backend.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse } from '../helpers/system.js';
import { directoryUsage } from '../lib.js';
import { duTotals, gnuDuSkipReason } from './duOracle.js';
import { backendUnderTest, expectListed } from './expectations.js';

describe.skipIf(announceSkip(`a file removed during the walk (${backendUnderTest})`, fuseSkipReason ?? gnuDuSkipReason))(
  `a file removed during the walk, ${backendUnderTest}`,
  () => {
    let fuse: FuseMount | undefined;
    afterEach(() => {
      fuse?.cleanup();
      fuse = undefined;
    });

    it('is counted among the errors as ENOENT with its path; the rest is counted and the walk ends', async () => {
      fuse = await mountFuse('vanish');
      const usage = await directoryUsage(fuse.dir, { fresh: true, depth: 1 });
      // fusefix.c's figures: small 1000 bytes in 8 blocks, large 10000 in 24, the root none.
      expect(usage).toMatchObject({ path: fuse.dir, allocated: 16384, apparent: 11000, files: 2, directories: 1 });
      // du counts the same, and complains of the same file.
      const expected = duTotals(fuse.dir, [], true);
      expect({ allocated: usage.allocated, apparent: usage.apparent, inodes: usage.files + usage.directories }).toEqual({
        allocated: Number(expected.allocated),
        apparent: Number(expected.apparent),
        inodes: Number(expected.inodes),
      });
      const gone = join(fuse.dir, 'gone');
      expect(usage.errors.count).toBe(1);
      expect(usage.errors.first).toEqual([
        {
          path: gone,
          code: 'ENOENT',
          syscall: expect.stringMatching(/stat/),
          message: expect.stringMatching(/^ENOENT: no such file or directory, \w*stat\w* '/),
        },
      ]);
      expect(usage.errors.first[0]!.message).toContain(`'${gone}'`);
      expect(usage.largestFiles.map((file) => file.path)).toEqual([join(fuse.dir, 'large'), join(fuse.dir, 'small')]);
      expect(usage.skipped).toEqual([]);
      // Listed to the end: a file gone is not a directory left unread.
      expectListed(usage);
    });
  },
);
