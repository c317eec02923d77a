// `diskprobe metrics` without --listen: the exposition printed once, for
// cron and node_exporter's textfile collector. Like `diskprobe df`, it
// probes on its own thread when no probe can block, and otherwise in a
// child process it can leave behind (isolated.ts): a dead mount is printed
// as "mountpoint timeout" and the command exits on time (issue 17).
import { render } from '../../metrics/exposition.js';
import { type CollectOptions, collectFilesystems } from '../../metrics/filesystemMetrics.js';
import type { CommandOutput } from '../commandOutput.js';
import { packageVersion } from '../packageVersion.js';
import type { MetricsOptions } from './metricsCommandLine.js';

/** What the one-shot needs of MetricsOptions, as JSON can carry it to the worker: the regexes as their sources. */
export interface MetricsOnceOptions {
  /** Milliseconds the collection may take. */
  readonly timeout: number;
  readonly prefix: string;
  readonly mountPointsExclude: string;
  readonly fsTypesExclude: string;
}

export function metricsOnceOptions(options: MetricsOptions): MetricsOnceOptions {
  const { timeout, prefix, mountPointsExclude, fsTypesExclude } = options;
  return { timeout, prefix, mountPointsExclude: mountPointsExclude.source, fsTypesExclude: fsTypesExclude.source };
}

function collectOptions(options: MetricsOnceOptions, inlineOnly: boolean): CollectOptions {
  return {
    timeoutMs: options.timeout,
    prefix: options.prefix,
    // Checked by the command line already ('u', as it was compiled there).
    mountPointsExclude: new RegExp(options.mountPointsExclude, 'u'),
    fsTypesExclude: new RegExp(options.fsTypesExclude, 'u'),
    version: packageVersion(),
    inlineOnly,
  };
}

/** Prints the exposition; resolves to the exit status (0: a mount that failed is in the output, as device_error). */
export async function printMetrics(options: MetricsOnceOptions, output: CommandOutput): Promise<number> {
  const families = await collectFilesystems({ ...collectOptions(options, false), inlineOnly: false });
  output.stdout.write(render(families, 'text'));
  return 0;
}

/** As printMetrics, if every mount can be probed on this thread; else undefined, having printed nothing. */
export async function printMetricsHere(options: MetricsOnceOptions, output: CommandOutput): Promise<number | undefined> {
  const families = await collectFilesystems(collectOptions(options, true));
  if (families === undefined) return undefined;
  output.stdout.write(render(families, 'text'));
  return 0;
}
