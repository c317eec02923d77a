// Where a native probe runs: on the calling thread when nothing in the way
// can block (the inline probe), else in a lane of the addon's threads; and
// what a probe that does not answer holds up.
import { LaneIds, type ProbeTarget } from './backend.js';
import type { DeadMountGuard } from './deadMountGuard.js';
import { KNOWN_LIMIT } from './knownMounts.js';
import type { MountEntry } from './mountEntry.js';
import { CANNOT_PROBE_INLINE, LEAVES_MOUNT, type NativeBinding, type OffMountCheck } from './nativeBinding.js';

/** Lanes per mount for paths that lead off it (see lane). */
const OFF_MOUNT_LANES = 4;

export class ProbeRouting {
  /** Whether there is an inline probe here: Linux, with an addon that has statBeneath. */
  readonly inlineProbes: boolean;
  private readonly lanes = new LaneIds();
  /** Paths that led off their mount, with the table entry of that mount: a re-read table (new entries) asks again. */
  private readonly offMount = new Map<string, MountEntry>();

  constructor(
    private readonly binding: NativeBinding,
    private readonly guard: DeadMountGuard,
  ) {
    this.inlineProbes = process.platform === 'linux' && typeof binding.statBeneath === 'function';
  }

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
  inline(target: ProbeTarget): number | undefined {
    const mount = target.mount;
    if (!this.inlineProbes || mount === undefined || !mount.answersFromMemory || target.osPath !== target.path) return undefined;
    // A path seen to lead off its mount (a symlink to another one) goes
    // straight to its own lane: asking again would cost the attempt each time.
    if (this.offMount.get(target.path) === mount) return LEAVES_MOUNT;
    const { mountPoint } = mount;
    const relative = target.path.length <= mountPoint.length ? '' : target.path.slice(mountPoint.length === 1 ? 1 : mountPoint.length + 1);
    const status = this.binding.statBeneath(mountPoint, mount.mountId, relative);
    if (status === LEAVES_MOUNT) this.ledOff(target.path, mount);
    return status === CANNOT_PROBE_INLINE ? undefined : status;
  }

  /**
   * What a probe that does not answer holds up, which later probes fail
   * fast on, and the lane it runs in: its mount; or, for a path that leads
   * off its mount (a symlink into a dead mount), the path itself, so that
   * the mount it lies on by name is not held up. `inline` is what inline()
   * said.
   */
  key(target: ProbeTarget, inline: number | undefined): string {
    return inline === LEAVES_MOUNT ? target.path : target.mountPoint;
  }

  /**
   * The lane for a probe: its mount's, or for a path that leads off its
   * mount, one of OFF_MOUNT_LANES lanes of that mount chosen by the path, so
   * that such paths neither wait behind the mount's lane nor take a thread
   * each (a thread per lane at most).
   */
  lane(target: ProbeTarget, key: string): number {
    if (key === target.mountPoint) return this.lanes.of(key);
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
    return this.lanes.of(`${target.mountPoint}\0${(hash >>> 0) % OFF_MOUNT_LANES}`);
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
  offMountCheck(target: ProbeTarget, inline: number | undefined): OffMountCheck | undefined {
    const mount = target.mount;
    if (inline !== undefined || !this.inlineProbes || mount === undefined || !mount.answersFromMemory) return undefined;
    if (target.osPath !== target.path || target.path === mount.mountPoint) return undefined;
    return [mount.mountPoint, mount.mountId, this.lane(target, target.path)];
  }

  /** What a probe that timed out holds up: `key` (see key), or the path itself when the addon's thread found it leads off its mount. */
  stuckKey(id: number, target: ProbeTarget, key: string, check: OffMountCheck | undefined): string {
    if (check === undefined || !this.binding.pendingOffMount(id)) return key;
    // Learned for good: later probes of the path go straight to its lane.
    this.ledOff(target.path, target.mount!);
    return target.path;
  }

  /** Tells the dead-mount guard that job `id`, which has not answered in `timeout` ms, holds up `key`; unless it has returned meanwhile. */
  markStuck(id: number, target: ProbeTarget, key: string, started: number, timeout: number): void {
    if (!this.binding.pending(id)) return; // it has returned meanwhile (its answer is on the way): nothing is stuck
    this.guard.markStuck({ mountPoint: key, path: target.path, since: started, token: id, settled: () => !this.binding.pending(id) }, timeout);
  }

  private ledOff(path: string, mount: MountEntry): void {
    if (this.offMount.size >= KNOWN_LIMIT) this.offMount.clear();
    this.offMount.set(path, mount);
  }
}
