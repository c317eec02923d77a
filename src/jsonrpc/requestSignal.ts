// A request's cancellation signal: what an AbortSignal offers a listener
// (aborted, reason, abort listeners), without its cost. Node 20 takes about
// 2 us to create an AbortSignal, a tenth of a whole tools/call here, and
// nearly every request is never cancelled (bench:server, docs/benchmarks.md).

export class RequestSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;

  addEventListener(type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (type !== 'abort' || this.aborted) return;
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    if (type !== 'abort' || this.listeners === undefined) return;
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts once: listeners run once each, in the order they were added. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }
}
