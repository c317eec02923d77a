// The fleet's file systems, from node_filesystem_* series: the series of one
// file system share every label but __name__ and device_error (an empty
// device_error is no label at all to Prometheus), so that is what joins
// them. A stuck mount has only node_filesystem_device_error and
// node_filesystem_readonly series, no size: it is still one of them.
import type { Sample } from './prometheusClient.js';
import { type Matcher, matcherList } from './promql.js';

/** The node_filesystem families read, by the suffix of their name. */
const FAMILIES = ['size_bytes', 'avail_bytes', 'free_bytes', 'files', 'files_free', 'readonly', 'device_error'] as const;
export type Family = (typeof FAMILIES)[number];

/** Every tool's query leaves out what node-mixin leaves out (config.libsonnet: fsSelector, fsMountpointSelector). */
export const BASE_MATCHERS: readonly Matcher[] = [
  { name: 'fstype', op: '!=', value: '' },
  { name: 'mountpoint', op: '!=', value: '' },
];

/** `{__name__=~"node_filesystem_(size_bytes|…)",…}`: every family at once, one series set per file system. */
export function familiesSelector(matchers: readonly Matcher[]): string {
  const names: Matcher = { name: '__name__', op: '=~', value: `node_filesystem_(${FAMILIES.join('|')})` };
  return `{${matcherList([names, ...matchers])}}`;
}

export interface FleetFilesystem {
  /** The labels that name it (all but __name__ and device_error), as one string: its identity. */
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly instance: string;
  readonly job: string;
  readonly mountpoint: string;
  readonly fstype: string;
  readonly device: string;
  /** Bytes; null when the exporter had no size for it (a stuck mount). */
  readonly sizeBytes: number | null;
  readonly availBytes: number | null;
  readonly freeBytes: number | null;
  /** Inodes; null where the file system has none or they were not read. */
  readonly files: number | null;
  readonly filesFree: number | null;
  readonly readonly: boolean;
  /** Why the exporter could not read it ("mountpoint timeout" for a stuck one), or null. */
  readonly deviceError: string | null;
}

const LEFT_OUT = new Set(['__name__', 'device_error']);
const NOTHING: ReadonlySet<string> = new Set();

/** The labels naming the file system a series belongs to, and their identity string; `also` are left out too (a query's own labels). */
export function identity(labels: Readonly<Record<string, string>>, also: ReadonlySet<string> = NOTHING): { key: string; labels: Record<string, string> } {
  const kept: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) if (!LEFT_OUT.has(name) && !also.has(name)) kept[name] = labels[name]!;
  return { key: JSON.stringify(kept), labels: kept };
}

/** A sample's value as a number: exact for integers below 2^53, as Prometheus writes them; null for NaN and infinities. */
export function sampleNumber(value: string): number | null {
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

interface Gathered {
  labels: Record<string, string>;
  values: Partial<Record<Family, number | null>>;
  deviceError: string | null;
}

/** The file systems of one answer to familiesSelector, in no particular order. */
export function joinFilesystems(samples: readonly Sample[]): FleetFilesystem[] {
  const byKey = new Map<string, Gathered>();
  for (const sample of samples) {
    const family = sample.labels.__name__?.replace(/^node_filesystem_/, '') as Family | undefined;
    if (family === undefined || !FAMILIES.includes(family)) continue;
    const { key, labels } = identity(sample.labels);
    const gathered = byKey.get(key) ?? { labels, values: {}, deviceError: null };
    byKey.set(key, gathered);
    const value = sampleNumber(sample.value);
    gathered.values[family] = value;
    // node_exporter 1.9 and diskprobe name the error in the label; older node_exporters only set the value.
    if (family === 'device_error' && value !== null && value !== 0) gathered.deviceError = sample.labels.device_error || 'error';
  }
  return [...byKey].map(([key, { labels, values, deviceError }]) => ({
    key,
    labels,
    instance: labels.instance ?? '',
    job: labels.job ?? '',
    mountpoint: labels.mountpoint ?? '',
    fstype: labels.fstype ?? '',
    device: labels.device ?? '',
    sizeBytes: values.size_bytes ?? null,
    availBytes: values.avail_bytes ?? null,
    freeBytes: values.free_bytes ?? null,
    files: values.files ?? null,
    filesFree: values.files_free ?? null,
    readonly: values.readonly === 1,
    deviceError,
  }));
}

/** "alpha:9100 /var (ext4)": how a text names one. */
export function fsName(fs: FleetFilesystem): string {
  return `${fs.instance} ${fs.mountpoint} (${fs.fstype}${fs.device !== '' && fs.device !== fs.fstype ? `, ${fs.device}` : ''})`;
}
