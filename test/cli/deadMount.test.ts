// A dead mount (the FUSE `hang` fixture: statfs never answers) must never
// hang `diskprobe df`: it prints the rest, marks the mount "not responding",
// exits 1, and the process ends. Each test uses a fresh dead mount so the
// command is the first to call into it: that call is then held by the
// daemon, the hardest case for a process that wants to exit.
import { spawn } from 'node:child_process';

import { afterEach, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse } from '../helpers/system.js';
import { cliPath, runCliUntil } from './cliProcess.js';

const TIMEOUT = 300;
// How long the command may take to exit at most: it should need about
// TIMEOUT; this only bounds a failure, it measures nothing.
const EXIT_DEADLINE_MS = 10_000;

/** The last field of each table row: the mount point (these have no spaces). */
const mountedOn = (table: string) =>
  table
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.split(' ').at(-1));

describe.skipIf(announceSkip('diskprobe df with a dead mount', fuseSkipReason)).each(['native', 'statfs'])(
  'diskprobe df with a dead mount (%s backend)',
  (backend) => {
    let dead: FuseMount | undefined;
    // Killing the daemon frees the call a command left stuck, so it can exit.
    afterEach(() => {
      dead?.cleanup();
      dead = undefined;
    });
    const run = (args: string[]) => runCliUntil(args, { DISKPROBE_BACKEND: backend }, EXIT_DEADLINE_MS);

    it('shows it as "not responding", still prints the other paths, exits 1, and ends', async () => {
      dead = await mountFuse('hang');
      const result = await run(['df', '--timeout', String(TIMEOUT), dead.dir, '/']);
      expect(mountedOn(result.stdout)).toEqual([dead.dir, '/']);
      expect(result.stdout.split('\n')[1]).toMatch(/^fusefix +fuse\.fusefix not responding +\S/);
      expect(result.stderr).toBe(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
      expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    });

    it('ends a pipeline that reads its stdout and stderr together: the probing child, left stuck, holds neither', async () => {
      dead = await mountFuse('hang');
      // `| cat` ends only when every writer of the pipe has closed it, the stuck child included.
      const piped = spawn('sh', ['-c', `"$0" "$1" df --timeout ${TIMEOUT} "$2" / 2>&1 | cat`, process.execPath, cliPath, dead.dir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      piped.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const status = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), EXIT_DEADLINE_MS);
        piped.on('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
      expect(status, 'the pipeline must end, not wait for the child stuck on the dead mount').toBe(0);
      expect(text).toContain(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
      expect(text).toMatch(/ \/\n/);
    });

    it('leaves it out of --json and says so on stderr', async () => {
      dead = await mountFuse('hang');
      const result = await run(['df', '--json', '--timeout', String(TIMEOUT), dead.dir, '/']);
      expect((JSON.parse(result.stdout) as Array<{ mountPoint: string }>).map((usage) => usage.mountPoint)).toEqual(['/']);
      expect(result.stderr).toBe(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
      expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    });

    it('lists it among all mounts as "not responding"', async () => {
      dead = await mountFuse('hang');
      const result = await run(['df', '--timeout', String(TIMEOUT)]);
      const row = result.stdout.split('\n').find((line) => line.endsWith(` ${dead!.dir}`));
      expect(row).toMatch(/ not responding /);
      expect(mountedOn(result.stdout)).toContain('/');
      expect(result.stderr).toContain(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
      expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    });
  },
);
