// `diskprobe explain [PATH]`: why df and du disagree on the file system
// holding PATH (src/explain/). A table a person reads at a glance, then
// what to do; or --json, explainUsage()'s answer with exact integers.
// Exit status 0 when every part was measured, 1 when something could not
// be seen (the answer is still printed) or the file system could not be
// probed. Runs in this process: every part that may block waits on a thread
// of the addon's own, with a timeout.
import { explainUsage } from '../../explain/explainUsage.js';
import { explanationText } from '../../explain/explanationText.js';
import type { ExplainProgress } from '../../explain/types.js';
import { humanSize } from '../../format/humanSize.js';
import type { CommandOutput } from '../commandOutput.js';
import { stringifyExact } from '../exactJson.js';
import type { ExplainCommandOptions } from './explainCommandLine.js';

/** Progress on a terminal's stderr, one line rewritten in place; nothing when stderr is not a terminal. */
function progressLine(output: CommandOutput): { show(progress: ExplainProgress): void; clear(): void } {
  if (output.stderr.isTTY !== true) return { show() {}, clear() {} };
  let shown = false;
  let last = 0;
  return {
    show(progress) {
      const now = performance.now();
      if (now - last < 200) return;
      last = now;
      shown = true;
      output.stderr.write(`\r\x1b[Kexplain: walking (${progress.part}): ${progress.entries.toLocaleString('en-US')} entries, ${humanSize(progress.allocated)}`);
    },
    clear() {
      if (shown) output.stderr.write('\r\x1b[K');
    },
  };
}

export async function runExplain(options: ExplainCommandOptions, output: CommandOutput): Promise<number> {
  const progress = progressLine(output);
  try {
    const result = await explainUsage(options.path, {
      bigint: true,
      stallTimeout: options.probeTimeout,
      ...(options.timeout !== undefined && { timeout: options.timeout }),
      onProgress: (step) => progress.show(step),
    });
    progress.clear();
    output.stdout.write(options.json ? `${stringifyExact(result)}\n` : explanationText(result));
    return result.complete ? 0 : 1;
  } catch (error) {
    progress.clear();
    output.stderr.write(`diskprobe: explain: ${(error as Error).message}\n`);
    return 1;
  }
}
