// disk_usage: how full is the file system that holds a path.
import { humanSize } from '../../../format/humanSize.js';
import { usePercent } from '../../../format/usePercent.js';
import { diskUsage } from '../../../index.js';
import { keptDirectoryUsage } from '../../../scan/directoryUsage.js';
import type { Tool } from '../../protocol/tool.js';
import { ABSOLUTE_PATH_PATTERN } from '../absolutePath.js';
import { dfGapNote } from './dfGap.js';
import { probeFailure } from './probeFailure.js';
import { USAGE_SCHEMA, usageData } from './usageSchema.js';

export const diskUsageTool: Tool = {
  name: 'disk_usage',
  title: 'Disk usage of a path',
  description:
    'How full the file system holding a path is: its mount point and type, the percentage used, and used, available and total space. ' +
    'Takes an absolute path to a mount point, directory or file. Use list_mounts to see every file system at once.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Absolute path of a mount point, directory or file, for example / or /data', pattern: ABSOLUTE_PATH_PATTERN },
      unit: {
        type: 'string',
        enum: ['percent', 'mib', 'mb'],
        description:
          "percent: only the percentage used, rounded up as df's Use% (e.g. 27%); " +
          'mib: only the space available, in whole MiB of 1,048,576 bytes, as df -m counts (e.g. 63794 MiB free); ' +
          'mb: the same in whole MB of 1,000,000 bytes (e.g. 66893 MB free). Omit for the full summary.',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: USAGE_SCHEMA,
  hints: { path: 'use an absolute path, such as "/" or "/data"' },

  async call(args, context) {
    const path = args.path as string;
    const { roots } = context;
    try {
      const usage = await diskUsage(path, { timeout: context.probeTimeout, signal: context.signal });
      if (!roots.allows(path)) return { text: roots.refusal(path), isError: true };
      let text: string;
      // Whole units, rounded down: never more free space than there is.
      if (args.unit === 'percent') text = usePercent(usage.usedPercent);
      else if (args.unit === 'mib') text = `${Math.floor(usage.available / 2 ** 20)} MiB free`;
      else if (args.unit === 'mb') text = `${Math.floor(usage.available / 1e6)} MB free`;
      else {
        text =
          `${usage.mountPoint ?? path} (${usage.fsType ?? 'unknown type'}): ${usePercent(usage.usedPercent)} used, ` +
          `${humanSize(usage.used)} used, ${humanSize(usage.available)} available, ${humanSize(usage.total)} total. ` +
          'directory_usage shows what fills it.';
        // A walk of the whole file system kept from before: if its files fall well short of Used, say where to look.
        const walked = usage.mountPoint === null ? undefined : keptDirectoryUsage(usage.mountPoint);
        const gap = walked?.complete ? dfGapNote(usage.used, walked.allocated, usage.mountPoint!) : undefined;
        if (gap !== undefined) text += ` ${gap}`;
      }
      return { text, structured: usageData(usage) };
    } catch (error) {
      // Refused the same way whether it exists or not.
      return roots.allowsFailed(path, error) ? probeFailure(path, error, context.probeTimeout) : { text: roots.refusal(path), isError: true };
    }
  },
};
