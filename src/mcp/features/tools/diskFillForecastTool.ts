// disk_fill_forecast: which of the fleet's file systems will be full, and
// when, from Prometheus's history of node_filesystem_avail_bytes and
// _files_free: deriv() and predict_linear() over the lookback, and
// node-mixin's file system alerts evaluated now, with node-mixin's own
// expressions (src/fleet/nodeMixinAlerts.ts). Seven instant queries, sent
// together at one instant.
import { type FleetFilesystem, familiesSelector, fsName, identity, joinFilesystems, sampleNumber } from '../../../fleet/filesystems.js';
import { showHours, type Trend, trend } from '../../../fleet/forecast.js';
import { alertOf, type MixinAlert, mixinAlertsQuery } from '../../../fleet/nodeMixinAlerts.js';
import type { Sample } from '../../../fleet/prometheusClient.js';
import { DURATION_PATTERN, duration, durationMs, matcherList, showDuration } from '../../../fleet/promql.js';
import { counted, grouped } from '../../../format/counted.js';
import { humanSize } from '../../../format/humanSize.js';
import type { Tool, ToolResult } from '../../protocol/tool.js';
import {
  FILESYSTEM_FIELDS,
  type Fleet,
  filesystemFields,
  filterMatchers,
  filterSchema,
  fleetFailure,
  fleetMatchers,
  noSeries,
  nullable,
} from './fleetQuery.js';
import { fitPage, TEXT_BUDGET } from './pageBudget.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;
const DEFAULT_LOOKBACK = '6h';
const DEFAULT_HORIZON = '24h';
/** Past these, Prometheus's default retention (15 days) has nothing, and a straight line says nothing. */
const MAX_LOOKBACK_MS = 90 * 86_400_000;
const MAX_HORIZON_MS = 365 * 86_400_000;
/** The labels mixinAlertsQuery adds, left out when matching its series to a file system. */
const ALERT_LABELS: ReadonlySet<string> = new Set(['alertname', 'severity']);

interface Forecast {
  readonly fs: FleetFilesystem;
  readonly space: Trend;
  readonly inodes: Trend;
  readonly samples: number;
  readonly alerts: readonly MixinAlert[];
}

const FORECAST_SCHEMA = {
  type: 'object',
  properties: {
    ...FILESYSTEM_FIELDS,
    sizeBytes: nullable('integer', 'Size in bytes; null when not read'),
    availBytes: nullable('integer', 'Bytes an unprivileged user may still write, now; null when not read'),
    bytesPerHour: nullable('integer', 'How fast available space falls, in bytes per hour (negative: it grows); null with too few samples'),
    hoursToFull: nullable('number', 'Hours until no space is available at that rate; null when not filling, or with too few samples'),
    predictedAvailBytes: nullable('integer', 'Available bytes predicted at the horizon; below zero it would be full before then. null with too few samples'),
    samples: { type: 'integer', minimum: 0, description: 'Samples of available space in the lookback that the fit used' },
    inodes: nullable('object', 'The same for inodes: files, filesFree, perHour, hoursToFull, predictedFree; null where the file system reports none'),
    alerts: {
      type: 'array',
      description: "node-mixin's file system alerts whose condition holds now; Prometheus fires one once it has held for its `for`",
      items: {
        type: 'object',
        properties: {
          alertname: { type: 'string', description: 'e.g. NodeFilesystemSpaceFillingUp' },
          severity: { type: 'string', enum: ['warning', 'critical'], description: 'Its severity label' },
          for: { type: 'string', description: 'How long the condition must hold before it fires, e.g. 1h' },
          resource: { type: 'string', enum: ['space', 'inodes'], description: 'What runs out' },
        },
        required: ['alertname', 'severity', 'for', 'resource'],
      },
    },
  },
  required: [
    'instance',
    'job',
    'mountpoint',
    'fstype',
    'device',
    'sizeBytes',
    'availBytes',
    'bytesPerHour',
    'hoursToFull',
    'predictedAvailBytes',
    'samples',
    'readonly',
    'deviceError',
    'inodes',
    'alerts',
  ],
} as const;

/** The value of each series by the file system it belongs to. */
function byFilesystem(samples: readonly Sample[]): Map<string, number | null> {
  return new Map(samples.map((sample) => [identity(sample.labels).key, sampleNumber(sample.value)]));
}

function alertsByFilesystem(samples: readonly Sample[]): Map<string, MixinAlert[]> {
  const alerts = new Map<string, MixinAlert[]>();
  for (const sample of samples) {
    const alert = alertOf(sample.labels);
    if (alert === undefined) continue;
    const { key } = identity(sample.labels, ALERT_LABELS);
    alerts.set(key, [...(alerts.get(key) ?? []), alert]);
  }
  return alerts;
}

/** The soonest either resource runs out, in hours; Infinity when neither is filling. */
const soonest = (f: Forecast): number => Math.min(f.space.hoursToFull ?? Infinity, f.inodes.hoursToFull ?? Infinity);

