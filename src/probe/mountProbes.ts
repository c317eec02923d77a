// Every mount at once: the mounts df lists (or all of them), each probed
// once, in one pass, inline where no probe can block and on the addon's
// threads elsewhere.
import { setMaxListeners } from 'node:events';

import { abortError, codeError, type OptionNames, validateOptions, validateSignal, validateTimeout } from './errors.js';
import { DEFAULT_TIMEOUT_MS } from './limits.js';
import type { MountEntry } from './mountEntry.js';
import { diskUsage } from './probe.js';
import { guard, impl, tables } from './runtime.js';
import type { CancelSignal, DiskUsage, ListMountsOptions, Mount, MountsUsageOptions, MountUsage, ProbeError } from './types.js';

function publicMount(entry: MountEntry): Mount {
  return { mountPoint: entry.mountPoint, device: entry.device, fsType: entry.fsType, readOnly: entry.readOnly, pseudo: entry.pseudo };
}

/** A mount df lists, with what its probe found: usage, or the error. */
export type DfMount<N extends number | bigint> =
  | { readonly mount: Mount; readonly usage: DiskUsage<N>; readonly error?: undefined }
  | { readonly mount: Mount; readonly usage?: undefined; readonly error: unknown };

export interface DfMountsOptions {
  /** Every mount in the table, as `df -a` lists them, empty ones too. */
  readonly all?: boolean;
  /** Milliseconds each probe may take. */
  readonly timeout: number;
  readonly signal?: AbortSignal | CancelSignal;
  /** Which mounts to consider (and probe); by default all. */
  readonly include?: (mountPoint: string, entry: MountEntry) => boolean;
  /** Told as each probe settles: how many have, of how many probed. */
  readonly onProgress?: (done: number, total: number, mountPoint: string) => void;
  /**
   * Probe only on the calling thread: resolve with undefined, having probed
   * nothing, when some mount could only be probed on the addon's threads
   * (diskprobe df, which then probes in a process it can leave behind).
   */
  readonly inlineOnly?: boolean;
}

/**
 * The mounts `df` lists, each probed once (in parallel, within `timeout`):
 * no pseudo file systems, one mount per device, none of size 0; one that
 * does not answer, or cannot be read, is listed with its error, as df lists
 * it. For callers that show the numbers as well (diskprobe df, list_mounts),
 * so that what is shown is what was checked for size 0, and nothing is
 * probed twice.
 */
