// list_mounts: every mounted file system with its usage, as df shows them.
// A dead mount is reported as not responding once --probe-timeout passes
// (at once if it is already known to be stuck), never waited on for longer.
import { humanSize } from '../../format/humanSize.js';
import { dfMounts } from '../../probe/probe.js';
import { probeFailure } from './probeFailure.js';
import type { Tool } from './tool.js';
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
    const shown = (mountPoint: string): boolean => context.roots.showsMount(mountPoint);
    // As each probe settles (none before: progress 0 tells a client nothing it does not know).
    const onProgress = (done: number, total: number, mountPoint: string): void => context.progress(done, total, `probed ${mountPoint}`);
    // Each mount probed once: for df's set, the probe that found it not empty is the one shown.
    const listed = await dfMounts({ all: args.all === true, timeout, signal, include: shown, onProgress });
    if (signal.aborted) throw signal.reason;
    const lines: string[] = [];
    const entries = listed.map(({ mount, usage: outcome, error }) => {
      const { mountPoint, device, fsType, readOnly } = mount;
      if (outcome === undefined) {
        const failure = probeFailure(mountPoint, error, timeout).text;
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