function order(forecasts: Forecast[]): Forecast[] {
  const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return forecasts.sort(
    (a, b) =>
      soonest(a) - soonest(b) ||
      b.alerts.length - a.alerts.length ||
      (b.space.perHour ?? -Infinity) - (a.space.perHour ?? -Infinity) ||
      text(a.fs.instance, b.fs.instance) ||
      text(a.fs.mountpoint, b.fs.mountpoint) ||
      text(a.fs.key, b.fs.key),
  );
}

const size = (bytes: number): string => humanSize(Math.round(Math.abs(bytes)));

function spaceWords(f: Forecast, lookback: string, horizon: string): string {
  const { fs, space } = f;
  if (fs.deviceError !== null) return `not answering: ${fs.deviceError}; nothing to forecast`;
  if (fs.availBytes === null || fs.sizeBytes === null) return 'no size reported; nothing to forecast';
  const now = `${size(fs.availBytes)} of ${size(fs.sizeBytes)} available`;
  if (space.perHour === null) return `${now}; too few samples (${f.samples}) in the last ${lookback} to forecast`;
  if (space.hoursToFull === null) return `${now}; not filling (${space.perHour === 0 ? 'steady' : `${size(space.perHour)} an hour freed`})`;
  const at = space.predicted! < 0 ? `full before +${horizon}` : `${size(space.predicted!)} available at +${horizon}`;
  return `${now}; filling at ${size(space.perHour)} an hour, full in ${showHours(space.hoursToFull)}; ${at}`;
}

function line(f: Forecast, lookback: string, horizon: string): string {
  const inodes = f.inodes.hoursToFull === null ? '' : `; inodes full in ${showHours(f.inodes.hoursToFull)}`;
  const alerts = f.alerts.length === 0 ? '' : `. Holding now: ${f.alerts.map((a) => `${a.alertname} ${a.severity} (fires after ${a.for})`).join(', ')}`;
  return `${fsName(f.fs)}: ${spaceWords(f, lookback, horizon)}${inodes}${f.fs.readonly ? ', read-only' : ''}${alerts}`;
}

function entry(f: Forecast): Record<string, unknown> {
  const { fs, space, inodes } = f;
  const read = fs.deviceError === null;
  return {
    ...filesystemFields(fs),
    sizeBytes: read ? fs.sizeBytes : null,
    availBytes: read ? fs.availBytes : null,
    bytesPerHour: space.perHour,
    hoursToFull: space.hoursToFull,
    predictedAvailBytes: space.predicted,
    samples: f.samples,
    inodes:
      fs.files === null || !read
        ? null
        : { files: fs.files, filesFree: fs.filesFree, perHour: inodes.perHour, hoursToFull: inodes.hoursToFull, predictedFree: inodes.predicted },
    alerts: f.alerts.map(({ alertname, severity, for: holdFor, resource }) => ({ alertname, severity, for: holdFor, resource })),
  };
}

/** A duration argument in milliseconds, or why it cannot be one. */
function durationArgument(args: Record<string, unknown>, name: string, fallback: string, max: number): number | string {
  const text = (args[name] as string | undefined) ?? fallback;
  const ms = durationMs(text);
  if (!(ms > 0)) return `${name} must be a Prometheus duration above zero, such as 30m, 6h or 1d12h, not ${JSON.stringify(text)}`;
  if (ms > max) return `${name} may be at most ${showDuration(max)}, not ${text}`;
  return ms;
}

