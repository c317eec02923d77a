// Loads the addon: a prebuilt binary from prebuilds/, or one built from
// native/ into build/. node-gyp-build finds either at run time, so it works
// when install scripts were skipped.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The addon's exports (native/addon/addon.cc). */
export interface NativeBinding {
  /** Result slots: BigUint64Array view at 0, Float64Array view after slotCount × 8 bytes. */
  readonly slots: ArrayBuffer;
  readonly slotCount: number;
  /** Probes on this thread; `withDevice` adds a stat for the device id. Returns 0, or a POSIX errno (syscall in the slots). */
  statSync(path: string, withDevice: boolean): number;
  /**
   * Probes on the addon's thread for `lane`, waiting at most `timeoutMs`. Returns 0, an errno, or -1 when it timed out.
   * With `offMount`, the thread first checks whether the path leads off that mount, and if so moves the probe to the lane given (see pendingOffMount).
   */
  statSyncTimeout(path: string, lane: number, id: number, timeoutMs: number, withDevice: boolean, ...offMount: OffMountCheck | []): number;
  /**
   * Probes `relative` beneath the root of mount `mountId` (at `mountPoint`) on this thread,
   * only if that cannot block: from the dentry cache alone, never leaving the mount (Linux).
   * Returns 0, an errno, CANNOT_PROBE_INLINE, or LEAVES_MOUNT.
   */
  statBeneath(mountPoint: string, mountId: number, relative: string): number;
  /** Queues a probe; the answer comes to the callback. `offMount` as for statSyncTimeout. */
  statAsync(path: string, lane: number, id: number, withDevice: boolean, ...offMount: OffMountCheck | []): void;
  /** Queues several probes at once (one wake-up of the addon's threads); answers come one by one. */
  statAsyncBatch(paths: string[], lanes: number[], ids: number[], withDevice: boolean[]): void;
  abandon(id: number): void;
  /** Whether job `id` is still queued or running. */
  pending(id: number): boolean;
  /** Whether job `id` is still queued or running, and was found to lead off its mount (moved to its off-mount lane). */
  pendingOffMount(id: number): boolean;
  /** [mountPoint, fsType] of the last synchronous probe where the OS names them (macOS, Windows). */
  names(): [string, string] | undefined;
  setCallback(callback: (id: number, status: number, names: [string, string] | undefined) => void): void;
  /** Keep the event loop alive while answers are awaited; unref when none are. */
  ref(): void;
  unref(): void;
  mountTableChanged(): boolean;
  /** Starts a directory walk on the addon's own threads (native/walk/scan.h); `onDone` is called once it has listed every directory. Returns its id. */
  scanStart(path: string, options: NativeScanOptions, onDone: () => void): number;
  /** The walk's tree as it stands (null once released); `maxUnfinished` bounds the unfinished directories listed. */
  scanSnapshot(id: number, maxUnfinished?: number): NativeScanSnapshot | null;
  /** [entries met, their allocated bytes, directories listed] so far. */
  scanProgress(id: number): [number, number, number];
  /** The nodes its threads are on now: after scanStop(), those held in a call that has not returned. */
  scanBusy(id: number): Uint32Array;
  scanStop(id: number): void;
  /** Stops the walk and frees it: its tree as soon as no thread of it runs. The id is no longer known. */
  scanRelease(id: number): void;
  /** The walk no longer keeps the process alive. */
  scanUnref(id: number): void;
  /**
   * Starts a scan of /proc for deleted files still held on the file system
   * whose superblock is device major:minor (native/explain/open_files.h), on
   * a thread of its own that never keeps the process alive; `onDone` is
   * called once it is done. Returns its id.
   */
  openFilesStart(major: number, minor: number, onDone: () => void): number;
  /** What the scan waits on now: a stat that has not returned, or "". */
  openFilesBusy(id: number): string;
  /** The scan's report once it is done, else null. */
  openFilesResult(id: number): NativeOpenFilesReport | null;
  openFilesRelease(id: number): void;
  /** An fd of a detached copy of the mount at `path`, without the mounts on it (open_tree(2), OPEN_TREE_CLONE), or -errno. */
  openTreeClone(path: string): number;
  listMounts(): Array<{ mountPoint: string; device: string; fsType: string; readOnly: boolean; remote: boolean }> | null;
}

/** How a walk runs (native/addon/addon_scan.cc reads these). */
interface NativeScanOptions {
  readonly threads?: number | undefined;
  readonly oneFileSystem?: boolean;
  /** A record of every entry that is not a directory (du -a). */
  readonly keepFiles?: boolean;
  /** The largest files kept per directory. */
  readonly topFiles?: number;
  readonly maxErrors?: number;
  /** [path, major, minor, stuck]: the mount points below the start. */
  readonly mounts?: ReadonlyArray<readonly [string, number, number, boolean]>;
}

/** What a scan of /proc found (native/explain/open_files.h OpenFilesReport). */
export interface NativeOpenFilesReport {
  /** 0, or the errno of reading /proc (ENOSYS off Linux). */
  readonly error: number;
  readonly processes: number;
  readonly descriptors: number;
  /** Deleted files open on mounts of a namespace whose mountinfo could not be read: not placed. */
  readonly unknownMounts: number;
  readonly files: ReadonlyArray<{
    readonly device: bigint;
    readonly inode: bigint;
    readonly allocated: bigint;
    readonly size: bigint;
    /** A stat answered: false for a file held by a mapping alone whose map_files link was not readable. */
    readonly sized: boolean;
    /** The name it had, as raw bytes. */
    readonly path: Buffer;
    /** [pid, fd (-1: a mapping), uid, command]. */
    readonly holders: ReadonlyArray<readonly [number, number, number, string]>;
  }>;
  /** [pid, uid, errno]: processes whose fd table could not be read. */
  readonly unreadable: ReadonlyArray<readonly [number, number, number]>;
  /** Processes in uninterruptible sleep, whose maps were not read. */
  readonly mapsSkipped: readonly number[];
}

