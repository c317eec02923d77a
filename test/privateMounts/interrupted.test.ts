// The promise of test/privateMountsPool.ts and reExecInPrivateMounts (issue 27),
// kept by real runs: two vitest runs of holdsMounts.fixture.ts and two runs of
// the script holdsMounts.mjs, all at once, each mounting a tmpfs, a loop ext4
// and a dead FUSE mount with a process stuck on it. While they run, no mount
// of theirs is in this process's mount namespace (the caller's), nor in the
// process that started them (vitest, or the script's first run), nor in
// another run's. Then one of each is stopped as Ctrl-C stops it (SIGINT to
// its whole process group), the other by SIGKILL to its starter alone, which
// can clean nothing up: each run's test process, FUSE daemon and stuck process
// must end, its loop device must be detached (its mount, and its namespace,
// are gone), and this namespace's mount table must be as it was, line for line.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killedWithParent, privateMountsSkipReason } from '../helpers/privateMounts.mjs';
import { announceSkip, fuseSkipReason, projectRoot, tempDir } from '../helpers/system.js';

const skipReason = fuseSkipReason ?? privateMountsSkipReason();

interface Report {
  readonly mounts: readonly string[];
  readonly image: string;
  readonly dirs: readonly string[];
  readonly pids: Readonly<Record<string, number>>;
}

interface Run {
  readonly label: string;
  /** vitest, or the script's first run: what a terminal's Ctrl-C or a kill reaches first. */
  readonly starter: ChildProcess;
  readonly report: Report;
  /** Each reported process's start time (/proc/PID/stat), so that a reused pid is not taken for it. */
  readonly started: ReadonlyMap<number, string>;
  readonly exited: Promise<void>;
  output(): string;
}

const unescapeOctal = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

function mountinfo(pid: number | 'self'): string[] {
  return readFileSync(`/proc/${pid}/mountinfo`, 'utf8').split('\n').filter(Boolean);
}

function mountPoints(pid: number | 'self'): Set<string> {
  return new Set(mountinfo(pid).map((line) => unescapeOctal(line.split(' ')[4]!)));
}

function startTime(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The backing files of the attached loop devices. */
function loopBackingFiles(): string[] {
  return readdirSync('/sys/block')
    .filter((name) => name.startsWith('loop'))
    .map((name) => join('/sys/block', name, 'loop/backing_file'))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8').trim());
}

/** Starts `argv` with node, and resolves once it has mounted everything (its report is written). */
async function startRun(label: string, argv: readonly string[]): Promise<Run> {
  const reportFile = join(tempDir(), 'report.json');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  // Its own process group, as a run in a terminal has; and SIGKILLed if this process dies first.
  const [command, ...args] = killedWithParent([process.execPath, ...argv]);
  const starter = spawn(command!, args, {
    cwd: projectRoot,
    env: { ...env, DISKPROBE_REPORT: reportFile },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  starter.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  starter.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((done) => starter.once('exit', () => done()));
  let ended = false;
  void exited.then(() => (ended = true));
  for (const deadline = Date.now() + 45_000; Date.now() < deadline; await new Promise((wait) => setTimeout(wait, 50))) {
    if (!existsSync(reportFile)) {
      if (ended) throw new Error(`${label} ended before it mounted anything:\n${output}`);
      continue;
    }
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report & { cannot?: string };
    if (report.cannot !== undefined) throw new Error(`${label} could not mount, though this file could: ${report.cannot}`);
    const started = new Map(Object.values(report.pids).map((pid) => [pid, startTime(pid)!]));
    return { label, starter, report, started, exited, output: () => output };
  }
  starter.kill('SIGKILL');
  throw new Error(`${label} mounted nothing within 45 s:\n${output}`);
}

/** Which of the run's processes are still there, and whether its loop device is still attached. */
function leftOf(run: Run): string[] {
  const left = Object.entries(run.report.pids)
    .filter(([, pid]) => startTime(pid) !== undefined && startTime(pid) === run.started.get(pid))
    .map(([name, pid]) => `${name} (pid ${pid})`);
  if (loopBackingFiles().includes(run.report.image)) left.push(`the loop device of ${run.report.image}`);
  return left;
}

async function waitUntilGone(run: Run, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = leftOf(run);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

const vitestRun = [join(projectRoot, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/privateMounts/holdsMounts.config.ts'];
const scriptRun = [join(projectRoot, 'test/privateMounts/holdsMounts.mjs')];

describe.skipIf(announceSkip('private mount namespaces of interrupted runs', skipReason))('runs in private mount namespaces', () => {
  const callersTableBefore = mountinfo('self');
  let runs: Run[] = [];

  beforeAll(async () => {
    runs = await Promise.all([
      startRun('a vitest run stopped with Ctrl-C', vitestRun),
      startRun('a vitest run whose vitest is SIGKILLed', vitestRun),
      startRun('a script stopped with Ctrl-C', scriptRun),
      startRun('a script whose first run is SIGKILLed', scriptRun),
    ]);
  }, 90_000);

  afterAll(() => {
    for (const run of runs) {
      try {
        process.kill(-run.starter.pid!, 'SIGKILL');
      } catch {
        // ended already
      }
    }
  });

  it('mount where they run, and nowhere else: not in the caller, the process that started them, or another run', () => {
    const caller = mountPoints('self');
    const among = (dirs: readonly string[], table: Set<string>) => dirs.filter((dir) => table.has(dir));
    for (const run of runs) {
      const { mounts, pids } = run.report;
      expect(leftOf(run), `${run.label}: its processes, the stuck one too, and its loop device`).toHaveLength(Object.keys(pids).length + 1);
      expect(among(mounts, mountPoints(pids.testProcess!)), `${run.label}: where it mounted`).toEqual(mounts);
      expect(among(mounts, caller), `${run.label}: seen by the caller`).toEqual([]);
      expect(among(mounts, mountPoints(run.starter.pid!)), `${run.label}: seen by its starter`).toEqual([]);
      for (const other of runs.filter((other) => other !== run)) {
        expect(among(other.report.mounts, mountPoints(pids.testProcess!)), `${run.label}: sees those of ${other.label}`).toEqual([]);
      }
    }
  });

  it('leave nothing behind when stopped as Ctrl-C stops them, or when their starter is SIGKILLed', async () => {
    const [vitestCtrlC, vitestKilled, scriptCtrlC, scriptKilled] = runs as [Run, Run, Run, Run];
    for (const run of [vitestCtrlC, scriptCtrlC]) process.kill(-run.starter.pid!, 'SIGINT');
    for (const run of [vitestKilled, scriptKilled]) run.starter.kill('SIGKILL');
    await Promise.all(runs.map((run) => run.exited));
    const left = await Promise.all(runs.map((run) => waitUntilGone(run, 15_000)));
    for (const [at, run] of runs.entries()) expect(left[at], `left by ${run.label}; its output:\n${run.output()}`).toEqual([]);
    expect(mountinfo('self')).toEqual(callersTableBefore);
    // Nothing is mounted on them anywhere now: the runs could not remove them.
    for (const run of runs) for (const dir of run.report.dirs) rmSync(dir, { recursive: true, force: true });
  }, 40_000);
});
