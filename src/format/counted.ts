// Counts as every text of diskprobe's own writes them (the tools', the
// views', the CLI's messages beside GNU's): digits grouped by thousands, and
// the noun in the number the count takes, "1 file", "2,006 files".

/** 2006 as "2,006". Not toLocaleString: its first call loads ICU's number formatting, about 30 ms of a server's first answer (npm run test:load). */
export function grouped(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * `count`, grouped, then `singular` for exactly 1 and `plural` for any other
 * count, 0 included: "0 files", "1 file", "1 more directory", "2,006 entries".
 */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${grouped(count)} ${count === 1 ? singular : plural}`;
}
