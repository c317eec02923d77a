// list_mounts: every mounted file system with its usage, as df shows them.
// A dead mount is reported as not responding once --probe-timeout passes
// (at once if it is already known to be stuck), never waited on for longer.
import { humanSize } from '../../format/humanSize.js';
import { type DiskUsage, diskUsage, listMounts } from '../../index.js';
import type { Tool } from './tool.js';
import { probeFailure } from './probeFailure.js';
import { USAGE_SCHEMA, usageData } from './usageSchema.js';

export const listMountsTool: Tool = {
  name: 'list_mounts',
  title: 'Mounted file systems',
  description:
    'Every mounted file system with its usage, as df shows them: mount point, device, type, percentage used, used, available and total space. ' +
    'A file system that does not answer is reported as not responding.',
  inputSchema: {
    type: 'object',
    properties: {
      all: { type: 'boolean', description: 'true to include pseudo file systems (proc, cgroup…), duplicates and empty ones, as df -a does. Default false.' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      mounts: {
        type: 'array',
        description: 'One entry per mounted file system',
        items: {
          type: 'object',
          properties: {
            mountPoint: { type: 'string', description: 'Where it is mounted' },
            device: { type: 'string', description: 'What is mounted' },
            fsType: { type: 'string', description: 'File system type' },
            readOnly: { type: 'boolean', description: 'Mounted read-only' },
            usage: { ...USAGE_SCHEMA, type: ['object', 'null'], description: 'Its usage; null when it could not be read' },
            error: { type: ['string', 'null'], description: 'Why the usage could not be read, e.g. not responding' },
          },
          required: ['mountPoint', 'device', 'fsType', 'readOnly', 'usage', 'error'],
        },
      },
    },
    required: ['mounts'],
  },

  async call(args, context) {
    const { probeTimeout: timeout, signal } = context;
    const mounts = (await listMounts({ all: args.all === true, timeout, signal })).filter((mount) => context.roots.showsMount(mount.mountPoint));
    let done = 0;
    context.progress(0, mounts.length);
    const outcomes = await Promise.all(
      mounts.map((mount) =>
        diskUsage(mount.mountPoint, { timeout, signal }).then(
          (usage): DiskUsage | Error => usage,
          (error: Error) => error,
        ).finally(() => context.progress(++done, mounts.length, `probed ${mount.mountPoint}`)),
      ),
    );
    if (signal.aborted) throw signal.reason;
    const lines: string[] = [];
    const entries = mounts.map((mount, index) => {
      const outcome = outcomes[index]!;
      const { mountPoint, device, fsType, readOnly } = mount;
      if (outcome instanceof Error) {
        const failure = probeFailure(mountPoint, outcome, timeout).text;
        lines.push(`${mountPoint} (${fsType}, ${device}): ${failure}`);
        return { mountPoint, device, fsType, readOnly, usage: null, error: failure };
      }
      lines.push(
        `${mountPoint} (${fsType}, ${device}): ${Math.ceil(outcome.usedPercent)}% used, ` +
          `${humanSize(outcome.used)} used, ${humanSize(outcome.available)} available, ${humanSize(outcome.total)} total`,
      );
      return { mountPoint, device, fsType, readOnly, usage: usageData(outcome), error: null };
    });
    return { text: lines.join('\n') || 'no file systems', structured: { mounts: entries } };
  },
};
