// The Prometheus exposition formats, written by hand: a few gauge families
// need no client library (prom-client costs 45-80 ms and 12 MB at start-up).
//   text 0.0.4:        https://prometheus.io/docs/instrumenting/exposition_formats/
//   OpenMetrics 1.0:   https://github.com/OpenObservability/OpenMetrics/blob/main/specification/OpenMetrics.md
// Families come out sorted by name and samples by their label values, as
// node_exporter writes them; label names within a sample in the order given.

/** One sample: its label values (in the family's label order) and its value. */
export interface Sample {
  readonly labels: readonly string[];
  readonly value: number | bigint;
}

export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge';
  readonly labelNames: readonly string[];
  readonly samples: readonly Sample[];
}

export type Format = 'text' | 'openmetrics';

export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/**
 * A label value, escaped as both formats escape them: backslash, double quote, line feed.
 * @internal exported for the tests
 */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (char) => (char === '\n' ? '\\n' : `\\${char}`));
}

/** HELP text: 0.0.4 escapes backslash and line feed; OpenMetrics the double quote too. */
function escapeHelp(text: string, format: Format): string {
  return text.replace(format === 'text' ? /[\\\n]/g : /[\\"\n]/g, (char) => (char === '\n' ? '\\n' : `\\${char}`));
}

/** A value: integers exactly (bigints above 2^53 too), others as JavaScript's shortest round-trip form. */
function formatValue(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

const compareLabels = (a: Sample, b: Sample): number => {
  for (let i = 0; i < a.labels.length; i++) {
    const x = a.labels[i]!;
    const y = b.labels[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

/** The families as one exposition in `format`; OpenMetrics ends with `# EOF`. Families with no samples are left out. */
export function render(families: readonly Family[], format: Format): string {
  const out: string[] = [];
  for (const family of [...families].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (family.samples.length === 0) continue;
    out.push(`# HELP ${family.name} ${escapeHelp(family.help, format)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of [...family.samples].sort(compareLabels)) {
      const labels = family.labelNames.map((name, i) => `${name}="${escapeLabelValue(sample.labels[i]!)}"`).join(',');
      out.push(`${family.name}${labels === '' ? '' : `{${labels}}`} ${formatValue(sample.value)}`);
    }
  }
  if (format === 'openmetrics') out.push('# EOF');
  return `${out.join('\n')}\n`;
}

/**
 * The format an Accept header asks for: OpenMetrics 1.0 when it lists
 * application/openmetrics-text (of version 1.0.0, or none named) with a
 * weight above 0, as Prometheus sends it; else text 0.0.4.
 */
export function negotiate(accept: string | undefined): Format {
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((item) => item.trim().toLowerCase());
    if (type !== 'application/openmetrics-text') continue;
    const version = params.find((param) => param.startsWith('version='))?.slice(8);
    const weight = params.find((param) => param.startsWith('q='));
    if ((version === undefined || version === '1.0.0') && (weight === undefined || Number(weight.slice(2)) > 0)) return 'openmetrics';
  }
  return 'text';
}
