// node_exporter's filesystem collector, done right: the same families,
// HELP texts and labels (node_exporter 1.9: device, device_error, fstype,
// mountpoint; and node_filesystem_mount_info), so dashboards and alerts keep
// working, with values in f_frsize units (node_exporter multiplies by
// f_bsize) and a dead mount that never holds the scrape: it is reported as
// device_error{device_error="mountpoint timeout"} 1 within the budget, and
// every other mount gets its exact values. Plus diskprobe's own families.

import type { MountEntry } from '../probe/mountEntry.js';
import { dfMounts } from '../probe/mountProbes.js';
import { backend, stuckMounts } from '../probe/runtime.js';
import type { DiskUsage, ProbeError } from '../probe/types.js';
import type { Family, Sample } from './exposition.js';

export interface CollectOptions {
  /** Milliseconds the whole collection may take; a mount that has not answered by then is "mountpoint timeout". */
  readonly timeoutMs: number;
  readonly mountPointsExclude: RegExp;
  readonly fsTypesExclude: RegExp;
  /** The families' common prefix: node_filesystem, or another beside node_exporter's own collector (--prefix). */
  readonly prefix: string;
  /** diskprobe's version, for diskprobe_build_info. */
  readonly version: string;
  /**
   * Probe only on the calling thread, where nothing can block; collect
   * nothing (undefined) when some mount would need the addon's threads.
   * For a one-shot command, which must be able to exit (see src/cli/isolated.ts).
   */
  readonly inlineOnly?: boolean;
}

const LABELS = ['device', 'device_error', 'fstype', 'mountpoint'];

/** The errno texts of Go's syscall package (glibc's strerror, lower case), as node_exporter's device_error label says them. */
const GO_ERROR_TEXT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EIO: 'input/output error',
  ENOTCONN: 'transport endpoint is not connected',
  ESTALE: 'stale NFS file handle',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  ENODEV: 'no such device',
  ENOSYS: 'function not implemented',
  EOVERFLOW: 'value too large for defined data type',
  EHOSTDOWN: 'host is down',
  EINTR: 'interrupted system call',
};

/**
 * The device_error label of a failed probe: "mountpoint timeout" for one that did not answer, else the errno's text.
 * @internal exported for the tests
 */
export function deviceErrorText(error: unknown): string {
  const { code, message } = error as Partial<ProbeError>;
  if (code === 'ETIMEDOUT') return 'mountpoint timeout';
  if (code !== undefined && GO_ERROR_TEXT[code] !== undefined) return GO_ERROR_TEXT[code]!;
  return (message ?? String(error)).split(': ').at(-1)!;
}

interface Row {
  readonly entry: MountEntry;
  readonly usage: DiskUsage<bigint> | undefined;
  readonly error: unknown;
  /** Seconds from the start of the collection until this mount's answer was in. */
  readonly seconds: number;
}

/** Probes every mount the exclusions leave, within the budget, in one pass; undefined if `inlineOnly` and some probe could block. */
async function probeMounts(options: CollectOptions): Promise<{ rows: Row[]; seconds: number } | undefined> {
  const entries = new Map<string, MountEntry>();
  const answeredAt = new Map<string, number>();
  const started = performance.now();
  let reported = 0;
  const outcomes = await dfMounts({
    all: true,
    bigint: true,
    inlineOnly: options.inlineOnly === true,
    timeout: options.timeoutMs,
    include: (mountPoint, entry) => {
      if (options.mountPointsExclude.test(mountPoint) || options.fsTypesExclude.test(entry.fsType)) return false;
      entries.set(mountPoint, entry);
      return true;
    },
    // Called once for the mounts answered on this thread (together), then once per mount answered on the addon's threads.
    onProgress: (done, _total, mountPoint) => {
      const at = (performance.now() - started) / 1000;
      if (done - reported > 1) for (const point of entries.keys()) if (!answeredAt.has(point)) answeredAt.set(point, at);
      answeredAt.set(mountPoint, at);
      reported = done;
    },
  });
  if (outcomes === undefined) return undefined;
  const seconds = (performance.now() - started) / 1000;
  const rows = outcomes.map(({ mount, usage, error }) => ({
    entry: entries.get(mount.mountPoint)!,
    usage,
    error,
    seconds: answeredAt.get(mount.mountPoint) ?? seconds,
  }));
  return { rows, seconds };
}

const family = (name: string, help: string, labelNames: readonly string[], samples: Sample[]): Family => ({ name, help, type: 'gauge', labelNames, samples });

