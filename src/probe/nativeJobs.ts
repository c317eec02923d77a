// The native probes that run on the addon's threads: their ids, the batch
// they are queued in, and the waiters for their answers, each with its
// deadline and its abort signal.
import type { AnyUsage, ProbeTarget } from './backend.js';
import { namedPath } from './backend.js';
import { type Deadline, DeadlineTimer } from './deadlines.js';
import type { DeadMountGuard } from './deadMountGuard.js';
import { abortError, timeoutError } from './errors.js';
import type { KnownMount, KnownMounts } from './knownMounts.js';
import type { MountEntry } from './mountEntry.js';
import type { NativeBinding, OffMountCheck } from './nativeBinding.js';
import type { ProbeRouting } from './nativeRouting.js';
import type { CancelSignal } from './types.js';

/** How the backend turns the answer in the addon's slots into a result or an error (NativeBackend). */
export interface SlotReader {
  /** The result of the probe whose answer is in the slots now; `known` is the mount that holds the path, when that is known; `learn` keeps what it found. */
  readSlots(osPath: string, path: string, bigint: boolean, names: readonly [string, string] | undefined, known?: MountEntry, learn?: boolean): AnyUsage;
  failure(status: number, path: string): Error;
}

interface Waiter {
  readonly id: number;
  /** What its timeout marks as stuck (ProbeRouting.key), and its lane's key. */
  readonly key: string;
  /** Set when the addon's thread checks whether the path leads off its mount (ProbeRouting.offMountCheck). */
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

/** The probes asked for in one turn of the event loop, queued to the addon together. */
interface Batch {
  readonly paths: string[];
  readonly lanes: number[];
  readonly ids: number[];
  readonly devices: boolean[];
}

const emptyBatch = (): Batch => ({ paths: [], lanes: [], ids: [], devices: [] });

export class NativeJobs {
  private readonly waiting = new Map<number, Waiter>();
  private readonly deadlines = new DeadlineTimer();
  /** Waits without a deadline; they alone need the addon's callback to keep the loop alive. */
  private unbounded = 0;
  private lastId = 0;
  // Probes asked for in this turn of the event loop, queued to the addon
  // together once it ends: one wake-up of its threads, not one per probe
  // (bench:server measured the wake-ups as the cost of a burst of calls).
  private queued = emptyBatch();
  private readonly flushQueued = (): void => {
    const { paths, lanes, ids, devices } = this.queued;
    this.queued = emptyBatch();
    if (paths.length === 1) this.binding.statAsync(paths[0]!, lanes[0]!, ids[0]!, devices[0]!);
    else this.binding.statAsyncBatch(paths, lanes, ids, devices);
  };

  constructor(
    private readonly binding: NativeBinding,
    private readonly routing: ProbeRouting,
    private readonly known: KnownMounts,
    private readonly guard: DeadMountGuard,
    private readonly reader: SlotReader,
  ) {
    binding.setCallback((id, status, names) => this.answered(id, status, names));
  }

  /** An id for a job of the addon's, unique among those that may still be running. */
  nextId(): number {
    this.lastId = this.lastId >= 0xfffffff0 ? 1 : this.lastId + 1;
    return this.lastId;
  }

  /** Probes `target` on the addon's threads; `inline` is what the inline probe said (see ProbeRouting.key). */
  start(target: ProbeTarget, inline: number | undefined, bigint: boolean, timeout: number, signal: CancelSignal | undefined): Promise<AnyUsage> {
    return new Promise((resolve, reject) => {
      const recalled = this.known.get(target.osPath);
      const waiter: Waiter = {
        id: this.nextId(),
        key: this.routing.key(target, inline),
        check: this.routing.offMountCheck(target, inline),
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
      this.submit(target.osPath, this.routing.lane(target, waiter.key), waiter.id, recalled === undefined, waiter.check);
      this.waiting.set(waiter.id, waiter);
      if (timeout === Infinity) {
        if (this.unbounded++ === 0) this.binding.ref();
      } else {
        // The deadline's timer keeps the loop alive meanwhile.
        waiter.deadline = this.deadlines.add(timeout, () => {
          const key = this.routing.stuckKey(waiter.id, target, waiter.key, waiter.check);
          this.routing.markStuck(waiter.id, target, key, waiter.started, timeout);
          this.abandon(waiter.id, timeoutError(namedPath(target.osPath, target.path), key, timeout, undefined, key !== target.mountPoint));
        });
      }
      if (signal) {
        waiter.onAbort = () => this.abandon(waiter.id, abortError(signal));
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
    });
  }

  private submit(path: string, lane: number, id: number, withDevice: boolean, check?: OffMountCheck): void {
    if (check !== undefined) {
      this.binding.statAsync(path, lane, id, withDevice, ...check); // rare: a path not in the cache
      return;
    }
    const queued = this.queued;
    if (queued.paths.length === 0) queueMicrotask(this.flushQueued);
    queued.paths.push(path);
    queued.lanes.push(lane);
    queued.ids.push(id);
    queued.devices.push(withDevice);
  }

  /** The addon's callback: job `id` returned `status`, its answer in the slots. */
  private answered(id: number, status: number, names: [string, string] | undefined): void {
    const waiter = this.waiting.get(id);
    if (waiter === undefined) {
      this.guard.settle(id); // an abandoned call returned: its mount answers again
      return;
    }
    const { recalled, target } = waiter;
    if (status === 0 && recalled !== undefined && !this.known.stillHolds(recalled)) {
      // Another file system answers for the path now: ask again, with the device.
      waiter.recalled = undefined;
      this.submit(target.osPath, this.routing.lane(target, waiter.key), id, true, waiter.check);
      return;
    }
    this.settle(id, waiter);
    if (status === 0) waiter.resolve(this.reader.readSlots(target.osPath, target.path, waiter.bigint, names, recalled?.mount, recalled === undefined));
    else waiter.reject(this.reader.failure(status, namedPath(target.osPath, target.path)));
  }

  private settle(id: number, waiter: Waiter): void {
    this.waiting.delete(id);
    if (waiter.deadline) this.deadlines.cancel(waiter.deadline);
    else if (--this.unbounded === 0) this.binding.unref();
    if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
  }

  /** Gives up on a probe still in the kernel: its answer will be ignored. */
  private abandon(id: number, error: Error): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.settle(id, waiter);
    this.binding.abandon(id);
    waiter.reject(error);
  }
}
