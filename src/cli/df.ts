// `diskprobe df`: probes every mounted file system (the set df lists) or the
// file system holding each path given, all in parallel and each within the
// timeout, then prints a table like `df -hT` or exact JSON.
import { realpathSync, statSync } from 'node:fs';
import { displayPath } from '../format/displayPath.js';
import { failureReason } from '../format/failureReason.js';
import { quoteName } from '../format/quoteName.js';
import { dfMounts, diskUsage, diskUsageInline, listMounts } from '../probe/probe.js';
import type { DiskUsage, Mount } from '../probe/types.js';

import { type DfRow, renderDfTable } from './dfTable.js';
import { stringifyExact } from './exactJson.js';

export interface DfOptions {
  /** Exact JSON instead of the table. */
  readonly json: boolean;
  /** Inode counts instead of bytes (table only; the JSON always has both). */
  readonly inodes: boolean;
  /** Milliseconds each file system has to answer. */
  readonly timeout: number;
  /** Paths to report on; none means every mounted file system. */
  readonly paths: readonly string[];
}

/** Where the command writes: stdout gets only the table or JSON, stderr one line per failure. */
export interface DfOutput {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
}

/** What to probe: a path as given, or a mount from the table (whose device and type are then known). */
interface Target {
  readonly path: string;
  readonly mount: Mount | undefined;
}

type Outcome = { readonly target: Target; readonly usage: DiskUsage<bigint> } | { readonly target: Target; readonly error: unknown };

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** The mount at each mount point; where mounts are stacked, the last, which is the one visible. */
function mountsByPoint(mounts: readonly Mount[]): Map<string, Mount> {
  return new Map(mounts.map((mount) => [mount.mountPoint, mount]));
}

/**
 * How the command probes: anywhere, waiting on the addon's threads where it
 * must (the worker process, which the command can leave behind: see
 * dfIsolated.ts); or only on the calling thread, where nothing can block,
 * giving up (undefined) where a probe would need a thread.
 */
interface Prober {
  /** The file system holding `path`, as a probe of it reports it. */
  usage(path: string, timeout: number): Promise<DiskUsage<bigint> | undefined>;
  /** Every file system df lists, each probed once: the probe that found it not empty is the one shown. */
  all(timeout: number): Promise<Outcome[] | undefined>;
}

const toOutcomes = (listed: ReadonlyArray<{ mount: Mount; usage?: DiskUsage<bigint> | undefined; error?: unknown }>): Outcome[] =>
  listed.map(({ mount, usage, error }) => {
    const target = { path: mount.mountPoint, mount };
    return usage === undefined ? { target, error } : { target, usage };
  });

const anywhere: Prober = {
  usage: (path, timeout) => diskUsage(path, { bigint: true, timeout }),
  all: async (timeout) => toOutcomes(await dfMounts({ timeout, bigint: true })),
};

const onThisThread: Prober = {
  usage: async (path) => diskUsageInline(path),
  all: async (timeout) => {
    const listed = await dfMounts({ timeout, bigint: true, inlineOnly: true });
    return listed && toOutcomes(listed);
  },
};

/**
 * The mount whose device is the node at `path`, if `path` is a device node
 * mounted somewhere: df reports that file system, not the one holding the
 * node (`df /dev/vda` shows /, not /dev: get_disk in coreutils' df.c, which
 * takes the shortest mount point). Called only once the node's own file
 * system has answered a probe, and mounts are matched by name under /dev, so
 * nothing that may hang is asked.
 */
function mountedFrom(path: string, mounts: Iterable<Mount>): Mount | undefined {
  let device: string;
  try {
    const node = statSync(path);
    if (!node.isBlockDevice() && !node.isCharacterDevice()) return undefined;
    device = realpathSync(path);
  } catch {
    return undefined;
  }
  let best: Mount | undefined;
  for (const mount of mounts) {
    if (!mount.device.startsWith('/dev/')) continue;
    let name = mount.device;
    try {
      name = realpathSync(name);
    } catch {
      // a name the table keeps for a node that is gone: compared as it is
    }
    if (name === device && (best === undefined || mount.mountPoint.length < best.mountPoint.length)) best = mount;
  }
  return best;
}