export function diskFillForecastTool(fleet: Fleet): Tool {
  return {
    name: 'disk_fill_forecast',
    openWorld: true,
    title: 'When disks fill up',
    description:
      "Which of the fleet's file systems are filling and when they will be full, from Prometheus's history: for each, the rate available space " +
      'falls at over the lookback (a least-squares line, as deriv() fits it), the hours until it is full, the space predicted at the horizon, the same for inodes, ' +
      "and which of node-mixin's disk alerts (NodeFilesystemSpaceFillingUp, NodeFilesystemAlmostOutOfSpace and the inode ones) hold now. The soonest full come first.",
    inputSchema: {
      type: 'object',
      properties: {
        instance: filterSchema('instance', 'db-1:9100'),
        mountpoint: filterSchema('mountpoint', '/var'),
        lookback: {
          type: 'string',
          pattern: DURATION_PATTERN,
          description: `How much history to fit the line to, a Prometheus duration (default ${DEFAULT_LOOKBACK}), e.g. 1h, 6h, 2d`,
        },
        horizon: {
          type: 'string',
          pattern: DURATION_PATTERN,
          description: `How far ahead to predict available space (default ${DEFAULT_HORIZON}), e.g. 4h, 24h, 7d`,
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          description: `How many file systems to show at most (default ${DEFAULT_LIMIT}); an answer also stops at ${TEXT_BUDGET / 1024} KiB of text`,
        },
      },
      additionalProperties: false,
    },
    hints: {
      lookback: 'use a number and a unit such as 30m, 6h or 2d',
      horizon: 'use a number and a unit such as 4h, 24h or 7d',
    },
    outputSchema: {
      type: 'object',
      properties: {
        filesystems: { type: 'array', description: 'The file systems, the soonest full first', items: FORECAST_SCHEMA },
        total: { type: 'integer', minimum: 0, description: 'How many file systems match, shown or not' },
        lookback: { type: 'string', description: 'The lookback used' },
        horizon: { type: 'string', description: 'The horizon used' },
      },
      required: ['filesystems', 'total', 'lookback', 'horizon'],
    },

    async call(args, context) {
      const lookbackMs = durationArgument(args, 'lookback', DEFAULT_LOOKBACK, MAX_LOOKBACK_MS);
      const horizonMs = durationArgument(args, 'horizon', DEFAULT_HORIZON, MAX_HORIZON_MS);
      if (typeof lookbackMs === 'string') return { text: lookbackMs, isError: true };
      if (typeof horizonMs === 'string') return { text: horizonMs, isError: true };
      const filters = filterMatchers(args);
      const matchers = fleetMatchers(fleet, filters);
      const range = `[${duration(lookbackMs)}]`;
      const ahead = horizonMs / 1000;
      try {
        const s = matcherList(matchers);
        const answers = await fleet.client.queryAll(
          {
            series: familiesSelector(matchers),
            availDeriv: `deriv(node_filesystem_avail_bytes{${s}}${range})`,
            availPredicted: `predict_linear(node_filesystem_avail_bytes{${s}}${range}, ${ahead})`,
            samples: `count_over_time(node_filesystem_avail_bytes{${s}}${range})`,
            filesDeriv: `deriv(node_filesystem_files_free{${s}}${range})`,
            filesPredicted: `predict_linear(node_filesystem_files_free{${s}}${range}, ${ahead})`,
            alerts: mixinAlertsQuery(s),
          },
          context.signal,
        );
        const all = joinFilesystems(answers.series);
        if (all.length === 0) return await noSeries(fleet, filters, context.signal);
        const [availDeriv, availPredicted, samples, filesDeriv, filesPredicted] = [
          answers.availDeriv,
          answers.availPredicted,
          answers.samples,
          answers.filesDeriv,
          answers.filesPredicted,
        ].map(byFilesystem) as [
          Map<string, number | null>,
          Map<string, number | null>,
          Map<string, number | null>,
          Map<string, number | null>,
          Map<string, number | null>,
        ];
        const alerts = alertsByFilesystem(answers.alerts);
        const forecasts = all.map((fs): Forecast => {
          const count = samples.get(fs.key) ?? 0;
          return {
            fs,
            samples: count,
            space: trend(fs.availBytes, availDeriv.get(fs.key) ?? null, availPredicted.get(fs.key) ?? null, count),
            inodes: trend(fs.filesFree, filesDeriv.get(fs.key) ?? null, filesPredicted.get(fs.key) ?? null, count),
            alerts: alerts.get(fs.key) ?? [],
          };
        });
        // As the model wrote them (already checked): "24h" reads better back than "1d".
        const [lookback, horizon] = [(args.lookback as string | undefined) ?? DEFAULT_LOOKBACK, (args.horizon as string | undefined) ?? DEFAULT_HORIZON];
        return present(order(forecasts), (args.limit as number | undefined) ?? DEFAULT_LIMIT, lookback, horizon);
      } catch (error) {
        return fleetFailure(error);
      }
    },
  };
}

function present(forecasts: readonly Forecast[], limit: number, lookback: string, horizon: string): ToolResult {
  const shown = fitPage(forecasts, 0, limit, (f) => line(f, lookback, horizon), entry);
  const filling = forecasts.filter((f) => soonest(f) < Infinity).length;
  const withinHorizon = forecasts.filter((f) => f.space.predicted !== null && f.space.predicted < 0).length;
  const holding = forecasts.filter((f) => f.alerts.length > 0).length;
  const head =
    `Fitted to the last ${lookback}, predicted ${horizon} ahead: ${grouped(filling)} of ${counted(forecasts.length, 'file system')} filling, ` +
    `${grouped(withinHorizon)} full within ${horizon}; node-mixin alerts holding on ${grouped(holding)}.` +
    (shown.length < forecasts.length ? ` The ${grouped(shown.length)} soonest full shown.` : '');
  const rest = forecasts.length - shown.length;
  const tail = rest > 0 ? [`${grouped(rest)} more, none sooner: narrow with instance or mountpoint, or raise limit.`] : [];
  return {
    text: [head, ...shown.map((f) => line(f, lookback, horizon)), ...tail].join('\n'),
    structured: { filesystems: shown.map(entry), total: forecasts.length, lookback, horizon },
  };
}
