// /proc/self/mountinfo (proc(5)) read into MountEntry records.
import { answersFromMemory, hasOption, isPseudoType, isRemote } from './fsTypes.js';
import type { MountEntry } from './mountEntry.js';

/** major/minor as one number that Map lookups can use. */
export function deviceKey(major: number, minor: number): number {
  return major * 1048576 + minor;
}

/**
 * Undoes the octal escapes (\040 space, \011 tab, \012 newline, \134 backslash) of /proc/self/mountinfo.
 * Exported for the tests, and for /proc/swaps (src/explain/kernelHeld.ts), which escapes names the same way.
 */
export function decodeMountField(field: string): string {
  return field.includes('\\') ? field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))) : field;
}

/** The number written in text[start, end), as Number() reads it; a run of decimal digits, nearly always, without making a string of it. */
function numberAt(text: string, start: number, end: number): number {
  if (end > start && end - start <= 15) {
    let value = 0;
    let at = start;
    for (; at < end; at++) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
    }
    if (at === end) return value;
  }
  return Number(text.slice(start, end));
}

const SPACE = ' ';
const DASH = 45;

/** Where the space-separated field of `text` that starts at `start` ends: at the next space, or at `end`. */
function fieldEnd(text: string, start: number, end: number): number {
  const space = text.indexOf(SPACE, start);
  return space < 0 || space > end ? end : space;
}

/** What a line says after its mount point: the same on many lines, where there are thousands of mounts. */
type MountDescription = Pick<MountEntry, 'device' | 'fsType' | 'readOnly' | 'pseudo' | 'remote' | 'answersFromMemory'>;

/**
 * The fields after the mount point: options, optional fields, "-" (the
 * first such field), type, source, super options. Null when the type or
 * the source is missing.
 */
function describe(rest: string): MountDescription | null {
  const end = rest.length;
  const optionsEnd = fieldEnd(rest, 0, end);
  if (optionsEnd === end) return null;
  let dash = optionsEnd + 1;
  let dashEnd = fieldEnd(rest, dash, end);
  while (!(dashEnd === dash + 1 && rest.charCodeAt(dash) === DASH) && dashEnd < end) {
    dash = dashEnd + 1;
    dashEnd = fieldEnd(rest, dash, end);
  }
  if (!(dashEnd === dash + 1 && rest.charCodeAt(dash) === DASH) || dashEnd === end) return null;
  const typeEnd = fieldEnd(rest, dashEnd + 1, end);
  if (typeEnd === end) return null;
  const deviceEnd = fieldEnd(rest, typeEnd + 1, end);
  const fsType = decodeMountField(rest.slice(dashEnd + 1, typeEnd));
  const device = decodeMountField(rest.slice(typeEnd + 1, deviceEnd));
  const options = rest.slice(0, optionsEnd);
  const superOptions = deviceEnd === end ? '' : rest.slice(deviceEnd + 1, fieldEnd(rest, deviceEnd + 1, end));
  return {
    device,
    fsType,
    readOnly: hasOption(options, 'ro') || hasOption(superOptions, 'ro'),
    pseudo: isPseudoType(fsType),
    remote: isRemote(fsType, device),
    answersFromMemory: answersFromMemory(fsType, options, superOptions),
  };
}

/**
 * Parses /proc/self/mountinfo (proc(5)). Malformed lines are skipped. Read
 * at every listing, so kept lean: thousands of mounts are as common as a
 * handful. The fields are found in the text itself, a string made only for
 * each field kept (not for every field of every line, as split makes them),
 * the numbers read in place, and what follows the mount point read once for
 * each different text: under a third of the instructions split took.
 * A line's fields are those `line.split(' ')` gives: mount ID, parent ID,
 * major:minor, root, mount point, options, optional fields, the first "-"
 * from the seventh field on, type, source, super options.
 */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  const descriptions = new Map<string, MountDescription | null>();
  const length = text.length;
  for (let next = 0; next <= length; ) {
    const lineStart = next;
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = length;
    next = lineEnd + 1;
    const idEnd = fieldEnd(text, lineStart, lineEnd);
    if (idEnd === lineEnd) continue;
    const parentEnd = fieldEnd(text, idEnd + 1, lineEnd);
    if (parentEnd === lineEnd) continue;
    const numbersEnd = fieldEnd(text, parentEnd + 1, lineEnd);
    if (numbersEnd === lineEnd) continue;
    const rootEnd = fieldEnd(text, numbersEnd + 1, lineEnd);
    if (rootEnd === lineEnd) continue;
    const pointEnd = fieldEnd(text, rootEnd + 1, lineEnd);
    if (pointEnd === lineEnd) continue;
    const rest = text.slice(pointEnd + 1, lineEnd);
    let described = descriptions.get(rest);
    if (described === undefined) {
      described = describe(rest);
      descriptions.set(rest, described);
    }
    if (described === null) continue;
    const colon = text.indexOf(':', parentEnd + 1);
    const hasColon = colon >= 0 && colon < numbersEnd;
    const major = hasColon ? numberAt(text, parentEnd + 1, colon) : NaN;
    const minor = hasColon ? numberAt(text, colon + 1, numbersEnd) : NaN;
    entries.push({
      mountPoint: decodeMountField(text.slice(rootEnd + 1, pointEnd)),
      device: described.device,
      fsType: described.fsType,
      readOnly: described.readOnly,
      pseudo: described.pseudo,
      deviceKey: deviceKey(major, minor),
      root: decodeMountField(text.slice(numbersEnd + 1, rootEnd)),
      remote: described.remote,
      mountId: numberAt(text, lineStart, idEnd),
      parentId: numberAt(text, idEnd + 1, parentEnd),
      answersFromMemory: described.answersFromMemory,
    });
  }
  return entries;
}
