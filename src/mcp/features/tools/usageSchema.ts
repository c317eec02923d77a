// The structured form of one file system's usage, shared by disk_usage and
// list_mounts: exact integer bytes, as the probe reports them. A value that
// may be null is an anyOf of its type and null, never `type: [X, "null"]`:
// the same meaning, in the form every host maps (some turn tool schemas into
// a one-type dialect, and the Inspector's --strict warns of type arrays).
import type { DiskUsage } from '../../../index.js';

const count = (description: string) => ({ type: 'integer', minimum: 0, description });

export const USAGE_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The probed path, absolute' },
    mountPoint: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Where the file system holding the path is mounted' },
    fsType: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'File system type, e.g. ext4' },
    total: count('Size in bytes'),
    used: count('Used bytes (total - free)'),
    free: count('Free bytes, including blocks reserved for root'),
    available: count('Bytes an unprivileged user may still write'),
    usedPercent: { type: 'number', minimum: 0, maximum: 100, description: "100 * used / (used + available); rounded up it is df's Use%" },
    blockSize: count('Block size in bytes (f_frsize)'),
    inodes: {
      anyOf: [
        {
          type: 'object',
          properties: {
            total: count('Inodes'),
            used: count('Used inodes'),
            free: count('Free inodes'),
            available: count('Inodes an unprivileged user may use'),
            usedPercent: { type: 'number', minimum: 0, maximum: 100, description: 'Percent of inodes used' },
          },
          required: ['total', 'used', 'free', 'available', 'usedPercent'],
        },
        { type: 'null' },
      ],
      description: 'Inode counts as df -i reports them; null where the file system has none',
    },
  },
  required: ['path', 'mountPoint', 'fsType', 'total', 'used', 'free', 'available', 'usedPercent', 'blockSize', 'inodes'],
} as const;

/** A DiskUsage as plain data for structuredContent. */
export function usageData(usage: DiskUsage): Record<string, unknown> {
  const { path, mountPoint, fsType, total, used, free, available, usedPercent, blockSize, inodes } = usage;
  return { path, mountPoint, fsType, total, used, free, available, usedPercent, blockSize, inodes: inodes && { ...inodes } };
}
