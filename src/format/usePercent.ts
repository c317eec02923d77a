// The one percentage a reader sees for a file system's fullness: df's Use%,
// the exact share rounded up to a whole percent (src/probe/percent.ts
// computes the share as df does). disk_usage and list_mounts both say it, so
// a model never sees 0.1% in one answer and 1% in the other for the same
// mount (issue 17); the exact share stays in their structuredContent.

/** `usedPercent` (percent, 0–100, unrounded) as df's Use% prints it: "27%", "1%" for any share above 0 and at most 1. */
export function usePercent(usedPercent: number): string {
  return `${Math.ceil(usedPercent)}%`;
}
