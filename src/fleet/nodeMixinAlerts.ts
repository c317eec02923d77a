// node-mixin's file system alerts (prometheus/node_exporter,
// docs/node-mixin/alerts/alerts.libsonnet, Apache-2.0), with node-mixin's
// default thresholds and windows, for disk_fill_forecast to say which would
// fire. The expressions are node-mixin's rendered text with the selector
// left open: prometheus/diskprobe.rules.yml holds the same expressions with
// `fstype!="",mountpoint!=""`, and test/fleet/nodeMixinAlerts.test.ts checks
// that the two agree, so the tool and the shipped rules cannot drift apart.
import type { Family } from './filesystems.js';

export interface MixinAlert {
  readonly alertname: string;
  readonly severity: 'warning' | 'critical';
  /** How long the expression must hold before Prometheus fires it. */
  readonly for: string;
  /** What runs out. */
  readonly resource: 'space' | 'inodes';
  /** The expression, for a selector's inside (e.g. `fstype!="",mountpoint!=""`). */
  expr(selector: string): string;
}

/** free / total * 100 < threshold, not read-only, and, for the "filling up" ones, predicted to reach zero within `hours`. */
function rule(free: Family, total: Family, threshold: number, hours: number | undefined): (selector: string) => string {
  return (s) => {
    const ratio = `node_filesystem_${free}{${s}} / node_filesystem_${total}{${s}} * 100 < ${threshold}`;
    const filling = hours === undefined ? '' : `and\n  predict_linear(node_filesystem_${free}{${s}}[6h], ${hours}*60*60) < 0\n`;
    return `(\n  ${ratio}\n${filling}and\n  node_filesystem_readonly{${s}} == 0\n)\n`;
  };
}

/** @internal exported for the tests */
export const MIXIN_ALERTS: readonly MixinAlert[] = [
  { alertname: 'NodeFilesystemSpaceFillingUp', severity: 'warning', for: '1h', resource: 'space', expr: rule('avail_bytes', 'size_bytes', 40, 24) },
  { alertname: 'NodeFilesystemSpaceFillingUp', severity: 'critical', for: '1h', resource: 'space', expr: rule('avail_bytes', 'size_bytes', 20, 4) },
  { alertname: 'NodeFilesystemAlmostOutOfSpace', severity: 'warning', for: '30m', resource: 'space', expr: rule('avail_bytes', 'size_bytes', 5, undefined) },
  { alertname: 'NodeFilesystemAlmostOutOfSpace', severity: 'critical', for: '30m', resource: 'space', expr: rule('avail_bytes', 'size_bytes', 3, undefined) },
  { alertname: 'NodeFilesystemFilesFillingUp', severity: 'warning', for: '1h', resource: 'inodes', expr: rule('files_free', 'files', 40, 24) },
  { alertname: 'NodeFilesystemFilesFillingUp', severity: 'critical', for: '1h', resource: 'inodes', expr: rule('files_free', 'files', 20, 4) },
  { alertname: 'NodeFilesystemAlmostOutOfFiles', severity: 'warning', for: '1h', resource: 'inodes', expr: rule('files_free', 'files', 5, undefined) },
  { alertname: 'NodeFilesystemAlmostOutOfFiles', severity: 'critical', for: '1h', resource: 'inodes', expr: rule('files_free', 'files', 3, undefined) },
];

/**
 * One query for all of them: each alert's expression with its alertname and
 * severity added as labels (label_replace), joined with `or`, which keeps
 * every series because those labels tell them apart. A series in the answer
 * is an alert whose condition holds now, for the file system its labels name.
 */
export function mixinAlertsQuery(selector: string): string {
  return MIXIN_ALERTS.map(
    (alert) => `label_replace(label_replace(${alert.expr(selector)}, "alertname", "${alert.alertname}", "", ""), "severity", "${alert.severity}", "", "")`,
  ).join('\nor\n');
}

/** The alert a series of mixinAlertsQuery's answer stands for. */
export function alertOf(labels: Readonly<Record<string, string>>): MixinAlert | undefined {
  return MIXIN_ALERTS.find((alert) => alert.alertname === labels.alertname && alert.severity === labels.severity);
}