/** Every family of one scrape. */
export async function collectFilesystems(options: CollectOptions & { readonly inlineOnly?: false }): Promise<Family[]>;
/** Every family of one scrape; undefined if `inlineOnly` and some mount's probe could block. */
export async function collectFilesystems(options: CollectOptions): Promise<Family[] | undefined>;
export async function collectFilesystems(options: CollectOptions): Promise<Family[] | undefined> {
  const probed = await probeMounts(options);
  if (probed === undefined) return undefined;
  const { rows, seconds } = probed;
  const size: Sample[] = [];
  const free: Sample[] = [];
  const avail: Sample[] = [];
  const files: Sample[] = [];
  const filesFree: Sample[] = [];
  const readonly: Sample[] = [];
  const deviceError: Sample[] = [];
  const mountInfo: Sample[] = [];
  const duration: Sample[] = [];
  // One series set per (device, mount point, type), as node_exporter de-duplicates.
  const seen = new Set<string>();
  for (const { entry, usage, error, seconds: answered } of rows) {
    const key = `${entry.device}\0${entry.mountPoint}\0${entry.fsType}`;
    if (seen.has(key)) continue;
    seen.add(key);
    duration.push({ labels: [entry.mountPoint], value: Math.round(answered * 1e6) / 1e6 });
    if (usage === undefined) {
      const labels = [entry.device, deviceErrorText(error), entry.fsType, entry.mountPoint];
      deviceError.push({ labels, value: 1 });
      // As node_exporter: the read-only flag from the mount table; 0 for a mount that did not answer.
      readonly.push({ labels, value: (error as Partial<ProbeError>).code === 'ETIMEDOUT' ? 0 : entry.readOnly ? 1 : 0 });
      continue;
    }
    const labels = [entry.device, '', entry.fsType, entry.mountPoint];
    size.push({ labels, value: usage.total });
    free.push({ labels, value: usage.free });
    avail.push({ labels, value: usage.available });
    if (usage.inodes !== null) {
      files.push({ labels, value: usage.inodes.total });
      filesFree.push({ labels, value: usage.inodes.free });
    }
    readonly.push({ labels, value: entry.readOnly ? 1 : 0 });
    deviceError.push({ labels, value: 0 });
    if (Number.isFinite(entry.deviceKey)) {
      const major = Math.floor(entry.deviceKey / 2 ** 20);
      mountInfo.push({ labels: [entry.device, String(major), String(entry.deviceKey - major * 2 ** 20), entry.mountPoint], value: 1 });
    }
  }
  const p = options.prefix;
  return [
    family(`${p}_avail_bytes`, 'Filesystem space available to non-root users in bytes.', LABELS, avail),
    family(`${p}_device_error`, 'Whether an error occurred while getting statistics for the given device.', LABELS, deviceError),
    family(`${p}_files`, 'Filesystem total file nodes.', LABELS, files),
    family(`${p}_files_free`, 'Filesystem total free file nodes.', LABELS, filesFree),
    family(`${p}_free_bytes`, 'Filesystem free space in bytes.', LABELS, free),
    family(`${p}_readonly`, 'Filesystem read-only status.', LABELS, readonly),
    family(`${p}_size_bytes`, 'Filesystem size in bytes.', LABELS, size),
    family(`${p}_mount_info`, 'Filesystem mount information.', ['device', 'major', 'minor', 'mountpoint'], mountInfo),
    family('diskprobe_probe_duration_seconds', "Seconds from the scrape's start until the mount's answer (or its timeout) was in.", ['mountpoint'], duration),
    family('diskprobe_scrape_duration_seconds', 'Seconds the filesystem scrape took.', [], [{ labels: [], value: Math.round(seconds * 1e6) / 1e6 }]),
    // For the DiskprobeScrapeNearBudget alert (prometheus/diskprobe.rules.yml): Prometheus does not store its own scrape timeout.
    family(
      'diskprobe_scrape_budget_seconds',
      'Seconds the filesystem scrape was given: the scrape timeout Prometheus sent, less a tenth, or --timeout.',
      [],
      [{ labels: [], value: options.timeoutMs / 1000 }],
    ),
    family(
      'diskprobe_stuck_mounts',
      'Mounts with a probe that has not answered yet: each fails fast until it does.',
      [],
      [{ labels: [], value: stuckMounts().length }],
    ),
    family(
      'diskprobe_backend_info',
      "The probe backend in use: native (statvfs in f_frsize units) or statfs (Node's fs.statfs fallback, f_bsize units).",
      ['backend'],
      [{ labels: [backend], value: 1 }],
    ),
    family(
      'diskprobe_build_info',
      "diskprobe's version and the Node.js running it.",
      ['version', 'nodejs'],
      [{ labels: [options.version, process.versions.node], value: 1 }],
    ),
  ];
}
