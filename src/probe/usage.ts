// The one place DiskUsage objects are made, so every backend returns the same
// shape (and V8 sees one hidden class).
import type { Backend, DiskUsage, InodeUsage } from './types.js';

export function makeUsage<N extends number | bigint>(
  path: string,
  mountPoint: string | null,
  fsType: string | null,
  total: N,
  free: N,
  available: N,
  used: N,
  usedPercent: number,
  blockSize: N,
  inodes: InodeUsage<N> | null,
  backend: Backend,
): DiskUsage<N> {
  return { path, mountPoint, fsType, total, free, available, used, usedPercent, blockSize, inodes, backend };
}

export function makeInodes<N extends number | bigint>(total: N, free: N, available: N, used: N, usedPercent: number): InodeUsage<N> {
  return { total, free, available, used, usedPercent };
}
