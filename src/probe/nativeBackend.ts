// Probes through the addon: statvfs + stat in one call, exact bytes from
// f_frsize, and asynchronous probes on the addon's own threads. This file
// reads the addon's answers and runs the probes on the calling thread; the
// known-mount cache, the routing of a probe (inline or which lane) and the
// probes on the addon's threads have modules of their own.
import type { AnyUsage, ProbeBackend, ProbeContext, ProbeTarget } from './backend.js';
import { namedPath } from './backend.js';
import { errnoError, timeoutError } from './errors.js';
import { type KnownMount, KnownMounts } from './knownMounts.js';
import type { MountEntry } from './mountEntry.js';
import { deviceKey } from './mountInfo.js';
import { Flag, LEAVES_MOUNT, type NativeBinding, Slot, SYSCALLS } from './nativeBinding.js';
import { NativeJobs, type SlotReader } from './nativeJobs.js';
import { ProbeRouting } from './nativeRouting.js';
import { usedPercent, usedPercentBig } from './percent.js';
import type { CancelSignal } from './types.js';
import { makeInodes, makeUsage } from './usage.js';

const SAFE = Number.MAX_SAFE_INTEGER;
/** 2^64 - 1 as a double (2^64): a count the file system says it does not know. */
const UNKNOWN_COUNT = 2 ** 64;
const TIMED_OUT = -1;
const WINDOWS = process.platform === 'win32';

class NativeBackend implements ProbeBackend, SlotReader {
  readonly name = 'native';
  private readonly u64: BigUint64Array;
  private readonly f64: Float64Array;
  private readonly known: KnownMounts;
  private readonly routing: ProbeRouting;
  private readonly jobs: NativeJobs;

  constructor(
    private readonly binding: NativeBinding,
    private readonly context: ProbeContext,
  ) {
    this.u64 = new BigUint64Array(binding.slots, 0, binding.slotCount);
    this.f64 = new Float64Array(binding.slots, binding.slotCount * 8, binding.slotCount);
    this.known = new KnownMounts(this.f64);
    this.routing = new ProbeRouting(binding, context.guard);
    this.jobs = new NativeJobs(binding, this.routing, this.known, context.guard, this);
  }

  /** See ProbeBackend.syncKnown. POSIX only: elsewhere the string the kernel is given is never the one reported. */
  syncKnown(path: unknown): AnyUsage | undefined {
    if (WINDOWS) return undefined;
    const recalled = this.known.get(path as string);
    return recalled?.plain === true ? this.probeHere(path as string, path as string, false, recalled) : undefined;
  }

  sync(osPath: string, path: string, bigint: boolean): AnyUsage {
    return this.probeHere(osPath, path, bigint, this.known.get(osPath));
  }

  inline(target: ProbeTarget, bigint: boolean): AnyUsage | undefined {
    const status = this.routing.inline(target);
    if (status === undefined || status === LEAVES_MOUNT) return undefined;
    if (status !== 0) throw this.failure(status, namedPath(target.osPath, target.path));
    return this.readSlots(target.osPath, target.path, bigint, undefined, target.mount);
  }

  mountPoint(mount: MountEntry, bigint: boolean): AnyUsage {
    const status = this.binding.statSync(mount.mountPoint, false);
    if (status !== 0) throw this.failure(status, mount.mountPoint);
    return this.readSlots(mount.mountPoint, mount.mountPoint, bigint, undefined, mount);
  }

