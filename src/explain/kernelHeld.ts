// Deleted files the kernel itself holds, with no process to name: the
// backing file of a loop device (/sys/block/loop*/loop/backing_file) and a
// swap file (/proc/swaps). Neither sysfs nor /proc blocks on a file system.
// Both are placed on a file system by the name they had (the longest mount
// point above it in this namespace). Their size is the device's; their
// bytes on disk cannot be read (no fd in /proc to stat through, and the
// name is gone), so they are listed with `bytes` null and named in unseen.
import { readdirSync, readFileSync } from 'node:fs';

import type { MountEntry } from '../probe/mountEntry.js';
import { decodeMountField } from '../probe/mountInfo.js';
import type { MountTable } from '../probe/mountTable.js';
import type { RawDeletedFile } from './measured.js';

const DELETED = ' (deleted)';

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether `path`, by its name, lies on a mount of the file system `target` is a mount of. */
function onFileSystem(table: MountTable, path: string, target: MountEntry): boolean {
  return table.lexical(path)?.deviceKey === target.deviceKey;
}

function loopBacked(table: MountTable, target: MountEntry): RawDeletedFile[] {
  const found: RawDeletedFile[] = [];
  let devices: string[];
  try {
    devices = readdirSync('/sys/block').filter((name) => name.startsWith('loop'));
  } catch {
    return found;
  }
  for (const device of devices) {
    const backing = readText(`/sys/block/${device}/loop/backing_file`)?.replace(/\n$/, '');
    if (backing === undefined || !backing.endsWith(DELETED)) continue;
    const path = backing.slice(0, -DELETED.length);
    if (!onFileSystem(table, path, target)) continue;
    const sectors = BigInt(readText(`/sys/block/${device}/size`)?.trim() || '0');
    const offset = BigInt(readText(`/sys/block/${device}/loop/offset`)?.trim() || '0');
    const size = sectors * 512n + offset;
    found.push({ path, allocated: 0n, size, inode: null, sized: false, heldBy: 'loop', holders: [], device: `/dev/${device}` });
  }
  return found;
}

function swapFiles(table: MountTable, target: MountEntry): RawDeletedFile[] {
  const found: RawDeletedFile[] = [];
  const lines = readText('/proc/swaps')?.split('\n').slice(1) ?? [];
  for (const line of lines) {
    // Filename Type Size Used Priority; a deleted name ends "\040(deleted)".
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5 || fields[1] !== 'file') continue;
    // /proc/swaps escapes a name's spaces and the like as \040, as mountinfo does.
    const name = decodeMountField(fields[0]!);
    if (!name.endsWith(DELETED)) continue;
    const path = name.slice(0, -DELETED.length);
    if (!onFileSystem(table, path, target)) continue;
    const size = BigInt(fields[2]!) * 1024n;
    found.push({ path, allocated: 0n, size, inode: null, sized: false, heldBy: 'swap', holders: [], device: 'swap' });
  }
  return found;
}

/** The loop devices' and swap's deleted files on the file system of `target`. */
export function kernelHeldFiles(table: MountTable, target: MountEntry): RawDeletedFile[] {
  if (process.platform !== 'linux') return [];
  return [...loopBacked(table, target), ...swapFiles(table, target)];
}
