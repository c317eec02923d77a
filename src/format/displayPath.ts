// A path as messages show it: whole, unless it is too long to read, when its
// middle gives way to an ellipsis. A message about a megabyte-long path need
// not be a megabyte long; the start and the end are what identify it.

const MAX_SHOWN = 512;
const KEEP = 240;

export function displayPath(path: string): string {
  return path.length <= MAX_SHOWN ? path : `${path.slice(0, KEEP)}…(${path.length - 2 * KEEP} characters)…${path.slice(-KEEP)}`;
}