export async function dfMounts(options: DfMountsOptions & { readonly bigint: true; readonly inlineOnly: true }): Promise<Array<DfMount<bigint>> | undefined>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint: true; readonly inlineOnly: boolean }): Promise<Array<DfMount<bigint>> | undefined>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint: true }): Promise<Array<DfMount<bigint>>>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint?: false }): Promise<Array<DfMount<number>>>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint?: boolean; readonly inlineOnly?: false }): Promise<Array<DfMount<number | bigint>>>;
export async function dfMounts(options: DfMountsOptions & { readonly bigint?: boolean }): Promise<Array<DfMount<number | bigint>> | undefined> {
  const { timeout, signal, include, onProgress } = options;
  if (signal?.aborted) throw abortError(signal);
  const bigint = options.bigint === true;
  const table = tables.fresh();
  const listed = options.all === true ? table.entries : table.dfCandidates();
  const candidates = include === undefined ? listed : listed.filter((entry) => include(entry.mountPoint, entry));
  const outcomes = new Array<DfMount<number | bigint>>(candidates.length);
  // One pass: on the calling thread every mount whose probe cannot block
  // (its point's walk and its statfs read only memory), one statvfs each;
  // the rest on the addon's threads, each within the timeout. Which is
  // which is decided first, once for each mount.
  const here = impl.mountPoint !== undefined;
  const visible = new Array<MountEntry | undefined>(candidates.length);
  const later: number[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const point = candidates[i]!.mountPoint;
    const shown = here && table.walksInMemory(point) && (guard.size === 0 || !guard.blocking(point)) ? table.visibleAt(point) : undefined;
    if (shown === undefined) later.push(i);
    else visible[i] = shown;
  }
  if (options.inlineOnly === true && later.length > 0) return undefined;
  for (let i = 0; i < candidates.length; i++) {
    const shown = visible[i];
    if (shown === undefined) continue;
    const entry = candidates[i]!;
    try {
      outcomes[i] = { mount: publicMount(entry), usage: impl.mountPoint!(shown, bigint) as DiskUsage<number | bigint> };
    } catch (error) {
      outcomes[i] = { mount: publicMount(entry), error };
    }
  }
  let done = candidates.length - later.length;
  // Told once the caller has had the chance to look up: a caller that read a
  // cancel in the same turn has aborted by then, and hears nothing.
  if (done > 0 && onProgress !== undefined) {
    const answered = done;
    queueMicrotask(() => {
      if (!signal?.aborted) onProgress(answered, candidates.length, candidates[candidates.length - 1]!.mountPoint);
    });
  }
  if (later.length > 0) {
    // One listener on the caller's signal, not one per mount (past ten, Node
    // warns of a leak); the probes share a signal of ours, which may have many.
    const inner = signal && new AbortController();
    const forward = (): void => inner!.abort(signal!.reason);
    if (inner) {
      setMaxListeners(0, inner.signal);
      signal!.addEventListener('abort', forward, { once: true });
    }
    try {
      await Promise.all(
        later.map((i) => {
          const entry = candidates[i]!;
          return (diskUsage(entry.mountPoint, { bigint, timeout, ...(inner && { signal: inner.signal }) }) as Promise<DiskUsage<number | bigint>>)
            .then(
              (usage) => {
                outcomes[i] = { mount: publicMount(entry), usage };
              },
              (error: unknown) => {
                if ((error as Error | null)?.name === 'AbortError') throw error;
                outcomes[i] = { mount: publicMount(entry), error };
              },
            )
            .finally(() => onProgress?.(++done, candidates.length, entry.mountPoint));
        }),
      );
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }
  return options.all === true ? outcomes : outcomes.filter(({ usage }) => usage === undefined || (usage.total !== 0 && usage.total !== 0n));
}

const MOUNTS_USAGE_OPTIONS: OptionNames<MountsUsageOptions> = { all: true, bigint: true, timeout: true, signal: true };
const LIST_MOUNTS_OPTIONS: OptionNames<ListMountsOptions> = { all: true, timeout: true, signal: true };

/**
 * Every mount df lists (with `all`, every mount in the table), each with its
 * usage or the error its probe gave, in the table's order. One pass: the
 * mounts whose probe cannot block are answered on the calling thread, the
 * others on the addon's threads, each within `timeout` (a mount that does
 * not answer gets ETIMEDOUT, and the others their usage all the same).
 */
export async function mountsUsage(options: MountsUsageOptions & { bigint: true }): Promise<Array<MountUsage<bigint>>>;
export async function mountsUsage(options?: (MountsUsageOptions & { bigint?: false }) | null): Promise<Array<MountUsage<number>>>;
export async function mountsUsage(options?: MountsUsageOptions | null): Promise<Array<MountUsage<number> | MountUsage<bigint>>> {
  options = validateOptions(options, MOUNTS_USAGE_OPTIONS) ?? {};
  validateSignal(options.signal);
  validateFlag(options.all, 'all');
  validateFlag(options.bigint, 'bigint');
  const timeout = validateTimeout(options.timeout) ?? DEFAULT_TIMEOUT_MS;
  const listed = await dfMounts({ all: options.all === true, bigint: options.bigint === true, timeout, ...(options.signal && { signal: options.signal }) });
  return listed.map(({ mount, usage, error }) => ({ mount, usage: usage ?? null, error: usage === undefined ? (error as ProbeError) : null })) as Array<
    MountUsage<number> | MountUsage<bigint>
  >;
}

function validateFlag(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw codeError(
      TypeError,
      'ERR_INVALID_ARG_TYPE',
      `The "options.${name}" property must be of type boolean. Received type ${typeof value} (${String(value)})`,
    );
  }
}

/**
 * The mounted file systems. By default the set `df` shows (dfMounts).
 * With `all`, every mount in the table, as `df -a` lists them.
 */
export async function listMounts(options?: ListMountsOptions | null): Promise<Mount[]> {
  options = validateOptions(options, LIST_MOUNTS_OPTIONS) ?? {};
  validateSignal(options.signal);
  validateFlag(options.all, 'all');
  const timeout = validateTimeout(options.timeout) ?? DEFAULT_TIMEOUT_MS;
  if (options.signal?.aborted) throw abortError(options.signal);
  if (options.all === true) return tables.fresh().entries.map(publicMount);
  return (await dfMounts({ timeout, ...(options.signal && { signal: options.signal }) })).map((outcome) => outcome.mount);
}
