// Probes through the addon: statvfs + stat in one call, exact bytes from
// f_frsize, and asynchronous probes on the addon's own threads.
import type { AnyUsage, ProbeBackend, ProbeContext, ProbeTarget } from './backend.js';
import { LaneIds, namedPath } from './backend.js';
import { type Deadline, DeadlineTimer } from './deadlines.js';
import { abortError, errnoError, timeoutError } from './errors.js';
import type { MountEntry } from './mountEntry.js';
import { deviceKey } from './mountInfo.js';
import { CANNOT_PROBE_INLINE, Flag, LEAVES_MOUNT, type NativeBinding, type OffMountCheck, Slot, SYSCALLS } from './nativeBinding.js';
import { usedPercent, usedPercentBig } from './percent.js';
import type { CancelSignal } from './types.js';
import { makeInodes, makeUsage } from './usage.js';

const SAFE = Number.MAX_SAFE_INTEGER;
/** 2^64 - 1 as a double (2^64): a count the file system says it does not know. */
const UNKNOWN_COUNT = 2 ** 64;
const TIMED_OUT = -1;

/**
 * What a path's last full probe learned: the mount that holds it, and a
 * fingerprint of that file system (f_fsid and its sizes). While the mount
 * table is unchanged and statvfs still shows the same fingerprint, the path
 * is on the same mount, so repeated probes skip the stat syscall, which is
 * half their cost. (A symlink re-pointed between two mounts of one file
 * system keeps the same numbers, and at worst the first mount's name.)
 */
interface KnownMount {
  /** The addon's mount-table generation when it was learned (Slot.mountGeneration). */
  readonly generation: number;
  readonly fsidHigh: number;
  readonly fsidLow: number;
  readonly total: number;
  readonly files: number;
  readonly mount: MountEntry | undefined;
  /** Whether the string the kernel was given is also the path reported (absolute, normal): then a call with it may skip validation. */
  readonly plain: boolean;
}

const KNOWN_LIMIT = 1024;
/** Lanes per mount for paths that lead off it (see laneOf). */
const OFF_MOUNT_LANES = 4;

interface Waiter {
  readonly id: number;
  /** What its timeout marks as stuck (probeKey), and its lane's key. */
  readonly key: string;
  /** Set when the addon's thread checks whether the path leads off its mount (offMountCheck). */
  readonly check: OffMountCheck | undefined;
  readonly target: ProbeTarget;
  readonly bigint: boolean;
  readonly resolve: (usage: AnyUsage) => void;
  readonly reject: (error: Error) => void;
  readonly started: number;
  /** What the last full probe of the path learned, if this one skipped the stat. */
  recalled: KnownMount | undefined;
  deadline: Deadline | undefined;
  signal: CancelSignal | undefined;
  onAbort: (() => void) | undefined;
}

