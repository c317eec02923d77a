// The forecast maths: from Prometheus's least-squares fit of a free count
// over the lookback (deriv, predict_linear), the rate it falls at, the hours
// until it reaches zero, and the count predicted at the horizon. A straight
// line through the lookback is all it is: docs/fleet.md says what that can
// and cannot tell.

/**
 * Fewer samples than this in the lookback and the line says nothing: a file system just mounted, or an exporter just added.
 * @internal exported for the tests
 */
export const MIN_SAMPLES = 5;

export interface Trend {
  /** How fast the free count falls, per hour (bytes or inodes); negative when it grows. Null with too few samples. */
  readonly perHour: number | null;
  /** Hours until nothing is free at that rate; null when it is not falling, or with too few samples. */
  readonly hoursToFull: number | null;
  /** The free count predicted at the horizon; below zero, it would be full before then. Null with too few samples. */
  readonly predicted: number | null;
}

const NO_TREND: Trend = { perHour: null, hoursToFull: null, predicted: null };

/**
 * `free` now, `deriv` (per second, from deriv()), `predicted` (from
 * predict_linear()) and the number of samples the two were fitted to.
 */
export function trend(free: number | null, deriv: number | null, predicted: number | null, samples: number): Trend {
  if (deriv === null || samples < MIN_SAMPLES) return NO_TREND;
  const perHour = -deriv * 3600;
  return {
    perHour: Math.round(perHour) || 0, // never -0
    hoursToFull: free !== null && perHour > 0 ? Math.max(0, free) / perHour : null,
    predicted: predicted === null ? null : Math.round(predicted),
  };
}

/** Hours as a reader takes them in: "45 minutes", "3.4 hours", "2.5 days", "9 weeks". */
export function showHours(hours: number): string {
  if (hours < 59.5 / 60) {
    const minutes = Math.max(1, Math.round(hours * 60));
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  if (hours < 48) return `${hours < 10 ? hours.toFixed(1) : Math.round(hours)} hours`;
  const days = hours / 24;
  if (days < 14) return `${days < 10 ? days.toFixed(1) : Math.round(days)} days`;
  return `${Math.round(days / 7)} weeks`;
}
