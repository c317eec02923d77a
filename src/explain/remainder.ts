// What is known to hide in the bytes that no walk, no process and no mount
// explains, by file system type, and the tool that measures each.

const EXT4: readonly string[] = [
  'delayed allocation being written out, and files being freed in the background after their last close (orphan inodes)',
  'extent tree and extended attribute blocks of files; the journal and inode tables are not in Used (ext4 subtracts them from Size): `dumpe2fs -h`',
];

const BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  ext2: EXT4,
  ext3: EXT4,
  ext4: EXT4,
  xfs: [
    'metadata: the log, allocation group headers, inode chunks and btrees (`xfs_info`, `xfs_db -r -c "freesp -s"`)',
    'speculative preallocation past the end of files being written (freed on close, or set with allocsize=)',
    'shared extents of reflinked copies: du counts a shared extent once per file, df once (`xfs_spaceman`)',
  ],
  btrfs: [
    'metadata and system chunks, and data kept by snapshots (`btrfs filesystem usage`, `btrfs filesystem du -s`)',
    'compression and reflinks, where du and df legitimately disagree (`compsize`)',
  ],
  zfs: ['snapshots, reservations and compression (`zfs list -o space`)'],
  tmpfs: ['pages of files being written or truncated as it was measured; shared memory and memfd live on internal mounts, not here'],
  overlay: ['the upper directory holds the writes: explain the file system that holds it'],
  nfs: ["the server's snapshots and files written by other clients (ask the server: `df` there)"],
  nfs4: ["the server's snapshots and files written by other clients (ask the server: `df` there)"],
  cifs: ["the server's snapshots and files written by other clients"],
};

/** What may fill the unexplained part of a `fsType` file system. */
export function remainderOf(fsType: string): readonly string[] {
  return [...(BY_TYPE[fsType] ?? ['metadata of the file system itself']), 'files created, grown or deleted while it was measured'];
}
