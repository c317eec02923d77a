// The disk_usage text the two bench-only servers answer with, from a
// statfs result: the shape of diskprobe's summary, so the three servers
// send lines of about the same length and the work differs only in the
// server around it. Sizes use f_bsize, which is what fs.statfs reports.

const GIB = 2 ** 30;

/** "/: 27.0% used, 12.3 GiB used, 40.1 GiB available, 52.4 GiB total" */
export function usageText(path, stats) {
  const total = stats.blocks * stats.bsize;
  const used = (stats.blocks - stats.bfree) * stats.bsize;
  const available = stats.bavail * stats.bsize;
  const usedPercent = used + available === 0 ? 0 : (100 * used) / (used + available);
  return (
    `${path}: ${usedPercent.toFixed(1)}% used, ${(used / GIB).toFixed(1)} GiB used, ` +
    `${(available / GIB).toFixed(1)} GiB available, ${(total / GIB).toFixed(1)} GiB total`
  );
}