export function createNativeBackend(binding: NativeBinding, context: ProbeContext): ProbeBackend {
  const u64 = new BigUint64Array(binding.slots, 0, binding.slotCount);
  const f64 = new Float64Array(binding.slots, binding.slotCount * 8, binding.slotCount);
  const waiting = new Map<number, Waiter>();
  const deadlines = new DeadlineTimer();
  /** Waits without a deadline; they alone need the addon's callback to keep the loop alive. */
  let unbounded = 0;
  const lanes = new LaneIds();
  const { guard } = context;
  const known = new Map<string, KnownMount>();
  // Probes asked for in this turn of the event loop, queued to the addon
  // together once it ends: one wake-up of its threads, not one per probe
  // (bench:server measured the wake-ups as the cost of a burst of calls).
  let queued = { paths: [] as string[], lanes: [] as number[], ids: [] as number[], devices: [] as boolean[] };
  const flushQueued = (): void => {
    const { paths, lanes, ids, devices } = queued;
    queued = { paths: [], lanes: [], ids: [], devices: [] };
    if (paths.length === 1) binding.statAsync(paths[0]!, lanes[0]!, ids[0]!, devices[0]!);
    else binding.statAsyncBatch(paths, lanes, ids, devices);
  };
  const submit = (path: string, lane: number, id: number, withDevice: boolean, check?: OffMountCheck): void => {
    if (check !== undefined) {
      binding.statAsync(path, lane, id, withDevice, ...check); // rare: a path not in the cache
      return;
    }
    if (queued.paths.length === 0) queueMicrotask(flushQueued);
    queued.paths.push(path);
    queued.lanes.push(lane);
    queued.ids.push(id);
    queued.devices.push(withDevice);
  };
  let lastId = 0;

  const nextId = (): number => (lastId = lastId >= 0xfffffff0 ? 1 : lastId + 1);

  /**
   * Whether the answer in the slots comes from the file system `entry` saw,
   * with the mount table unchanged since (every answer carries the table's
   * generation).
   */
  function sameFileSystem(entry: KnownMount): boolean {
    return (
      f64[Slot.mountGeneration] === entry.generation &&
      f64[Slot.fsidHigh] === entry.fsidHigh &&
      f64[Slot.fsidLow] === entry.fsidLow &&
      f64[Slot.total] === entry.total &&
      f64[Slot.files] === entry.files
    );
  }

  /** Keeps what a probe with the device id just learned. */
  function remember(osPath: string, path: string, mount: MountEntry | undefined): void {
    if (known.size >= KNOWN_LIMIT) known.clear();
    known.set(osPath, {
      plain: osPath === path,
      generation: f64[Slot.mountGeneration]!,
      fsidHigh: f64[Slot.fsidHigh]!,
      fsidLow: f64[Slot.fsidLow]!,
      total: f64[Slot.total]!,
      files: f64[Slot.files]!,
      mount,
    });
  }

  /** Builds the result of the probe whose answer is in the slots now; `known` is the mount that holds `path`, when that is known already. */
  function readSlots(osPath: string, path: string, bigint: boolean, names: readonly [string, string] | undefined, known?: MountEntry, learn = false): AnyUsage {
    const flags = f64[Slot.flags]!;
    let mountPoint: string | null = null;
    let fsType: string | null = null;
    let mount: MountEntry | undefined = known;
    if (flags & Flag.hasNames) {
      names ??= binding.names();
      if (names) [mountPoint, fsType] = names;
    } else if (flags & Flag.hasDevice) {
      mount = context.mountOf(deviceKey(f64[Slot.deviceMajor]!, f64[Slot.deviceMinor]!), osPath, path);
      if (learn) remember(osPath, path, mount);
    }
    if (mount) {
      mountPoint = mount.mountPoint;
      fsType = mount.fsType;
    }
    // 2^64 - 1 inodes is "unknown" (hugetlbfs without a limit): none to report.
    const hasInodes = (flags & Flag.hasInodes) !== 0 && f64[Slot.files]! < UNKNOWN_COUNT;
    if (bigint) {
      const total = u64[Slot.total]!,
        free = u64[Slot.free]!,
        available = u64[Slot.avail]!;
      const used = total - free;
      let inodes = null;
      if (hasInodes) {
        const files = u64[Slot.files]!,
          filesFree = u64[Slot.filesFree]!;
        inodes = makeInodes(files, filesFree, u64[Slot.filesAvail]!, files - filesFree, usedPercentBig(files - filesFree, filesFree));
      }
      return makeUsage(path, mountPoint, fsType, total, free, available, used, usedPercentBig(used, available), u64[Slot.blockSize]!, inodes, 'native');
    }
    const total = f64[Slot.total]!,
      free = f64[Slot.free]!,
      available = f64[Slot.avail]!;
    // Above 2^53 the doubles are rounded: take the difference and the
    // percentage from the exact 64-bit slots instead.
    const exact = total <= SAFE;
    const used = exact ? total - free : Number(u64[Slot.total]! - u64[Slot.free]!);
    const percent = exact ? usedPercent(used, available) : usedPercentBig(u64[Slot.total]! - u64[Slot.free]!, u64[Slot.avail]!);
    let inodes = null;
    if (hasInodes) {
      const files = f64[Slot.files]!,
        filesFree = f64[Slot.filesFree]!;
      inodes = makeInodes(files, filesFree, f64[Slot.filesAvail]!, files - filesFree, usedPercent(files - filesFree, filesFree));
    }
    return makeUsage(path, mountPoint, fsType, total, free, available, used, percent, f64[Slot.blockSize]!, inodes, 'native');
  }

  const inlineProbes = process.platform === 'linux' && typeof binding.statBeneath === 'function';

  /**
   * Probes on this thread when nothing in the way can block: the path's
   * mount keeps its counts in memory (ext4, tmpfs, ...), and the kernel
   * resolves the path from its cache without leaving that mount
   * (native/probe/disk_usage.h, ProbeBeneath). That skips the two thread
   * hand-offs of a probe on the addon's threads. 0 or an errno is the
   * answer; LEAVES_MOUNT, that the path leads off its mount; undefined,
   * that the usual probe must tell (a path not yet in the cache, any other
   * file system).
   */
  function probeInline(target: ProbeTarget): number | undefined {
    const mount = target.mount;
    if (!inlineProbes || mount === undefined || !mount.answersFromMemory || target.osPath !== target.path) return undefined;
    // A path seen to lead off its mount (a symlink to another one) goes
    // straight to its own lane: asking again would cost the attempt each time.
    if (offMount.get(target.path) === mount) return LEAVES_MOUNT;
    const { mountPoint } = mount;
    const relative = target.path.length <= mountPoint.length ? '' : target.path.slice(mountPoint.length === 1 ? 1 : mountPoint.length + 1);
    const status = binding.statBeneath(mountPoint, mount.mountId, relative);
    if (status === LEAVES_MOUNT) {
      if (offMount.size >= KNOWN_LIMIT) offMount.clear();
      offMount.set(target.path, mount);
    }
    return status === CANNOT_PROBE_INLINE ? undefined : status;
  }
  /** Paths that led off their mount, with the table entry of that mount: a re-read table (new entries) asks again. */
  const offMount = new Map<string, MountEntry>();

  const failure = (status: number, path: string): Error => errnoError(status, SYSCALLS[f64[Slot.syscall]!] ?? 'statvfs', path);

  /**
   * What a probe that does not answer holds up, which later probes fail
   * fast on, and the lane it runs in: its mount; or, for a path that leads
   * off its mount (a symlink into a dead mount), the path itself, so that
   * the mount it lies on by name is not held up.
   */
  const probeKey = (target: ProbeTarget, inline: number | undefined): string => (inline === LEAVES_MOUNT ? target.path : target.mountPoint);

  /**
   * The lane for a probe: its mount's, or for a path that leads off its
   * mount, one of OFF_MOUNT_LANES lanes of that mount chosen by the path, so
   * that such paths neither wait behind the mount's lane nor take a thread
   * each (a thread per lane at most).
   */
  function laneOf(target: ProbeTarget, key: string): number {
    if (key === target.mountPoint) return lanes.of(key);
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
    return lanes.of(`${target.mountPoint}\0${(hash >>> 0) % OFF_MOUNT_LANES}`);
  }

  /**
   * For a path the inline probe could not place (not in the kernel's cache
   * yet) on a mount that keeps its counts in memory: the addon's thread
   * checks first whether the path may lead off the mount (a symlink on the
   * way), walking that mount alone, and if so moves the probe to one of the
   * mount's off-mount lanes. A symlink into a dead mount, cold in the cache,
   * then neither holds up the mount it lies on nor, at its timeout, marks it
   * (stuckKey).
   */
  function offMountCheck(target: ProbeTarget, inline: number | undefined): OffMountCheck | undefined {
    const mount = target.mount;
    if (inline !== undefined || !inlineProbes || mount === undefined || !mount.answersFromMemory) return undefined;
    if (target.osPath !== target.path || target.path === mount.mountPoint) return undefined;
    return [mount.mountPoint, mount.mountId, laneOf(target, target.path)];
  }

  /** What a probe that timed out holds up: `key` (probeKey), or the path itself when the addon's thread found it leads off its mount. */
  function stuckKey(id: number, target: ProbeTarget, key: string, check: OffMountCheck | undefined): string {
    if (check === undefined || !binding.pendingOffMount(id)) return key;
    // Learned for good: later probes of the path go straight to its lane.
    if (offMount.size >= KNOWN_LIMIT) offMount.clear();
    offMount.set(target.path, target.mount!);
    return target.path;
  }

  function markStuck(id: number, target: ProbeTarget, key: string, started: number, timeout: number): void {
    if (!binding.pending(id)) return; // it has returned meanwhile (its answer is on the way): nothing is stuck
    guard.markStuck({ mountPoint: key, path: target.path, since: started, token: id, settled: () => !binding.pending(id) }, timeout);
  }

  function settle(id: number, waiter: Waiter): void {
    waiting.delete(id);
    if (waiter.deadline) deadlines.cancel(waiter.deadline);
    else if (--unbounded === 0) binding.unref();
    if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
  }

  /** Gives up on a probe still in the kernel: its answer will be ignored. */
  function abandon(id: number, error: Error): void {
    const waiter = waiting.get(id);
    if (!waiter) return;
    settle(id, waiter);
    binding.abandon(id);
    waiter.reject(error);
  }

  binding.setCallback((id, status, names) => {
    const waiter = waiting.get(id);
    if (waiter === undefined) {
      guard.settle(id); // an abandoned call returned: its mount answers again
      return;
    }
    const { recalled, target } = waiter;
    if (status === 0 && recalled !== undefined && !sameFileSystem(recalled)) {
      // Another file system answers for the path now: ask again, with the device.
      waiter.recalled = undefined;
      submit(target.osPath, laneOf(target, waiter.key), id, true, waiter.check);
      return;
    }
    settle(id, waiter);
    if (status === 0) waiter.resolve(readSlots(target.osPath, target.path, waiter.bigint, names, recalled?.mount, recalled === undefined));
    else waiter.reject(failure(status, namedPath(target.osPath, target.path)));
  });

  /** A probe on this thread (see ProbeBackend.sync); `recalled` is what the last full probe of `path` learned. */
  function probeHere(osPath: string, path: string, bigint: boolean, recalled: KnownMount | undefined): AnyUsage {
    // "/", known, on a file system that keeps its counts in memory: one
    // fstatvfs on its open root (the addon keeps only that one open), no
    // path to walk.
    const mount = recalled?.mount;
    if (path === '/' && inlineProbes && mount?.answersFromMemory && mount.mountPoint === '/') {
      const status = binding.statBeneath(mount.mountPoint, mount.mountId, '');
      if (status === 0) return readSlots(osPath, path, bigint, undefined, mount);
    }
    let status = binding.statSync(osPath, recalled === undefined);
    if (status === 0 && recalled !== undefined && !sameFileSystem(recalled)) {
      recalled = undefined;
      status = binding.statSync(osPath, true);
    }
    if (status !== 0) throw failure(status, namedPath(osPath, path));
    return readSlots(osPath, path, bigint, undefined, recalled?.mount, recalled === undefined);
  }

  return {
    name: 'native',

    ...(process.platform !== 'win32' && {
      syncKnown(path: unknown) {
        const recalled = known.get(path as string);
        return recalled?.plain === true ? probeHere(path as string, path as string, false, recalled) : undefined;
      },
    }),

    sync(osPath, path, bigint) {
      return probeHere(osPath, path, bigint, known.get(osPath));
    },

    inline(target, bigint) {
      const status = probeInline(target);
      if (status === undefined || status === LEAVES_MOUNT) return undefined;
      if (status !== 0) throw failure(status, namedPath(target.osPath, target.path));
      return readSlots(target.osPath, target.path, bigint, undefined, target.mount);
    },

    mountPoint(mount, bigint) {
      const status = binding.statSync(mount.mountPoint, false);
      if (status !== 0) throw failure(status, mount.mountPoint);
      return readSlots(mount.mountPoint, mount.mountPoint, bigint, undefined, mount);
    },

    syncWithTimeout(target, bigint, timeout) {
      const inline = probeInline(target);
      if (inline !== undefined && inline !== LEAVES_MOUNT) {
        if (inline !== 0) throw failure(inline, namedPath(target.osPath, target.path));
        return readSlots(target.osPath, target.path, bigint, undefined, target.mount);
      }
      const check = offMountCheck(target, inline);
      const id = nextId();
      const started = performance.now();
      const status = binding.statSyncTimeout(target.osPath, laneOf(target, probeKey(target, inline)), id, timeout, true, ...(check ?? []));
      if (status === TIMED_OUT) {
        const key = stuckKey(id, target, probeKey(target, inline), check);
        markStuck(id, target, key, started, timeout);
        // Not wanted any more: skipped if it has not started (or only been checked, see offMountCheck).
        binding.abandon(id);
        throw timeoutError(namedPath(target.osPath, target.path), key, timeout, undefined, key !== target.mountPoint);
      }
      if (status !== 0) throw failure(status, namedPath(target.osPath, target.path));
      return readSlots(target.osPath, target.path, bigint, undefined);
    },

    async(target, bigint, timeout, signal) {
      const inline = probeInline(target);
      if (inline !== undefined && inline !== LEAVES_MOUNT) {
        return inline === 0
          ? Promise.resolve(readSlots(target.osPath, target.path, bigint, undefined, target.mount))
          : Promise.reject(failure(inline, namedPath(target.osPath, target.path)));
      }
      return new Promise((resolve, reject) => {
        const recalled = known.get(target.osPath);
        const waiter: Waiter = {
          id: nextId(),
          key: probeKey(target, inline),
          check: offMountCheck(target, inline),
          target,
          bigint,
          resolve,
          reject,
          started: performance.now(),
          recalled,
          deadline: undefined,
          signal,
          onAbort: undefined,
        };
        submit(target.osPath, laneOf(target, waiter.key), waiter.id, recalled === undefined, waiter.check);
        waiting.set(waiter.id, waiter);
        if (timeout === Infinity) {
          if (unbounded++ === 0) binding.ref();
        } else {
          // The deadline's timer keeps the loop alive meanwhile.
          waiter.deadline = deadlines.add(timeout, () => {
            const key = stuckKey(waiter.id, target, waiter.key, waiter.check);
            markStuck(waiter.id, target, key, waiter.started, timeout);
            abandon(waiter.id, timeoutError(namedPath(target.osPath, target.path), key, timeout, undefined, key !== target.mountPoint));
          });
        }
        if (signal) {
          waiter.onAbort = () => abandon(waiter.id, abortError(signal));
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
      });
    },
  };
}
