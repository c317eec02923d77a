// A dead mount (the FUSE `hang` fixture: statfs never answers) must never
// hang `diskprobe df`: it prints the rest, marks the mount "not responding",
// exits 1, and the process ends. Each test uses a fresh dead mount so the
// command is the first to call into it: that call is then held by the
// daemon, the hardest case for a process that wants to exit.

import { afterEach, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse } from '../helpers/system.js';
import { runCliUntil, runPipedThroughCat } from './cliProcess.js';

const TIMEOUT = 300;
// How long the command may take to exit at most: it should need about
// TIMEOUT; this only bounds a failure, it measures nothing.
const EXIT_DEADLINE_MS = 10_000;

/** The last field of each table row: the mount point (these have no spaces). */
interface JsonEntry {
  readonly path: string;
  readonly mountPoint: string | null;
  readonly error: { code: string; message: string } | null;
}

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
      const { status, text } = await runPipedThroughCat(['df', '--timeout', String(TIMEOUT), dead.dir, '/'], {}, EXIT_DEADLINE_MS);
      expect(status, 'the pipeline must end, not wait for the child stuck on the dead mount').toBe(0);
      expect(text).toContain(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
      expect(text).toMatch(/ \/\n/);
    });

    it('gives it an entry with error ETIMEDOUT in --json, beside the others, and says so on stderr', async () => {
      dead = await mountFuse('hang');
      const result = await run(['df', '--json', '--timeout', String(TIMEOUT), dead.dir, '/']);
      const entries = JSON.parse(result.stdout) as JsonEntry[];
      expect(entries.map((entry) => entry.path)).toEqual([dead.dir, '/']);
      expect(entries[0]).toMatchObject({
        mountPoint: dead.dir,
        device: 'fusefix',
        fsType: 'fuse.fusefix',
        readOnly: false,
        total: null,
        inodes: null,
        error: { code: 'ETIMEDOUT', message: `not responding after ${TIMEOUT} ms` },
      });
      expect(entries[1]).toMatchObject({ mountPoint: '/', error: null });
      expect(result.stderr).toBe(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
      expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    });

    it('gives one entry, with its error, for the dead mount alone in --json', async () => {
      dead = await mountFuse('hang');
      const result = await run(['df', '--json', '--timeout', String(TIMEOUT), dead.dir]);
      const entries = JSON.parse(result.stdout) as JsonEntry[];
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ path: dead.dir, mountPoint: dead.dir, error: { code: 'ETIMEDOUT' } });
      expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    });

    it('lists every mount in --json, the dead one with error ETIMEDOUT', async () => {
      dead = await mountFuse('hang');
      const result = await run(['df', '--json', '--timeout', String(TIMEOUT)]);
      const entries = JSON.parse(result.stdout) as JsonEntry[];
      const table = await run(['df', '--timeout', String(TIMEOUT)]);
      // The same mounts as the table, in the same order...
      const rows = mountedOn(table.stdout);
      expect(entries.flatMap((entry) => (entry.mountPoint !== null && rows.includes(entry.mountPoint) ? [entry.mountPoint] : []))).toEqual(rows);
      // ...and those the table has no row for, as df has none for a mount it cannot read at all (a
      // FUSE mount whose daemon died, say): each with its error, the one the table printed on stderr.
      for (const entry of entries.filter((each) => !rows.includes(each.mountPoint ?? ''))) {
        expect(entry.error, entry.path).not.toBeNull();
        expect(table.stderr).toContain(`diskprobe: ${entry.mountPoint}: ${entry.error!.message}\n`);
      }
      expect(entries.filter((entry) => entry.mountPoint === dead!.dir)).toEqual([
        expect.objectContaining({ device: 'fusefix', total: null, error: { code: 'ETIMEDOUT', message: `not responding after ${TIMEOUT} ms` } }),
      ]);
      expect(entries.find((entry) => entry.mountPoint === '/')).toMatchObject({ error: null });
      expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    });

    it.each([[['-a']], [['-i']], [['-T', '--total']], [['-BK']], [['-P']], [['--output=target,itotal,size,file,source']], [['-t', 'fuse.fusefix', '-l']]])(
      'shows it as "not responding" with %j too, within the timeout, and ends',
      async (flags) => {
        dead = await mountFuse('hang');
        for (const paths of [[dead.dir, '/'], []]) {
          const result = await run(['df', '--timeout', String(TIMEOUT), ...flags, ...paths]);
          const row = result.stdout.split('\n').find((line) => line.includes(dead!.dir));
          expect(row, `${flags.join(' ')} ${paths.join(' ')}`).toMatch(/ not responding /);
          expect(result.stderr).toContain(`diskprobe: ${dead.dir}: not responding after ${TIMEOUT} ms\n`);
          expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
        }
      },
    );

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
