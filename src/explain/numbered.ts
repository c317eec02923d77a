// An explanation as measured (bigint throughout, files as found) into the
// public shape, in the caller's number type: exact either way, since every
// count is below 2^53 on any file system that exists (a number past it
// would throw here rather than round).
import type { RawDeletedFile, RawExplanation, RawHiddenMount } from './measured.js';
import type { DeletedFile, ExplainUsage, HiddenMount } from './types.js';

function exact(value: bigint): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError(`${value} bytes is past 2^53: ask with { bigint: true }`);
  return number;
}

export function numbered(raw: RawExplanation, bigint: true): ExplainUsage<bigint>;
export function numbered(raw: RawExplanation, bigint: boolean): ExplainUsage<number> | ExplainUsage<bigint>;
export function numbered(raw: RawExplanation, bigint: boolean): ExplainUsage<number> | ExplainUsage<bigint> {
  const n = bigint ? (value: bigint) => value : exact;
  const maybe = (value: bigint | null) => (value === null ? null : n(value));
  const file = (found: RawDeletedFile): DeletedFile<number | bigint> => ({
    path: found.path,
    bytes: found.sized ? n(found.allocated) : null,
    apparent: found.sized || found.heldBy === 'loop' || found.heldBy === 'swap' ? n(found.size) : null,
    inode: maybe(found.inode),
    heldBy: found.heldBy,
    holders: found.holders,
    ...(found.device !== undefined && { device: found.device }),
  });
  const mount = (found: RawHiddenMount): HiddenMount<number | bigint> => ({
    mountPoint: found.mountPoint,
    bytes: maybe(found.bytes),
    files: maybe(found.files),
    complete: found.complete,
  });
  return {
    ...raw,
    blockSize: n(raw.blockSize),
    used: n(raw.used),
    available: n(raw.available),
    reserved: maybe(raw.reserved),
    reservedByFileSystem: maybe(raw.reservedByFileSystem),
    visible: maybe(raw.visible),
    deletedOpen: raw.deletedOpen && { bytes: n(raw.deletedOpen.bytes), files: raw.deletedOpen.files.map(file) },
    hidden: raw.hidden && { bytes: n(raw.hidden.bytes), mounts: raw.hidden.mounts.map(mount) },
    unexplained: bigint ? raw.unexplained : exact(raw.unexplained),
  } as ExplainUsage<number> | ExplainUsage<bigint>;
}
