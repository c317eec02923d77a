// Remembers mounts whose probe timed out and has not returned, so later
// probes of them fail fast instead of tying up another thread each.

/** A probe that timed out and whose call is still in the kernel. */
export interface StuckProbe {
  readonly mountPoint: string;
  readonly path: string;
  /** performance.now() when the probe started. */
  readonly since: number;
  /** Identifies the probe to the backend that runs it. */
  readonly token: number;
  /** Asks the backend whether the call has returned by now. */
  readonly settled: () => boolean;
}

export type MountEvent =
  | { readonly type: 'stuck'; readonly mountPoint: string; readonly path: string; readonly timeout: number }
  | { readonly type: 'recovered'; readonly mountPoint: string; readonly stuckForMs: number }
  /** The mount table changed (noticed at the next probe or listing after the change). */
  | { readonly type: 'mounts-changed'; readonly added: readonly string[]; readonly removed: readonly string[] };

export class DeadMountGuard {
  private readonly byMount = new Map<string, StuckProbe>();
  private readonly byToken = new Map<number, StuckProbe>();
  private readonly listeners = new Set<(event: MountEvent) => void>();

  /** How many mounts are stuck now; 0 lets callers skip the lookup entirely. */
  get size(): number {
    return this.byMount.size;
  }

  /** The stuck probe that blocks `mountPoint`, unless its call has returned since. */
  blocking(mountPoint: string): StuckProbe | undefined {
    const probe = this.byMount.get(mountPoint);
    if (probe === undefined) return undefined;
    if (!probe.settled()) return probe;
    this.recover(probe);
    return undefined;
  }

  markStuck(probe: StuckProbe, timeout: number): void {
    if (this.byMount.has(probe.mountPoint)) return;
    this.byMount.set(probe.mountPoint, probe);
    this.byToken.set(probe.token, probe);
    this.emit({ type: 'stuck', mountPoint: probe.mountPoint, path: probe.path, timeout });
  }

  /** Called when the call behind `token` returns: its mount answers again. */
  settle(token: number): void {
    const probe = this.byToken.get(token);
    if (probe) this.recover(probe);
  }

  /** The mount points stuck now. */
  stuckMounts(): string[] {
    return [...this.byMount.keys()].filter((mountPoint) => this.blocking(mountPoint) !== undefined);
  }

  on(listener: (event: MountEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private recover(probe: StuckProbe): void {
    this.byMount.delete(probe.mountPoint);
    this.byToken.delete(probe.token);
    this.emit({ type: 'recovered', mountPoint: probe.mountPoint, stuckForMs: performance.now() - probe.since });
  }

  emit(event: MountEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the guard goes on.
      }
    }
  }
}