/** A walk's errors and what its busy threads are on (native/walk/scan.h ScanError). */
export interface NativeScanError {
  readonly dir: number;
  /** The entry's name, as raw bytes; empty for the directory itself. */
  readonly name: Buffer;
  readonly errno: number;
  /** Index into WALK_SYSCALLS. */
  readonly syscall: number;
}

/** A walk's tree as it stands (native/walk/scan.h ScanSnapshot), as typed arrays. */
export interface NativeScanSnapshot {
  readonly done: boolean;
  readonly stopped: boolean;
  readonly parent: Uint32Array;
  readonly entryIndex: Uint32Array;
  readonly firstChild: Uint32Array;
  readonly childCount: Uint32Array;
  readonly flags: Uint32Array;
  readonly entries: Uint32Array;
  /** SIZES_PER_NODE per node: own allocated, apparent, files; subtree allocated, apparent, files, directories. */
  readonly sizes: BigUint64Array;
  readonly names: Buffer;
  readonly nameEnd: Uint32Array;
  readonly files: {
    readonly dir: Uint32Array;
    readonly entryIndex: Uint32Array;
    /** Two per file: allocated, apparent. */
    readonly sizes: BigUint64Array;
    readonly names: Buffer;
    readonly nameEnd: Uint32Array;
  };
  readonly errorCount: number;
  readonly errors: readonly NativeScanError[];
  readonly unfinishedCount: number;
  readonly unfinished: Uint32Array;
  readonly inProgress: readonly NativeScanError[];
  readonly entriesSeen: number;
}

/** The system calls a walk's errors name, by the index native/walk/scan_platform.h gives them. */
export const WALK_SYSCALLS = ['openat', 'getdents64', 'fstatat', 'statx'] as const;

/** Node flags, as native/walk/scan.h ScanNodeFlags. */
export const NodeFlag = {
  listed: 1,
  unreadable: 2,
  skipped: 4,
  otherDevice: 8,
  duplicate: 16,
  started: 32,
  notDirectory: 64,
} as const;

/** Per node in NativeScanSnapshot.sizes (native/walk/scan.h kSizesPerNode). */
export const SIZES_PER_NODE = 7;

/**
 * [mountPoint, mountId, offLane]: for a path the inline probe could not place
 * (not in the kernel's cache yet), the addon's thread checks first whether it
 * leads off that mount, walking only that mount (native/probe/disk_usage.h,
 * LeadsOffMount), and if so moves the probe to `offLane`.
 */
export type OffMountCheck = [mountPoint: string, mountId: number, offLane: number];

/** Slot indexes, as native/addon/addon.h (Slot) lays them out. */
export const Slot = {
  blockSize: 0,
  total: 1,
  free: 2,
  avail: 3,
  files: 4,
  filesFree: 5,
  filesAvail: 6,
  deviceMajor: 7,
  deviceMinor: 8,
  flags: 9,
  syscall: 10,
  fsidHigh: 11,
  fsidLow: 12,
  mountGeneration: 13,
} as const;

/** statBeneath's answer when only the usual probe can tell (native/probe/disk_usage.h: kCannotProbeInline). */
export const CANNOT_PROBE_INLINE = -2;
/** statBeneath's answer when the path leads off its mount, to another one (kLeavesMount). */
export const LEAVES_MOUNT = -3;

export const Flag = { hasInodes: 1, hasDevice: 2, hasNames: 4 } as const;

/** Syscall names by the index the addon reports (native/probe/disk_usage.h). */
export const SYSCALLS = [
  'statvfs',
  'statvfs',
  'stat',
  'statfs',
  'GetDiskFreeSpaceExW',
  'GetFileAttributesW',
  'GetVolumePathNameW',
  'MultiByteToWideChar',
] as const;

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where node-gyp-build would look first, named directly: build/ (unless
 * PREBUILDS_ONLY), then the prebuild this platform ships (libc told apart as
 * node-gyp-build tells it). Loading node-gyp-build and letting it search
 * prebuilds/ costs 5-6 ms of every start-up (diskprobe df, the server), as
 * much as the whole of a df run; it remains the answer whenever these miss.
 */
function likelyAddon(): string | undefined {
  const candidates: string[] = [];
  if (!process.env.PREBUILDS_ONLY) candidates.push(join(packageRoot, 'build', 'Release', 'diskprobe.node'));
  const dir = join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`);
  if (process.platform === 'linux') candidates.push(join(dir, `diskprobe.${existsSync('/etc/alpine-release') ? 'musl' : 'glibc'}.node`));
  else candidates.push(join(dir, 'diskprobe.node'));
  return candidates.find((file) => existsSync(file));
}

/** Loads the addon, or returns the reason it cannot be loaded. */
export function loadNativeBinding(): NativeBinding | Error {
  const require = createRequire(import.meta.url);
  const direct = likelyAddon();
  if (direct !== undefined) {
    try {
      return require(direct) as NativeBinding;
    } catch {
      // Not loadable here (another libc, a CPU it was not built for): let node-gyp-build choose.
    }
  }
  try {
    const load = require('node-gyp-build') as (dir: string) => NativeBinding;
    return load(packageRoot);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
