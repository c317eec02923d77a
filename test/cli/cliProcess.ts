// Runs the built CLI (dist/bin/diskprobe.js) and GNU df as child processes, and
// reads their tables, for the end-to-end tests.
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { projectRoot } from '../helpers/system.js';

export const cliPath = `${projectRoot}dist/bin/diskprobe.js`;

export interface Finished {
  /** Exit status; null if the process had not exited by the deadline. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** diskprobe with `args`, to completion. For commands that touch no dead mount. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Finished {
  const result = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * diskprobe with `args`, waiting at most `deadlineMs` for it to exit: a
 * process with a thread stuck on a dead mount may never exit, and cannot be
 * killed, so the output is collected as it comes and the status is null.
 */
export function runCliUntil(args: readonly string[], env: NodeJS.ProcessEnv, deadlineMs: number): Promise<Finished> {
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      resolve({ status: null, stdout, stderr });
    }, deadlineMs);
    child.on('exit', (status) => {
      clearTimeout(timer);
      // 'exit' can come before the last of the pipes is read.
      setImmediate(() => resolve({ status, stdout, stderr }));
    });
  });
}

const otherTestsMounts = join(tmpdir(), 'diskprobe-');

/**
 * stderr without the lines about the mounts other test files make under the
 * temp dir meanwhile: `diskprobe df` of every mount reports one that another
 * test's cleanup has killed and not yet unmounted, and that is not the
 * subject here.
 */
export function ownStderr(stderr: string): string {
  return stderr
    .split(/(?<=\n)/)
    .filter((line) => !line.includes(otherTestsMounts))
    .join('');
}

/** GNU df's output, in the C locale so the decimal point and headers are df's defaults. */
export function gnuDf(args: readonly string[]): string {
  const result = spawnSync('df', args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (result.status !== 0) throw new Error(`df ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** A df-style table's body, each line split into its 7 fields (the mount point may hold spaces). */
export function tableRows(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => {
      const fields = line.trim().split(/\s+/);
      return [...fields.slice(0, 6), fields.slice(6).join(' ')];
    });
}

/** A comparable key for test values, bigints included. */
function key(value: unknown): string {
  return JSON.stringify(value, (_, member: unknown) => (typeof member === 'bigint' ? `${member}n` : member));
}

/**
 * Runs `gnu` and `ours` until a round where `gnu` says the same before and
 * after `ours` (the file system held still), and returns that round: exact
 * comparisons on mounts other processes may be writing to.
 */
export function whileStill<T>(gnu: () => T, ours: () => T, rounds = 5): { gnu: T; ours: T } {
  let last: { gnu: T; ours: T } | undefined;
  for (let round = 0; round < rounds; round++) {
    const before = gnu();
    last = { ours: ours(), gnu: gnu() };
    if (key(before) === key(last.gnu)) break;
  }
  return last!;
}

/**
 * `diskprobe ARGS 2>&1 | cat`, with `env` added: a pipeline ends only when
 * every writer of its pipe has closed it, so it proves that no child the
 * command leaves behind (one stuck on a dead mount) holds stdout or stderr.
 * Resolves with cat's output and the pipeline's status, or null if it had
 * not ended within `deadlineMs`.
 */
export function runPipedThroughCat(args: readonly string[], env: NodeJS.ProcessEnv, deadlineMs: number): Promise<{ status: number | null; text: string }> {
  const piped = spawn('sh', ['-c', '"$@" 2>&1 | cat', 'sh', process.execPath, cliPath, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  let text = '';
  piped.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ status: null, text }), deadlineMs);
    piped.on('exit', (code) => {
      clearTimeout(timer);
      // 'exit' can come before the last of the pipe is read.
      setImmediate(() => resolve({ status: code, text }));
    });
  });
}
