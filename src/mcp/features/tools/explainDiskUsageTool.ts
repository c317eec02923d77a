// explain_disk_usage: why df and du disagree, for a model with no shell
// (src/explain/). The answer leads with the figure that matters, then the
// parts that sum to df's Used, what to do, and what could not be seen. The
// walk runs within the call's budget (--walk-budget): past it the answer
// is partial, says so first, and the walk goes on for the next call.
import { EXPLAIN_VIEW } from '../../../apps/appViews.js';
import { explainUsageWithin } from '../../../explain/explainUsage.js';
import { explanationText } from '../../../explain/explanationText.js';
import type { ExplainUsage } from '../../../explain/types.js';
import { counted } from '../../../format/counted.js';
import { humanSize } from '../../../format/humanSize.js';
import { diskUsage } from '../../../index.js';
import type { Tool, ToolContext, ToolResult } from '../../protocol/tool.js';
import { ABSOLUTE_PATH_PATTERN } from '../absolutePath.js';
import { EXPLAIN_OUTPUT_SCHEMA } from './explainSchema.js';
import { probeFailure } from './probeFailure.js';

/** Bytes of text an answer holds at most. */
const TEXT_BUDGET = 16 * 1024;
/** Deleted files and hidden mounts listed in structuredContent at most, the largest; the rest are summed. */
const LISTED = 50;

function withinBudget(text: string): string {
  if (Buffer.byteLength(text) <= TEXT_BUDGET) return text;
  const cut = Buffer.from(text)
    .subarray(0, TEXT_BUDGET - 100)
    .toString('utf8');
  return `${cut.slice(0, cut.lastIndexOf('\n'))}\n(cut here: the rest is in structuredContent)`;
}

/** The answer with its lists bounded: the largest LISTED of each, and what the others add up to. */
function bounded(result: ExplainUsage): Record<string, unknown> {
  const { deletedOpen, hidden } = result;
  const sum = (values: readonly (number | null)[]) => values.reduce<number>((total, value) => total + (value ?? 0), 0);
  return {
    ...result,
    deletedOpen: deletedOpen && {
      ...deletedOpen,
      files: deletedOpen.files.slice(0, LISTED),
      ...(deletedOpen.files.length > LISTED && {
        others: { count: deletedOpen.files.length - LISTED, bytes: sum(deletedOpen.files.slice(LISTED).map((file) => file.bytes)) },
      }),
    },
    hidden: hidden && {
      ...hidden,
      mounts: hidden.mounts.slice(0, LISTED),
      ...(hidden.mounts.length > LISTED && {
        others: { count: hidden.mounts.length - LISTED, bytes: sum(hidden.mounts.slice(LISTED).map((mount) => mount.bytes)) },
      }),
    },
  };
}

async function call(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const path = args.path as string;
  const { roots } = context;
  if (!roots.allowsByName(path)) return { text: roots.refusal(path), isError: true };
  let result: ExplainUsage;
  try {
    // It walks the whole file system: under --root, only one that lies wholly inside the roots.
    if (roots.restricted) {
      const usage = await diskUsage(path, { timeout: context.probeTimeout, signal: context.signal });
      if (!roots.allows(path) || usage.mountPoint === null || !roots.allows(usage.mountPoint)) {
        return {
          text: `EACCES: explain_disk_usage walks the whole file system holding ${path}, from ${usage.mountPoint ?? 'its mount point'}, which is outside the allowed roots (${roots.roots.join(', ')})`,
          isError: true,
        };
      }
    }
    result = (await explainUsageWithin(path, context.walkBudgetMs, {
      stallTimeout: context.probeTimeout,
      signal: context.signal,
      onProgress: ({ part, entries, allocated }) =>
        context.progress(
          entries,
          undefined,
          `${part === 'hidden' ? 'beneath mounts: ' : ''}walked ${counted(entries, 'entry', 'entries')}, ${humanSize(allocated)} so far`,
        ),
    })) as ExplainUsage;
  } catch (error) {
    if ((error as Error | null)?.name === 'AbortError') throw error;
    return roots.allowsFailed(path, error) ? probeFailure(path, error, context.probeTimeout) : { text: roots.refusal(path), isError: true };
  }
  const walking = result.visible !== null && !result.walkComplete && result.unseen.some((unseen) => unseen.reason.includes('not listed yet'));
  const lead = walking ? `Partial: the walk of ${result.walkedFrom} is still going; call again for the whole answer. So far:\n` : '';
  return { text: withinBudget(`${lead}${explanationText(result)}`.trimEnd()), structured: bounded(result) };
}

export const explainDiskUsageTool: Tool = {
  name: 'explain_disk_usage',
  title: 'Why df and du disagree',
  view: EXPLAIN_VIEW,
  reportsProgress: true,
  description:
    'Accounts for every byte df counts as used on the file system holding a path: the files a walk sees (du -x), deleted files that processes still hold open ' +
    '(with the processes, and how to free them), files hidden under mount points, and what is left unexplained; beside it, the root reserve. ' +
    "Use it when df says a disk is fuller than directory_usage can explain. What it could not see (other users' processes, hidden files without privilege) " +
    'is named, never counted as zero. It walks the whole file system: past the call budget the answer says so and the walk goes on; call again for the rest.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Absolute path on the file system to explain, for example / or /var', pattern: ABSOLUTE_PATH_PATTERN },
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: EXPLAIN_OUTPUT_SCHEMA,
  hints: { path: 'use an absolute path, such as "/" or "/var"' },
  call,
};
