// /proc/self/mountinfo (proc(5)) read into MountEntry records.
import { answersFromMemory, hasOption, isPseudoType, isRemote } from './fsTypes.js';
import type { MountEntry } from './mountEntry.js';

/** major/minor as one number that Map lookups can use. */
export function deviceKey(major: number, minor: number): number {
  return major * 1048576 + minor;
}

/**
 * Undoes the octal escapes (\040 space, \011 tab, \012 newline, \134 backslash) of /proc/self/mountinfo.
 * @internal exported for the tests
 */
export function decodeMountField(field: string): string {
  return field.includes('\\') ? field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))) : field;
}

/**
 * Parses /proc/self/mountinfo (proc(5)). Malformed lines are skipped. Read
 * at every listing, so kept lean: a few microseconds a line, with thousands
 * of mounts as common as a handful.
 */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0 || fields.length < separator + 3) continue;
    const numbers = fields[2]!;
    const colon = numbers.indexOf(':');
    const major = colon < 0 ? NaN : Number(numbers.slice(0, colon));
    const minor = colon < 0 ? NaN : Number(numbers.slice(colon + 1));
    const fsType = decodeMountField(fields[separator + 1]!);
    const device = decodeMountField(fields[separator + 2]!);
    const options = fields[5]!;
    const superOptions = fields[separator + 3] ?? '';
    entries.push({
      mountPoint: decodeMountField(fields[4]!),
      device,
      fsType,
      readOnly: hasOption(options, 'ro') || hasOption(superOptions, 'ro'),
      pseudo: isPseudoType(fsType),
      deviceKey: deviceKey(major, minor),
      root: decodeMountField(fields[3]!),
      remote: isRemote(fsType, device),
      mountId: Number(fields[0]),
      parentId: Number(fields[1]),
      answersFromMemory: answersFromMemory(fsType, `${options},${superOptions}`),
    });
  }
  return entries;
}
