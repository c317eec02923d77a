// Helper processes for the fallback backend (see statfsHelper.ts).
//
// One helper serves every mount while calls return promptly. A helper whose
// oldest request has waited `suspectAfterMs` is presumed stuck on that
// request's mount: it keeps only that mount's requests (so a dead mount holds
// one process, not one per probe), its other requests move to a fresh helper
// at once, and it exits by itself once its call returns.
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

// By way of dist/probe/, so that the path is right from the bundled command (dist/bin/diskprobe.js) too.
// Beside this module: dist/probe/ in the library, dist/bin/ in the bundled command
// (scripts/bundle-cli.mjs bundles the helper there too), so that dist/bin/ alone runs.
export const helperPath = fileURLToPath(new URL('./statfsHelper.js', import.meta.url));

/**
 * node:child_process, loaded at the first helper: the native backend never
 * needs it, and loading it costs every start-up a few milliseconds. (Not a
 * dynamic import: a top-level await would keep require(esm) from loading
 * diskprobe.)
 */
export function childProcess(): typeof import('node:child_process') {
  return process.getBuiltinModule('node:child_process');
}

export interface PoolRequest {
  readonly id: number;
  readonly osPath: string;
  readonly mountPoint: string;
}

/** Receives a helper's answer fields, or undefined when the helper died owing it. */
export type AnswerHandler = (id: number, fields: unknown[] | undefined) => void;

class Helper {
  /** Requests sent and not answered, oldest first, with when they were sent. */
  readonly outstanding = new Map<number, { readonly request: PoolRequest; sentAt: number }>();
  stuckOn: string | undefined;
  /** Set once the helper has started: its start-up time is not a stuck call. */
  private ready = false;
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private buffered = '';
  private watch: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: HelperPool,
    onLine: (helper: Helper, fields: unknown[]) => void,
    onExit: (helper: Helper) => void,
  ) {
    // Not our stderr: a helper stuck on a dead FUSE mount outlives us, and
    // would hold the pipe that whoever reads our stderr waits to see closed.
    // It reports everything over stdout; a crash shows as its exit.
    this.child = childProcess().spawn(process.execPath, [helperPath], { stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let newline = this.buffered.indexOf('\n'); newline >= 0; newline = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        const fields = JSON.parse(line) as unknown[];
        if (fields[0] === -1) this.started();
        else onLine(this, fields);
      }
    });
    this.child.once('exit', () => onExit(this));
    this.child.once('error', () => onExit(this));
    this.child.stdin.on('error', () => {}); // it exited: 'exit' reports that
    this.setRef(false);
  }

  send(request: PoolRequest): void {
    if (this.outstanding.size === 0 && this.stuckOn === undefined) this.setRef(true);
    this.outstanding.set(request.id, { request, sentAt: performance.now() });
    this.child.stdin.write(`${request.id}\t${JSON.stringify(request.osPath)}\n`);
    this.arm();
  }

  /** How long a started helper has had request `id`; undefined until it has started. */
  waited(id: number): number | undefined {
    const entry = this.outstanding.get(id);
    return this.ready && entry !== undefined ? performance.now() - entry.sentAt : undefined;
  }

  answered(id: number): boolean {
    const had = this.outstanding.delete(id);
    if (had && this.outstanding.size === 0) {
      this.setRef(false);
      clearTimeout(this.watch);
      this.watch = undefined;
      if (this.stuckOn !== undefined) this.child.stdin.end(); // its stuck call returned: let it go
    }
    return had;
  }

  /** Kills the helper if it has not started; its 'exit' answers what it owed. */
  killUnstarted(): void {
    if (!this.ready) this.child.kill('SIGKILL');
  }

  /** Takes no work but its mount's; exits once its calls have returned. */
  retire(mountPoint: string): void {
    this.stuckOn = mountPoint;
    // Its callers' own timers keep the loop alive while they wait; a process
    // stuck in the kernel must not keep it alive after they gave up.
    this.setRef(false);
  }

  private started(): void {
    this.ready = true;
    const now = performance.now();
    for (const entry of this.outstanding.values()) entry.sentAt = now;
    this.arm();
  }

  private arm(): void {
    if (this.ready && this.outstanding.size > 0) this.watch ??= setTimeout(() => this.check(), this.pool.suspectAfterMs).unref();
  }

  private check(): void {
    this.watch = undefined;
    const oldest = this.outstanding.values().next().value;
    if (oldest === undefined || this.stuckOn !== undefined) return;
    const waited = performance.now() - oldest.sentAt;
    if (waited >= this.pool.suspectAfterMs) this.pool.suspect(this, oldest.request.mountPoint);
    else this.watch = setTimeout(() => this.check(), this.pool.suspectAfterMs - waited).unref();
  }

  // A helper keeps the event loop alive only while it owes answers.
  private setRef(on: boolean): void {
    for (const handle of [this.child, this.child.stdout, this.child.stdin] as unknown as Array<{ ref(): void; unref(): void }>) {
      if (on) handle.ref();
      else handle.unref();
    }
  }
}

export class HelperPool {
  private current: Helper | undefined;
  private readonly suspects = new Set<Helper>();

  constructor(
    private readonly onAnswer: AnswerHandler,
    readonly suspectAfterMs = 50,
  ) {}

  send(request: PoolRequest): void {
    for (const helper of this.suspects) {
      if (helper.stuckOn === request.mountPoint) {
        helper.send(request); // queue behind its stuck call
        return;
      }
    }
    this.current ??= new Helper(
      this,
      (helper, fields) => this.onLine(helper, fields),
      (helper) => this.onExit(helper),
    );
    this.current.send(request);
  }

  /** Whether request `id` still waits for an answer. */
  outstanding(id: number): boolean {
    return this.holding(id) !== undefined;
  }

  /**
   * How long request `id` has been in the hands of a started helper: a
   * helper's start-up (about 40 ms) is not the mount's time to answer.
   * Undefined while its helper is starting.
   */
  waited(id: number): number | undefined {
    return this.holding(id)?.waited(id);
  }

  /** Kills the helper holding request `id` if it has not started: its requests are answered as if it died. */
  abandonUnstarted(id: number): void {
    this.holding(id)?.killUnstarted();
  }

  /** The helper that holds request `id`, if any. */
  private holding(id: number): Helper | undefined {
    if (this.current?.outstanding.has(id)) return this.current;
    for (const helper of this.suspects) if (helper.outstanding.has(id)) return helper;
    return undefined;
  }

  /** Request `id` timed out: its helper is stuck, whatever its watch says. */
  timedOut(id: number, mountPoint: string): void {
    if (this.current?.outstanding.has(id)) this.suspect(this.current, mountPoint);
  }

  /** Retires `helper` as stuck on `mountPoint` and moves its other requests to a fresh helper. */
  suspect(helper: Helper, mountPoint: string): void {
    if (this.current === helper) this.current = undefined;
    this.suspects.add(helper);
    helper.retire(mountPoint);
    for (const [id, { request }] of [...helper.outstanding]) {
      if (request.mountPoint === mountPoint) continue;
      helper.answered(id);
      this.send(request);
    }
  }

  private onLine(helper: Helper, fields: unknown[]): void {
    const id = Number(fields[0]);
    if (helper.answered(id)) this.onAnswer(id, fields);
  }

  private onExit(helper: Helper): void {
    if (this.current === helper) this.current = undefined;
    this.suspects.delete(helper);
    const owed = [...helper.outstanding.keys()];
    helper.outstanding.clear();
    for (const id of owed) this.onAnswer(id, undefined);
  }
}
