// lsof, the reference for deleted files still held (rule 19): the files
// lsof lists open on the same file system with a link count of 0 (what
// `lsof +L1` selects), and its DEL entries (deleted files mapped), beside
// what explainUsage's deletedOpen says. One run, without +L1: with -a +L1,
// lsof leaves out the DEL entries, whose link count it cannot know.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import { has } from '../helpers/system.js';

const LSOF = existsSync('/usr/bin/lsof') ? '/usr/bin/lsof' : 'lsof';

export const lsofSkipReason: string | undefined =
  existsSync('/usr/bin/lsof') || has('lsof') ? undefined : 'lsof is missing: it is the oracle for deleted files still held';

/** One file lsof lists: fd is a number as text ("3"), or "DEL"/"mem" for a mapping. */
interface LsofFile {
  readonly pid: number;
  readonly fd: string;
  readonly links: number | undefined;
  readonly inode: number | undefined;
  /** Bytes: st_size; absent for a mapping. */
  readonly size: number | undefined;
  readonly name: string;
}

/**
 * The files open or mapped on the file system mounted at `mountPoint` (-F:
 * one field a line, p starting a process and f a file, k the link count;
 * -n -P: no lookups; -w: no warnings).
 */
function lsofFiles(mountPoint: string): LsofFile[] {
  const ran = spawnSync(LSOF, ['-nPw', '-F', 'pfkisn', mountPoint], { encoding: 'utf8', timeout: 20_000 });
  // lsof exits 1 when it finds nothing, as when it fails: only its stderr tells them apart.
  if (ran.error || (ran.status !== 0 && ran.stderr.trim() !== '')) throw new Error(`lsof failed (${ran.error?.message ?? ran.status}): ${ran.stderr}`);
  const files: LsofFile[] = [];
  let pid = 0;
  let file: Record<string, string> | undefined;
  const flush = () => {
    if (file) {
      const number = (key: string) => (file![key] === undefined ? undefined : Number(file![key]));
      files.push({ pid, fd: file.f!, links: number('k'), inode: number('i'), size: number('s'), name: file.n ?? '' });
    }
    file = undefined;
  };
  for (const line of ran.stdout.split('\n')) {
    const [field, value] = [line[0], line.slice(1)];
    if (field === 'p') {
      flush();
      pid = Number(value);
    } else if (field === 'f') {
      flush();
      file = { f: value };
    } else if (file && field !== undefined) {
      file[field] = value;
    }
  }
  flush();
  return files;
}

/** What lsof lists as deleted: by an fd, those with a link count of 0 (+L1); by a mapping alone, DEL. */
export function lsofDeleted(mountPoint: string): { byFd: LsofFile[]; mapped: LsofFile[] } {
  const files = lsofFiles(mountPoint);
  return { byFd: files.filter((file) => /^\d+$/.test(file.fd) && file.links === 0), mapped: files.filter((file) => file.fd === 'DEL') };
}
