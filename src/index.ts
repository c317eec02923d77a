// diskprobe's public surface: disk usage, fast, exact, and never hanging.

export { explainUsage } from './explain/explainUsage.js';
export type { DeletedFile, ExplainOptions, ExplainProgress, ExplainUsage, FileHolder, HeldBy, HiddenMount, Unseen } from './explain/types.js';
export type { MountEvent } from './probe/deadMountGuard.js';
export { listMounts, mountsUsage } from './probe/mountProbes.js';
export { diskUsage, diskUsageSync } from './probe/probe.js';
export { backend, onMountEvent, stuckMounts } from './probe/runtime.js';
export type {
  Backend,
  CancelSignal,
  DiskUsage,
  DiskUsageOptions,
  DiskUsageSyncOptions,
  InodeUsage,
  ListMountsOptions,
  Mount,
  MountsUsageOptions,
  MountUsage,
  ProbeError,
} from './probe/types.js';
export { directoryUsage } from './scan/directoryUsage.js';
export type {
  DirectoryEntry,
  DirectoryHoldingMost,
  DirectoryTotals,
  DirectoryUsage,
  DirectoryUsageOptions,
  LargestFile,
  WalkError,
  WalkProgress,
} from './scan/types.js';
