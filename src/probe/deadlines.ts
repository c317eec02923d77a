// One Node timer for many deadlines. A setTimeout/clearTimeout pair per probe
// costs about as much as the probe's whole thread round trip (3 us of 20,
// docs/benchmarks.md); probes mostly share one timeout, so their deadlines
// arrive in order and one timer, armed for the earliest, serves them all.

/** A registered deadline; pass it back to `cancel`. */
export interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

export class DeadlineTimer {
  private readonly pending = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires, or Infinity when it is not armed. */
  private armedAt = Infinity;

  /** Calls `expire` after `ms` milliseconds unless cancelled first. */
  add(ms: number, expire: () => void): Deadline {
    const deadline = { at: performance.now() + ms, expire };
    // The timer keeps the process alive only while someone waits.
    if (this.pending.size === 0) this.timer?.ref();
    this.pending.add(deadline);
    if (deadline.at < this.armedAt) this.arm(deadline.at);
    return deadline;
  }

  cancel(deadline: Deadline): void {
    // Left armed: the next add most likely lands after it anyway.
    if (this.pending.delete(deadline) && this.pending.size === 0) this.timer?.unref();
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - performance.now()));
    if (this.pending.size === 0) this.timer.unref();
  }

  private fire(): void {
    this.armedAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const deadline of this.pending) {
      if (deadline.at <= now + 1) {
        this.pending.delete(deadline);
        deadline.expire();
      } else if (deadline.at < next) {
        next = deadline.at;
      }
    }
    if (next !== Infinity) this.arm(next);
    else this.timer?.unref();
  }
}