/** `path`'s outcome; undefined when `probe` could not tell (a probe on the calling thread that would need one elsewhere). */
async function probePath(probe: Prober, path: string, timeout: number, mounts: Iterable<Mount>): Promise<Outcome | undefined> {
  let target: Target = { path, mount: undefined };
  try {
    const usage = await probe.usage(path, timeout);
    if (usage === undefined) return undefined;
    const mount = mountedFrom(path, mounts);
    if (mount === undefined) return { target, usage };
    target = { path, mount };
    const mounted = await probe.usage(mount.mountPoint, timeout);
    return mounted && { target, usage: mounted };
  } catch (error) {
    return { target, error };
  }
}

function rowFor(outcome: Outcome, byPoint: Map<string, Mount>): DfRow | undefined {
  const { target } = outcome;
  if ('usage' in outcome) {
    const { usage } = outcome;
    const mount = target.mount ?? (usage.mountPoint === null ? undefined : byPoint.get(usage.mountPoint));
    return {
      kind: 'usage',
      filesystem: mount?.device ?? '-',
      type: usage.fsType ?? mount?.fsType ?? '-',
      mountedOn: target.mount?.mountPoint ?? usage.mountPoint ?? '-',
      usage,
    };
  }
  if (errorCode(outcome.error) !== 'ETIMEDOUT') return undefined;
  const stuckPoint = (outcome.error as { mountPoint?: unknown }).mountPoint;
  const mount = target.mount ?? (typeof stuckPoint === 'string' ? byPoint.get(stuckPoint) : undefined);
  return {
    kind: 'notResponding',
    filesystem: mount?.device ?? '-',
    type: mount?.fsType ?? '-',
    mountedOn: mount?.mountPoint ?? (typeof stuckPoint === 'string' ? stuckPoint : '-'),
  };
}

// Listing every mount, df keeps quiet about one it may not read or that went
// away after the table was read (EACCES, ENOENT: get_dev in coreutils' df.c),
// so a user's private FUSE mount is no error for everyone else.
function silenced(error: unknown, listingAll: boolean): boolean {
  const code = errorCode(error);
  return listingAll && (code === 'EACCES' || code === 'ENOENT');
}

/** Runs the command; resolves to the exit status (0, or 1 when any file system failed or did not answer). */
export async function runDf(options: DfOptions, output: DfOutput): Promise<number> {
  return (await run(anywhere, options, output))!;
}

/**
 * Runs the command in this process if every probe it needs can be answered
 * on the calling thread, where none can block: nothing is left running
 * after it, and no second process is started. Resolves to undefined,
 * having written nothing, when some probe would need the addon's threads
 * (NFS, FUSE, a path not in the kernel's cache…): then runDfIsolated.
 */
export async function runDfHere(options: DfOptions, output: DfOutput): Promise<number | undefined> {
  return run(onThisThread, options, output);
}

async function run(probe: Prober, options: DfOptions, output: DfOutput): Promise<number | undefined> {
  const listingAll = options.paths.length === 0;
  // Only names are read here, no file system is asked: safe with a dead mount.
  const byPoint = listingAll ? new Map<string, Mount>() : mountsByPoint(await listMounts({ all: true }));
  const outcomes = listingAll
    ? await probe.all(options.timeout)
    : await Promise.all(options.paths.map((path) => probePath(probe, path, options.timeout, byPoint.values())));
  if (outcomes === undefined || outcomes.includes(undefined as never)) return undefined;
  return report(outcomes as Outcome[], listingAll, options, output, byPoint);
}

function report(outcomes: readonly Outcome[], listingAll: boolean, options: DfOptions, output: DfOutput, byPoint: Map<string, Mount>): number {
  let status = 0;
  for (const outcome of outcomes) {
    if (!('error' in outcome) || silenced(outcome.error, listingAll)) continue;
    // Quoted as df quotes it: a newline or a terminal escape in a name cannot break or forge a line.
    output.stderr.write(`diskprobe: ${quoteName(displayPath(outcome.target.path))}: ${failureReason(outcome.error, options.timeout)}\n`);
    status = 1;
  }

  if (options.json) {
    const usages = outcomes.flatMap((outcome) => ('usage' in outcome ? [outcome.usage] : []));
    output.stdout.write(`${stringifyExact(usages)}\n`);
  } else {
    const rows = outcomes.flatMap((outcome) => rowFor(outcome, byPoint) ?? []);
    // As df: no header over nothing.
    if (rows.length > 0) output.stdout.write(renderDfTable(rows, { inodes: options.inodes, usageBar: output.stdout.isTTY === true }));
  }

  if (listingAll && outcomes.length === 0) {
    output.stderr.write('diskprobe: no file systems processed\n');
    status = 1;
  }
  return status;
}
