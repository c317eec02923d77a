// What the fleet tools (fleet_disk_usage, disk_fill_forecast) share: the
// Prometheus they ask, the matchers their arguments add, and how a failure
// or an empty answer becomes a tool error that says what to do.
import { BASE_MATCHERS, type FleetFilesystem, familiesSelector } from '../../../fleet/filesystems.js';
import { type PrometheusClient, PrometheusError } from '../../../fleet/prometheusClient.js';
import { labelMatcher, type Matcher, matcherList, PromqlValueError } from '../../../fleet/promql.js';
import { counted } from '../../../format/counted.js';
import type { CancelSignal } from '../../../probe/types.js';
import type { ToolResult } from '../../protocol/tool.js';

/** The Prometheus the fleet tools ask (serve --prometheus), and the matchers added to every query (--prometheus-selector). */
export interface Fleet {
  readonly client: PrometheusClient;
  readonly selector: readonly Matcher[];
}

/** A value that may be null, as an anyOf (never `type: [X, "null"]`; see usageSchema.ts). */
export const nullable = (type: string, description: string) => ({ anyOf: [{ type }, { type: 'null' }], description });

/** The fields that name a file system in both tools' structuredContent, from its labels. */
export const FILESYSTEM_FIELDS = {
  instance: { type: 'string', description: 'The instance label: the exporter, usually host:port' },
  job: { type: 'string', description: 'The job label' },
  mountpoint: { type: 'string', description: 'Where it is mounted' },
  fstype: { type: 'string', description: 'File system type' },
  device: { type: 'string', description: 'What is mounted' },
  readonly: { type: 'boolean', description: 'Mounted read-only' },
  deviceError: nullable('string', 'Why the exporter could not read it, e.g. "mountpoint timeout" for a stuck mount; null when it could'),
} as const;

/** Those fields of one file system. */
export function filesystemFields(fs: FleetFilesystem): Record<keyof typeof FILESYSTEM_FIELDS, unknown> {
  const { instance, job, mountpoint, fstype, device, readonly, deviceError } = fs;
  return { instance, job, mountpoint, fstype, device, readonly, deviceError };
}

/** The label filters a tool takes, each matched exactly (never as a regular expression). */
export const FILTER_LABELS = ['instance', 'job', 'mountpoint', 'fstype'] as const;

export const filterSchema = (label: string, example: string) => ({
  type: 'string' as const,
  description: `Only file systems whose ${label} label is exactly this, e.g. ${JSON.stringify(example)} (not a pattern)`,
});

/** The tool's filters as exact matchers. */
export function filterMatchers(args: Record<string, unknown>): Matcher[] {
  return FILTER_LABELS.filter((name) => typeof args[name] === 'string').map((name) => ({ name, op: '=', value: args[name] as string }));
}

/** Every query's matchers: node-mixin's exclusions, --prometheus-selector, then the filters. */
export function fleetMatchers(fleet: Fleet, filters: readonly Matcher[]): Matcher[] {
  return [...BASE_MATCHERS, ...fleet.selector, ...filters];
}

/** A failure to ask Prometheus, or an argument no query can hold, as a tool error; anything else (a cancel, a bug) is thrown on. */
export function fleetFailure(error: unknown): ToolResult {
  if (error instanceof PrometheusError || error instanceof PromqlValueError) return { text: error.message, isError: true };
  throw error;
}

const SHOWN_INSTANCES = 10;

/**
 * Why a query found no file system, as a tool error: the filters match
 * nothing Prometheus has (and which instances it does have), or it has no
 * node_filesystem series at all under the selector, which means nothing
 * scrapes an exporter into it.
 */
export async function noSeries(fleet: Fleet, filters: readonly Matcher[], signal: CancelSignal): Promise<ToolResult> {
  const configured = fleet.selector.length > 0 ? ` matching --prometheus-selector '${matcherList(fleet.selector)}'` : '';
  const { instances } = await fleet.client.queryAll({ instances: `count by (instance) (${familiesSelector(fleetMatchers(fleet, []))})` }, signal);
  if (instances.length === 0) {
    return {
      text:
        `Prometheus at ${fleet.client.where} has no node_filesystem series${configured}. Does it scrape node_exporter, or diskprobe metrics --listen? ` +
        'docs/fleet.md shows a scrape config. If it does, check --prometheus-selector.',
      isError: true,
    };
  }
  const known = instances.map((sample) => sample.labels.instance ?? '').sort();
  const listed = known.slice(0, SHOWN_INSTANCES).join(', ') + (known.length > SHOWN_INSTANCES ? `, and ${known.length - SHOWN_INSTANCES} more` : '');
  return {
    text:
      `No file system matches ${filters.map(labelMatcher).join(', ')}${configured}: filters match label values exactly (an instance is usually host:port). ` +
      `Prometheus has file systems from ${counted(known.length, 'instance')}: ${listed}.`,
    isError: true,
  };
}
