// The diskprobe command, loaded by its entry (diskprobe.ts) once SIGTERM
// and SIGINT are handled: reads the command line and hands off to the
// command. Exit statuses: 0 success, 1 a probe failed, 2 a usage error
// (1 for df's and du's, as GNU df and du).
// The status goes to process.exitCode, so piped output is flushed before
// the process ends; servers alone end by process.exit, once their output is
// flushed (exitServer in stopSignals.ts says why).

import { type Command, parseCommandLine } from './commandLine.js';
import { helpText } from './helpText.js';
import { packageVersion } from './packageVersion.js';
import { exitServer, releaseStopSignals } from './stopSignals.js';
import { UsageError } from './usageError.js';

/**
 * A reader that went away (`diskprobe df | head -1`) ends the command
 * quietly, as SIGPIPE ends df; any other failure to write (a full disk) is
 * one line on stderr, as df says "write error". Status 1 either way.
 */
function watchStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') process.stderr.write(`diskprobe: write error: ${error.message}\n`);
    process.exit(1);
  });
}

/** Whether `command` runs until it is stopped, and so answers SIGTERM and SIGINT by finishing its work and exiting 0. */
function isServer(command: Command): boolean {
  return command.kind === 'serve' || (command.kind === 'metrics' && command.options.listen !== undefined);
}

async function run(command: Command): Promise<number> {
  if (!isServer(command)) releaseStopSignals();
  // The server handles its own stdout (a host that goes away is no error there).
  if (command.kind !== 'serve') watchStdout();
  const output = { stdout: process.stdout, stderr: process.stderr };
  switch (command.kind) {
    case 'help':
      process.stdout.write(helpText(command.topic));
      return 0;
    case 'version':
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    case 'serve': {
      const { serve } = await import('./serve/serve.js');
      return exitServer(await serve(command.options));
    }
    case 'metrics': {
      const { listen } = command.options;
      if (listen !== undefined) {
        const { serveMetrics } = await import('./metrics/metrics.js');
        return exitServer(await serveMetrics({ ...command.options, listen }));
      }
      // Printed once, as df is: here if nothing can block, else in a child (isolated.ts).
      const { metricsOnceOptions, printMetricsHere } = await import('./metrics/metricsOnce.js');
      const options = metricsOnceOptions(command.options);
      const status = await printMetricsHere(options, output);
      if (status !== undefined) return status;
      const { runIsolated } = await import('./isolated.js');
      return runIsolated({ command: 'metrics', options }, output);
    }
    case 'df': {
      // Here, when every probe can be answered on this thread, where none
      // can block; otherwise in a child process this one can leave behind
      // (see isolated.ts). Loaded only now: --help and --version load no addon.
      const { runDfHere } = await import('./df/df.js');
      const status = await runDfHere(command.options, output);
      if (status !== undefined) return status;
      const { runIsolated } = await import('./isolated.js');
      return runIsolated({ command: 'df', options: command.options }, output);
    }
    case 'explain': {
      const { runExplain } = await import('./explain/explain.js');
      return runExplain(command.options, output);
    }
    case 'du': {
      // As df: here when no mount under the operands may hang, else in the worker.
      for (const warning of command.warnings) process.stderr.write(`diskprobe: ${warning}\n`);
      // --timeout counts from this process's start, whichever process walks.
      const options = { ...command.options, startedAt: performance.timeOrigin };
      const { runDuHere } = await import('./du/du.js');
      const status = await runDuHere(options, output);
      if (status !== undefined) return status;
      const { runIsolated } = await import('./isolated.js');
      return runIsolated({ command: 'du', options }, output);
    }
  }
}

async function main(args: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommandLine(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    releaseStopSignals();
    process.stderr.write(error.report());
    return error.status;
  }
  return run(command);
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  // Not a failed probe (those are reported by the command) but the probe
  // refusing to start, e.g. a bad DISKPROBE_BACKEND, or a bug.
  process.stderr.write(`diskprobe: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
