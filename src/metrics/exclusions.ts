// Which mounts the metrics leave out by default: node_exporter's choices,
// kept apart from the collector so the command line can name them without
// loading the probe.

/**
 * node_exporter's default exclusions (collector/filesystem_common.go,
 * 1.10 and later: erofs joined the types). Debian's build excludes all of
 * /run, /mnt and /media besides; pass --mount-points-exclude to match it.
 */
export const DEFAULT_MOUNT_POINTS_EXCLUDE = '^/(dev|proc|run/credentials/.+|sys|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)';
export const DEFAULT_FS_TYPES_EXCLUDE =
  '^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl|hugetlbfs|iso9660|mqueue|nsfs|overlay|proc|procfs|pstore|rpc_pipefs|securityfs|selinuxfs|squashfs|erofs|sysfs|tracefs)$';
