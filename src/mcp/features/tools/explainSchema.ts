// explain_disk_usage's outputSchema: explainUsage()'s answer (src/explain/types.ts),
// with its lists bounded (the largest 50, and `others` for the rest). A
// field that may be null is anyOf [X, null], the form every host maps
// (docs/mcp-server.md, disk_usage).
const BYTES = { type: 'integer', description: 'Bytes' } as const;

function orNull<S extends object>(schema: S, description: string) {
  return { anyOf: [schema, { type: 'null' }], description } as const;
}

const nullableBytes = (description = 'Bytes; null where not measured (see unseen)') => orNull({ type: 'integer' }, description);
const OTHERS = {
  type: 'object',
  description: 'Past the 50 listed: how many, and their bytes',
  properties: { count: { type: 'integer', minimum: 0 }, bytes: BYTES },
  required: ['count', 'bytes'],
} as const;

const HOLDER = {
  type: 'object',
  properties: {
    pid: { type: 'integer' },
    command: { type: 'string' },
    user: { type: 'string' },
    uid: { type: 'integer' },
    fd: orNull({ type: 'integer' }, 'The fd that holds it; null for a memory mapping'),
  },
  required: ['pid', 'command', 'user', 'uid', 'fd'],
} as const;

const DELETED_FILE = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The name it had' },
    bytes: nullableBytes('Bytes on disk (st_blocks × 512); null where it could not be sized'),
    apparent: nullableBytes('Bytes: st_size, or the device size (loop, swap); null where unknown'),
    inode: orNull({ type: 'integer' }, 'Its inode number; null where unknown (loop, swap)'),
    heldBy: { type: 'string', enum: ['open', 'mapped', 'tmpfile', 'loop', 'swap'] },
    holders: { type: 'array', items: HOLDER },
    device: { type: 'string' },
  },
  required: ['path', 'bytes', 'apparent', 'inode', 'heldBy', 'holders'],
} as const;

const HIDDEN_MOUNT = {
  type: 'object',
  properties: {
    mountPoint: { type: 'string', description: 'The mount that covers files of this file system' },
    bytes: nullableBytes(),
    files: orNull({ type: 'integer' }, 'Entries that are not directories, hidden there'),
    complete: { type: 'boolean' },
  },
  required: ['mountPoint', 'bytes', 'files', 'complete'],
} as const;

export const EXPLAIN_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    mountPoint: { type: 'string' },
    walkedFrom: { type: 'string', description: 'Where the file system was walked from (its root mount)' },
    fsType: { type: 'string' },
    blockSize: BYTES,
    used: { ...BYTES, description: "df's Used: (f_blocks − f_bfree) × f_frsize" },
    available: { ...BYTES, description: "df's Avail" },
    reserved: nullableBytes('The root reserve: counted as neither used nor available; null where the file system does not say'),
    reservedByFileSystem: nullableBytes('Kept by the file system itself (ext4: reserved_clusters): neither used nor available'),
    visible: nullableBytes('Bytes on disk of the files a walk sees (du -x); null where the walk failed'),
    walkComplete: { type: 'boolean', description: 'The walk listed every directory; false: call again while it goes on' },
    deletedOpen: orNull(
      { type: 'object', properties: { bytes: BYTES, files: { type: 'array', items: DELETED_FILE }, others: OTHERS }, required: ['bytes', 'files'] },
      'Deleted files still held, each inode once; null where not measured',
    ),
    hidden: orNull(
      { type: 'object', properties: { bytes: BYTES, mounts: { type: 'array', items: HIDDEN_MOUNT }, others: OTHERS }, required: ['bytes', 'mounts'] },
      'Files in directories that other mounts cover; null where not measured',
    ),
    unexplained: { ...BYTES, description: 'used − visible − deletedOpen − hidden (of what was measured); may be negative' },
    remainder: { type: 'array', items: { type: 'string' }, description: 'What is known to hide in the rest on this file system type' },
    unseen: {
      type: 'array',
      description: 'What could not be measured, or not wholly, and why',
      items: { type: 'object', properties: { part: { type: 'string' }, reason: { type: 'string' } }, required: ['part', 'reason'] },
    },
    complete: { type: 'boolean', description: 'Every part was measured in full' },
    advice: { type: 'array', items: { type: 'string' }, description: 'What to do, most bytes first' },
    elapsedMs: { type: 'integer', minimum: 0 },
  },
  required: [
    'path',
    'mountPoint',
    'fsType',
    'used',
    'available',
    'reserved',
    'reservedByFileSystem',
    'visible',
    'deletedOpen',
    'hidden',
    'unexplained',
    'unseen',
    'complete',
  ],
} as const;
