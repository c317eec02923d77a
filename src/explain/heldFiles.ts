// Deleted files still held on one file system: the addon's scan of /proc
// (native/explain/open_files_linux.cc) on a thread of its own, waited on
// here with the stall rule and the deadline, then the kernel's own holders
// (loop devices, swap). What could not be read is said, never taken as none.
import { readFileSync } from 'node:fs';

import { abortError } from '../probe/errors.js';
import type { MountEntry } from '../probe/mountEntry.js';
import type { MountTable } from '../probe/mountTable.js';
import type { NativeOpenFilesReport } from '../probe/nativeBinding.js';
import { binding, fallbackDescription } from '../probe/runtime.js';
import type { CancelSignal } from '../probe/types.js';
import { kernelHeldFiles } from './kernelHeld.js';
import type { RawDeletedFile } from './measured.js';
import type { FileHolder, HeldBy, Unseen } from './types.js';
import { userNames } from './users.js';

export interface HeldFiles {
  /** null: not measured (unseen says why). */
  readonly files: RawDeletedFile[] | null;
  readonly unseen: Unseen[];
}

export interface Limits {
  /** performance.now() past which nothing more is waited for. */
  readonly deadline: number;
  readonly stallMs: number;
  readonly signal: CancelSignal | AbortSignal | undefined;
}

/** How often the wait looks at what the scan is on. */
const POLL_MS = 25;

const part = 'deletedOpen' as const;

function waitForScan(major: number, minor: number, limits: Limits): Promise<NativeOpenFilesReport | string> {
  const addon = binding!;
  return new Promise((resolve, reject) => {
    let settled = false;
    let busy = '';
    let busySince = performance.now();
    const end = (answer: NativeOpenFilesReport | string | Error): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      addon.openFilesRelease(id);
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const id = addon.openFilesStart(major, minor, () => {
      const report = addon.openFilesResult(id);
      if (report) end(report);
    });
    // The scan's own thread keeps nothing alive: this timer does, while it is waited for.
    const timer = setInterval(() => {
      const now = performance.now();
      const on = addon.openFilesBusy(id);
      if (on !== busy) {
        busy = on;
        busySince = now;
      }
      if (limits.signal?.aborted) end(abortError(limits.signal));
      else if (busy !== '' && now - busySince >= limits.stallMs) end(`${busy} has not answered after ${limits.stallMs} ms`);
      else if (now >= limits.deadline) end(`the scan of /proc was not done by the deadline${busy ? ` (waiting on ${busy})` : ''}`);
    }, POLL_MS);
  });
}

function heldBy(path: string, inode: bigint, holders: readonly FileHolder[]): HeldBy {
  // An O_TMPFILE file never had a name: the kernel shows its directory and "#<its inode>" (a file named "#12" is not one).
  if (path.endsWith(`/#${inode}`)) return 'tmpfile';
  return holders.every((holder) => holder.fd === null) ? 'mapped' : 'open';
}

/** Whether this process sees only a PID namespace of its own (a container): NSpid lists more than one id. */
function inChildPidNamespace(): boolean {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return line !== undefined && line.trim().split(/\s+/).length > 1;
  } catch {
    return false;
  }
}

function unseenOf(report: NativeOpenFilesReport, files: readonly RawDeletedFile[]): Unseen[] {
  const unseen: Unseen[] = [];
  const uid = process.geteuid?.() ?? 0;
  const others = report.unreadable.filter(([, owner]) => owner !== uid).length;
  const own = report.unreadable.length - others;
  if (others > 0) {
    unseen.push({ part, reason: `${others} ${others === 1 ? 'process' : 'processes'} of other users not readable: run as root or with CAP_SYS_PTRACE` });
  }
  if (own > 0)
    unseen.push({ part, reason: `${own} of this user's ${own === 1 ? 'process' : 'processes'} not readable (not dumpable, or another security policy)` });
  const unsized = files.filter((file) => !file.sized && file.heldBy !== 'loop' && file.heldBy !== 'swap').length;
  if (unsized > 0) {
    unseen.push({
      part,
      reason: `${unsized} deleted ${unsized === 1 ? 'file' : 'files'} held only by a memory mapping could not be sized: /proc/PID/map_files needs CAP_SYS_ADMIN`,
    });
  }
  const kernel = files.filter((file) => file.heldBy === 'loop' || file.heldBy === 'swap').length;
  if (kernel > 0) {
    unseen.push({
      part,
      reason: `${kernel} deleted ${kernel === 1 ? 'file' : 'files'} held by a loop device or swap: the size is known, not the bytes on disk`,
    });
  }
  if (report.mapsSkipped.length > 0) {
    const pids = report.mapsSkipped.slice(0, 5).join(', ');
    unseen.push({
      part,
      reason: `memory mappings not read of ${report.mapsSkipped.length} processes in uninterruptible sleep (pid ${pids}): a read could wait on them`,
    });
  }
  if (report.unknownMounts > 0) {
    unseen.push({
      part,
      reason: `${report.unknownMounts} deleted files open in a mount namespace whose mounts could not be read: not placed on a file system`,
    });
  }
  if (inChildPidNamespace())
    unseen.push({ part, reason: 'this process runs in a PID namespace of its own (a container?): processes outside it are not visible' });
  return unseen;
}

function shape(report: NativeOpenFilesReport): RawDeletedFile[] {
  const user = userNames();
  return report.files.map((file) => {
    const path = file.path.toString('utf8');
    const holders = file.holders.map(([pid, fd, uid, command]) => ({ pid, command, user: user(uid), uid, fd: fd < 0 ? null : fd }));
    return { path, allocated: file.allocated, size: file.size, inode: file.inode, sized: file.sized, heldBy: heldBy(path, file.inode, holders), holders };
  });
}

/** The deleted files held on the file system mounted at `target`. */
export async function heldFiles(table: MountTable, target: MountEntry, limits: Limits): Promise<HeldFiles> {
  if (process.platform !== 'linux') return { files: null, unseen: [{ part, reason: `needs Linux's /proc (not on ${process.platform})` }] };
  if (!binding) return { files: null, unseen: [{ part, reason: `needs the native addon, which did not load: ${fallbackDescription ?? 'unknown cause'}` }] };
  if (Number.isNaN(target.deviceKey)) return { files: null, unseen: [{ part, reason: 'the mount table gives no device for this file system' }] };
  const report = await waitForScan(Math.floor(target.deviceKey / 1048576), target.deviceKey % 1048576, limits);
  if (typeof report === 'string') return { files: null, unseen: [{ part, reason: report }] };
  if (report.error !== 0) return { files: null, unseen: [{ part, reason: `/proc could not be read (errno ${report.error})` }] };
  const files = [...shape(report), ...kernelHeldFiles(table, target)];
  return { files, unseen: unseenOf(report, files) };
}
