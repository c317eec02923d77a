// mountLedTo: following a path's symlinks by name, without touching a mount
// that may not answer. Real directories and links in a temp dir; the mount
// table is made up, so that a "network" mount can sit where nothing exists:
// had the walk looked at it, it would have found nothing and said so.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MountTable, parseMountInfo } from '../../dist/probe/mountTable.js';
import { mountLedTo } from '../../dist/probe/symlinkMount.js';
import { announceSkip, posixPathsSkipReason, tempDir } from '../helpers/system.js';

describe.skipIf(announceSkip('mountLedTo', posixPathsSkipReason))('mountLedTo', () => {
  let dir: string;
  let table: MountTable;
  beforeAll(() => {
    dir = tempDir('diskprobe-led-');
    mkdirSync(join(dir, 'local/deep'), { recursive: true });
    mkdirSync(join(dir, 'ram'));
    symlinkSync(join(dir, 'net'), join(dir, 'to-net'));  // absolute, to the "network" mount
    symlinkSync('to-net', join(dir, 'chain'));  // relative, to the link
    symlinkSync('../ram', join(dir, 'local/up'));  // relative with ..
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    // What the walk sees as mounts: an in-memory root, a tmpfs at ram/, an NFS mount at net/ (which does not exist).
    table = new MountTable(parseMountInfo([
      '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
      `2 1 0:40 / ${join(dir, 'ram')} rw - tmpfs tmpfs rw`,
      `3 1 0:41 / ${join(dir, 'net')} rw - nfs4 server:/export rw`,
    ].join('\n')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the mount a path lies on when it has no symlinks', () => {
    expect(mountLedTo(join(dir, 'local/deep'), table)?.mountPoint).toBe('/');
    expect(mountLedTo(join(dir, 'ram'), table)?.mountPoint).toBe(join(dir, 'ram'));
  });

  it('follows absolute and relative links, links to links and "..", to the mount they lead to', () => {
    expect(mountLedTo(join(dir, 'to-net'), table)?.mountPoint).toBe(join(dir, 'net'));
    expect(mountLedTo(join(dir, 'chain'), table)?.mountPoint).toBe(join(dir, 'net'));
    expect(mountLedTo(join(dir, 'chain/below/it'), table)?.mountPoint).toBe(join(dir, 'net'));
    expect(mountLedTo(join(dir, 'local/up'), table)?.mountPoint).toBe(join(dir, 'ram'));
    expect(mountLedTo(join(dir, 'local/deep/../up/.'), table)?.mountPoint).toBe(join(dir, 'ram'));
  });

  it('stops at a mount that may not answer, without looking at it', () => {
    // net/ does not exist: an lstat there would fail, and the answer would be undefined.
    expect(mountLedTo(join(dir, 'net/anything'), table)?.mountPoint).toBe(join(dir, 'net'));
  });

  it('cannot tell for a loop or a missing component', () => {
    expect(mountLedTo(join(dir, 'loop-a'), table)).toBeUndefined();
    expect(mountLedTo(join(dir, 'missing/x'), table)).toBeUndefined();
  });
});
