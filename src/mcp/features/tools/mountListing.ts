// The mounts with their usage, as list_mounts and the disk://mounts
// resource show them: one line of text and one structured entry each.
import { humanSize } from '../../../format/humanSize.js';
import { mountLabel } from '../../../format/mountLabel.js';
import { usePercent } from '../../../format/usePercent.js';
import type { DfMount } from '../../../probe/mountProbes.js';
import { probeFailure } from './probeFailure.js';
import { USAGE_SCHEMA, usageData } from './usageSchema.js';

export interface ListedMount {
  /** What the model reads: mount point, type and device (where it is not the type again), then the usage or why there is none. */
  readonly line: string;
  /** The same as data (ENTRY_SCHEMA). */
  readonly entry: {
    readonly mountPoint: string;
    readonly device: string;
    readonly fsType: string;
    readonly readOnly: boolean;
    readonly usage: Record<string, unknown> | null;
    readonly error: string | null;
  };
  /** Percent used, unrounded; -1 when the usage could not be read. */
  readonly usedPercent: number;
  readonly available: number;
  readonly total: number;
}

export const ENTRY_SCHEMA = {
  type: 'object',
  properties: {
    mountPoint: { type: 'string', description: 'Where it is mounted' },
    device: { type: 'string', description: 'What is mounted' },
    fsType: { type: 'string', description: 'File system type' },
    readOnly: { type: 'boolean', description: 'Mounted read-only' },
    usage: { anyOf: [USAGE_SCHEMA, { type: 'null' }], description: 'Its usage; null when it could not be read' },
    error: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why the usage could not be read, e.g. not responding' },
  },
  required: ['mountPoint', 'device', 'fsType', 'readOnly', 'usage', 'error'],
} as const;

export function listedMount({ mount, usage, error }: DfMount<number>, timeout: number): ListedMount {
  const { mountPoint, device, fsType, readOnly } = mount;
  if (usage === undefined) {
    const failure = probeFailure(mountPoint, error, timeout).text;
    return {
      line: `${mountPoint} ${mountLabel(fsType, device)}: ${failure}`,
      entry: { mountPoint, device, fsType, readOnly, usage: null, error: failure },
      usedPercent: -1,
      available: 0,
      total: 0,
    };
  }
  return {
    line:
      `${mountPoint} ${mountLabel(fsType, device)}: ${usePercent(usage.usedPercent)} used, ` +
      `${humanSize(usage.used)} used, ${humanSize(usage.available)} available, ${humanSize(usage.total)} total`,
    entry: { mountPoint, device, fsType, readOnly, usage: usageData(usage), error: null },
    usedPercent: usage.usedPercent,
    available: usage.available,
    total: usage.total,
  };
}
