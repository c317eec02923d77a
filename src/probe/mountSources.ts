// Where each platform's mount table comes from.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { isPseudoType, isRemote } from './fsTypes.js';
import type { MountEntry } from './mountEntry.js';
import { parseMountInfo } from './mountInfo.js';
import { MountTable } from './mountTable.js';
import type { NativeBinding } from './nativeBinding.js';

/** Reads the mount table: mountinfo on Linux, the addon's list elsewhere, and a best effort without it. */
export function readMountTable(binding: NativeBinding | undefined): MountTable {
  if (process.platform === 'linux') {
    try {
      return new MountTable(parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')));
    } catch {
      return new MountTable([]); // no /proc: paths still probe, without mount names
    }
  }
  const windows = process.platform === 'win32';
  let listed: Array<Omit<MountEntry, 'pseudo' | 'deviceKey' | 'root' | 'mountId' | 'parentId' | 'answersFromMemory'>> | null = null;
  try {
    listed = binding?.listMounts() ?? (windows ? windowsDrives() : darwinMounts());
  } catch {
    listed = [];
  }
  const entries = (listed ?? []).map((mount) => ({
    ...mount,
    pseudo: isPseudoType(mount.fsType),
    deviceKey: NaN,
    root: windows ? '\\' : '/',
    mountId: NaN,
    parentId: NaN,
    answersFromMemory: false,
  }));
  return windows ? new MountTable(entries, '\\', true) : new MountTable(entries);
}

/** Without the addon on Windows: the drive letters that exist. */
function windowsDrives(): Array<Omit<MountEntry, 'pseudo' | 'deviceKey' | 'root' | 'mountId' | 'parentId' | 'answersFromMemory'>> {
  const drives = [];
  for (let code = 65; code <= 90; code++) {
    const root = `${String.fromCharCode(code)}:\\`;
    if (existsSync(root)) drives.push({ mountPoint: root, device: root, fsType: '', readOnly: false, remote: false });
  }
  return drives;
}

/** Without the addon on macOS: mount(8)'s "device on /path (type, options)" lines. */
function darwinMounts(): Array<Omit<MountEntry, 'pseudo' | 'deviceKey' | 'root' | 'mountId' | 'parentId' | 'answersFromMemory'>> {
  // Loaded here, the one place it is needed, rather than at every start-up.
  const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const output = execFileSync('/sbin/mount', { encoding: 'utf8', timeout: 5000 });
  const mounts = [];
  for (const line of output.split('\n')) {
    const match = /^(.*) on (.*) \(([^,)]+)(.*)\)$/.exec(line);
    if (!match) continue;
    const [, device = '', mountPoint = '', fsType = '', options = ''] = match;
    mounts.push({ mountPoint, device, fsType, readOnly: options.includes('read-only'), remote: isRemote(fsType, device) });
  }
  return mounts;
}