  syncWithTimeout(target: ProbeTarget, bigint: boolean, timeout: number): AnyUsage {
    const { routing } = this;
    const inline = routing.inline(target);
    if (inline !== undefined && inline !== LEAVES_MOUNT) {
      if (inline !== 0) throw this.failure(inline, namedPath(target.osPath, target.path));
      return this.readSlots(target.osPath, target.path, bigint, undefined, target.mount);
    }
    const check = routing.offMountCheck(target, inline);
    const id = this.jobs.nextId();
    const started = performance.now();
    const status = this.binding.statSyncTimeout(target.osPath, routing.lane(target, routing.key(target, inline)), id, timeout, true, ...(check ?? []));
    if (status === TIMED_OUT) {
      const key = routing.stuckKey(id, target, routing.key(target, inline), check);
      routing.markStuck(id, target, key, started, timeout);
      // Not wanted any more: skipped if it has not started (or only been checked, see offMountCheck).
      this.binding.abandon(id);
      throw timeoutError(namedPath(target.osPath, target.path), key, timeout, undefined, key !== target.mountPoint);
    }
    if (status !== 0) throw this.failure(status, namedPath(target.osPath, target.path));
    return this.readSlots(target.osPath, target.path, bigint, undefined);
  }

  async(target: ProbeTarget, bigint: boolean, timeout: number, signal: CancelSignal | undefined): Promise<AnyUsage> {
    const inline = this.routing.inline(target);
    if (inline !== undefined && inline !== LEAVES_MOUNT) {
      return inline === 0
        ? Promise.resolve(this.readSlots(target.osPath, target.path, bigint, undefined, target.mount))
        : Promise.reject(this.failure(inline, namedPath(target.osPath, target.path)));
    }
    return this.jobs.start(target, inline, bigint, timeout, signal);
  }

  /**
   * Builds the result of the probe whose answer is in the slots now; `known`
   * is the mount that holds `path`, when that is known already; `learn`
   * keeps what a probe with the device id found (KnownMounts).
   */
  readSlots(osPath: string, path: string, bigint: boolean, names: readonly [string, string] | undefined, known?: MountEntry, learn = false): AnyUsage {
    const { u64, f64 } = this;
    const flags = f64[Slot.flags]!;
    let mountPoint: string | null = null;
    let fsType: string | null = null;
    let mount: MountEntry | undefined = known;
    if (flags & Flag.hasNames) {
      names ??= this.binding.names();
      if (names) [mountPoint, fsType] = names;
    } else if (flags & Flag.hasDevice) {
      mount = this.context.mountOf(deviceKey(f64[Slot.deviceMajor]!, f64[Slot.deviceMinor]!), osPath, path);
      if (learn) this.known.remember(osPath, path, mount);
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
          filesFree = u64[Slot.filesFree]!,
          filesUsed = files - filesFree;
        inodes = makeInodes(files, filesFree, u64[Slot.filesAvail]!, filesUsed, usedPercentBig(filesUsed, filesFree));
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

  /** The error of a probe that returned `status`, an errno, naming the system call the slots name. */
  failure(status: number, path: string): Error {
    return errnoError(status, SYSCALLS[this.f64[Slot.syscall]!] ?? 'statvfs', path);
  }

  /** A probe on this thread (see ProbeBackend.sync); `recalled` is what the last full probe of `path` learned. */
  private probeHere(osPath: string, path: string, bigint: boolean, recalled: KnownMount | undefined): AnyUsage {
    // "/", known, on a file system that keeps its counts in memory: one
    // fstatvfs on its open root (the addon keeps only that one open), no
    // path to walk.
    const mount = recalled?.mount;
    if (path === '/' && this.routing.inlineProbes && mount?.answersFromMemory && mount.mountPoint === '/') {
      const status = this.binding.statBeneath(mount.mountPoint, mount.mountId, '');
      if (status === 0) return this.readSlots(osPath, path, bigint, undefined, mount);
    }
    let status = this.binding.statSync(osPath, recalled === undefined);
    if (status === 0 && recalled !== undefined && !this.known.stillHolds(recalled)) {
      recalled = undefined;
      status = this.binding.statSync(osPath, true);
    }
    if (status !== 0) throw this.failure(status, namedPath(osPath, path));
    return this.readSlots(osPath, path, bigint, undefined, recalled?.mount, recalled === undefined);
  }
}

/** The backend through the addon; it takes the addon's callback (setCallback) for itself. */
export function createNativeBackend(binding: NativeBinding, context: ProbeContext): ProbeBackend {
  return new NativeBackend(binding, context);
}
