// What the native backend remembers of each path's last full probe, so that
// repeated probes of a path skip the stat syscall, which is half their cost.
import type { MountEntry } from './mountEntry.js';
import { Slot } from './nativeBinding.js';

/**
 * What a path's last full probe learned: the mount that holds it, and a
 * fingerprint of that file system (f_fsid and its sizes). While the mount
 * table is unchanged and statvfs still shows the same fingerprint, the path
 * is on the same mount. (A symlink re-pointed between two mounts of one
 * file system keeps the same numbers, and at worst the first mount's name.)
 */
export interface KnownMount {
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

/** Paths remembered at most; past it the cache starts again, empty. */
export const KNOWN_LIMIT = 1024;

/** The paths probed with the device id, by the string the kernel was given; reads the answers in the addon's slots. */
export class KnownMounts {
  private readonly byPath = new Map<string, KnownMount>();

  /** `f64`: the addon's result slots as doubles. */
  constructor(private readonly f64: Float64Array) {}

  get(osPath: string): KnownMount | undefined {
    return this.byPath.get(osPath);
  }

  /**
   * Whether the answer in the slots comes from the file system `known` saw,
   * with the mount table unchanged since (every answer carries the table's
   * generation).
   */
  stillHolds(known: KnownMount): boolean {
    const f64 = this.f64;
    return (
      f64[Slot.mountGeneration] === known.generation &&
      f64[Slot.fsidHigh] === known.fsidHigh &&
      f64[Slot.fsidLow] === known.fsidLow &&
      f64[Slot.total] === known.total &&
      f64[Slot.files] === known.files
    );
  }

  /** Keeps what the probe with the device id whose answer is in the slots learned: `mount` holds `osPath` (reported as `path`). */
  remember(osPath: string, path: string, mount: MountEntry | undefined): void {
    if (this.byPath.size >= KNOWN_LIMIT) this.byPath.clear();
    const f64 = this.f64;
    this.byPath.set(osPath, {
      plain: osPath === path,
      generation: f64[Slot.mountGeneration]!,
      fsidHigh: f64[Slot.fsidHigh]!,
      fsidLow: f64[Slot.fsidLow]!,
      total: f64[Slot.total]!,
      files: f64[Slot.files]!,
      mount,
    });
  }
}
