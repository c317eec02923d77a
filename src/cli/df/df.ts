// `diskprobe df`: probes every mounted file system (the set df lists) or the
// file system holding each path given, all in parallel and each within the
// timeout, then prints a table like `df -hT` or exact JSON.
import { realpathSync, statSync } from 'node:fs';
import type { MountEntry } from '../../probe/mountEntry.js';
import { dfMounts, listMounts } from '../../probe/mountProbes.js';
import { diskUsage, diskUsageInline } from '../../probe/probe.js';
import { backend } from '../../probe/runtime.js';
import type { DiskUsage, Mount } from '../../probe/types.js';
import type { DfOptions } from './dfCommandLine.js';
import { type DfOutcome, type DfOutput, type DfTarget, report } from './dfReport.js';
import { mountSelected, overMounted } from './dfSelection.js';

export type { DfOptions } from './dfCommandLine.js';
export type { DfOutput } from './dfReport.js';

/** The mount at each mount point; where mounts are stacked, the last, which is the one visible. */
function mountsByPoint(mounts: readonly Mount[]): Map<string, Mount> {
  return new Map(mounts.map((mount) => [mount.mountPoint, mount]));
}

/** Which mounts to list: every one (-a) or df's set, and which of them the filters keep. */
interface ListingRequest {
  readonly all: boolean;
  readonly include: (mountPoint: string, entry: MountEntry) => boolean;
}

/**
 * How the command probes: anywhere, waiting on the addon's threads where it
 * must (the worker process, which the command can leave behind: see
 * isolated.ts); or only on the calling thread, where nothing can block,
 * giving up (undefined) where a probe would need a thread.
 */
interface Prober {
  /** The file system holding `path`, as a probe of it reports it. */
  usage(path: string, timeout: number): Promise<DiskUsage<bigint> | undefined>;
  /** Every file system listed, each probed once: the probe that found it not empty is the one shown. */
  all(timeout: number, request: ListingRequest): Promise<DfOutcome[] | undefined>;
}

const toOutcomes = (listed: ReadonlyArray<{ mount: Mount; usage?: DiskUsage<bigint> | undefined; error?: unknown }>): DfOutcome[] =>
  listed.map(({ mount, usage, error }) => {
    const target = { path: mount.mountPoint, file: '-', mount };
    return usage === undefined ? { target, error } : { target, usage };
  });

const anywhere: Prober = {
  usage: (path, timeout) => diskUsage(path, { bigint: true, timeout }),
  all: async (timeout, { all, include }) => toOutcomes(await dfMounts({ timeout, bigint: true, all, include })),
};

const onThisThread: Prober = {
  usage: async (path) => diskUsageInline(path),
  all: async (timeout, { all, include }) => {
    const listed = await dfMounts({ timeout, bigint: true, all, include, inlineOnly: true });
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
async function probePath(probe: Prober, path: string, timeout: number, mounts: Iterable<Mount>): Promise<DfOutcome | undefined> {
  let target: DfTarget = { path, file: path, mount: undefined };
  try {
    const usage = await probe.usage(path, timeout);
    if (usage === undefined) return undefined;
    const mount = mountedFrom(path, mounts);
    if (mount === undefined) return { target, usage };
    target = { path, file: path, mount };
    const mounted = await probe.usage(mount.mountPoint, timeout);
    return mounted && { target, usage: mounted };
  } catch (error) {
    return { target, error };
  }
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
 * (NFS, FUSE, a path not in the kernel's cache…): then runIsolated (isolated.ts).
 */
export async function runDfHere(options: DfOptions, output: DfOutput): Promise<number | undefined> {
  return run(onThisThread, options, output);
}

async function run(probe: Prober, options: DfOptions, output: DfOutput): Promise<number | undefined> {
  if (options.paths.length === 0) {
    const listing = await listAll(probe, options);
    return listing && report({ ...listing, listingAll: true, byPoint: new Map(), backend }, options, output);
  }
  // Only names are read here, no file system is asked: safe with a dead mount.
  const byPoint = mountsByPoint(await listMounts({ all: true }));
  const outcomes = await Promise.all(options.paths.map((path) => probePath(probe, path, options.timeout, byPoint.values())));
  if (outcomes.includes(undefined)) return undefined;
  return report({ outcomes: outcomes as DfOutcome[], listingAll: false, overMounted: [], byPoint, backend }, options, output);
}

/** Every mount df would list with these options, probed; undefined when `probe` could not tell. */
async function listAll(probe: Prober, options: DfOptions): Promise<{ outcomes: DfOutcome[]; overMounted: boolean[] } | undefined> {
  // With -a every entry of the table is seen here, in order, as the probe
  // filters them; they are kept for overMounted.
  const entries: MountEntry[] = [];
  const listed: number[] = [];
  const include = options.all
    ? (_: string, entry: MountEntry): boolean => {
        entries.push(entry);
        const selected = mountSelected(entry.device, entry.fsType, options);
        if (selected) listed.push(entries.length - 1);
        return selected;
      }
    : (_: string, entry: MountEntry): boolean => mountSelected(entry.device, entry.fsType, options);
  const outcomes = await probe.all(options.timeout, { all: options.all, include });
  if (outcomes === undefined || !options.all) return outcomes && { outcomes, overMounted: [] };
  // With -a every selected entry is probed, in order: the device each mount
  // point shows is that of the mount the probe found there.
  const deviceAt = new Map(entries.map((entry) => [entry.mountPoint, entry.deviceKey]));
  const shown = new Array<number | undefined>(entries.length);
  outcomes.forEach((outcome, index) => {
    if ('usage' in outcome && outcome.usage.mountPoint !== null) shown[listed[index]!] = deviceAt.get(outcome.usage.mountPoint);
  });
  const hidden = overMounted(entries, shown, options);
  return { outcomes, overMounted: listed.map((index) => hidden[index]!) };
}
