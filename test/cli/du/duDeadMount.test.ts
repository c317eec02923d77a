// A dead mount inside the tree (the FUSE fixture's `dead` mode: after INIT,
// getattr, lookup and readdir never answer, so even the stat of its mount
// point blocks) must never hang `diskprobe du`: it prints what it found,
// names the mount as unfinished, exits 1, and the process ends, within
// --timeout and a little more, or 5 s after the walk stopped making
// progress. This process never touches the mount; GNU du is not run on it
// (it would hang).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse, tempDir } from '../../helpers/system.js';
import { runCliUntil, runPipedThroughCat } from '../cliProcess.js';

const TIMEOUT = 1000;
/** The walk's 150 ms to see its threads come back, printing, exiting (--timeout counts from the start): what may come on top. */
const SLACK_MS = 1200;
/** Bounds a failure; measures nothing. */
const EXIT_DEADLINE_MS = 15_000;

/** A tree with files and a directory of its own, and the dead mount `dead-<random>` in it. */
const trees: string[] = [];

async function treeWithDeadMount(): Promise<{ tree: string; dead: FuseMount }> {
  const tree = tempDir('diskprobe-du-dead-');
  trees.push(tree);
  mkdirSync(join(tree, 'alive'));
  writeFileSync(join(tree, 'alive/file'), 'x'.repeat(50_000));
  writeFileSync(join(tree, 'top'), 'y'.repeat(10_000));
  // mountFuse makes its directory under the temp dir: this tree, for once.
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tree;
  try {
    return { tree, dead: await mountFuse('dead') };
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

async function timed(args: string[], env: NodeJS.ProcessEnv = {}) {
  const started = performance.now();
  const result = await runCliUntil(['du', ...args], env, EXIT_DEADLINE_MS);
  return { ...result, ms: performance.now() - started };
}

describe.skipIf(announceSkip('diskprobe du with a dead mount', fuseSkipReason))('diskprobe du with a dead mount in the tree', () => {
  let dead: FuseMount | undefined;
  // Killing the daemon frees the walk thread the worker left stuck, so it can exit; then the tree can go.
  afterEach(() => {
    dead?.cleanup();
    dead = undefined;
    for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
  });

  it.each([['native'], ['statfs']])('prints the rest at --timeout, names the mount, exits 1, on time (%s backend)', async (backend) => {
    const made = await treeWithDeadMount();
    dead = made.dead;
    const result = await timed(['--timeout', String(TIMEOUT), made.tree], { DISKPROBE_BACKEND: backend });
    expect(result.status, 'the process must exit, not wait for the dead mount').toBe(1);
    expect(result.ms).toBeLessThan(TIMEOUT + SLACK_MS);
    const lines = result.stdout.trimEnd().split('\n');
    // What GNU du says of the part that answers.
    expect(lines).toContain(spawnSync('du', [join(made.tree, 'alive')], { encoding: 'utf8' }).stdout.trimEnd());
    expect(lines.at(-1)).toMatch(new RegExp(`^\\d+\\t${made.tree}$`));
    // Its own stat never returned: nothing is known of it, so it has no line, as du has none for what it cannot stat.
    expect(result.stderr).toBe(`diskprobe: cannot access '${dead.dir}': not finished within the --timeout of ${TIMEOUT} ms\n`);
    expect(result.stdout).not.toContain(dead.dir);
  });

  it('stops by itself when the walk makes no progress for 5 s, naming the mount as not responding', async () => {
    const made = await treeWithDeadMount();
    dead = made.dead;
    const result = await timed(['-s', made.tree]);
    expect(result.status).toBe(1);
    expect(result.ms).toBeLessThan(5000 + SLACK_MS);
    expect(result.stdout).toMatch(new RegExp(`^\\d+\\t${made.tree}\\n$`));
    expect(result.stderr).toBe(`diskprobe: cannot access '${dead.dir}': not responding after 5000 ms\n`);
  });

  it('skips the mount without touching it once a walk found it dead: a second operand does not wait again', async () => {
    const made = await treeWithDeadMount();
    dead = made.dead;
    const result = await timed(['-s', made.tree, made.tree]);
    expect(result.status).toBe(1);
    expect(result.ms).toBeLessThan(5000 + SLACK_MS);
    expect(result.stdout).toMatch(new RegExp(`^(\\d+)\\t${made.tree}\\n\\1\\t${made.tree}\\n$`));
    expect(result.stderr).toBe(
      `diskprobe: cannot access '${dead.dir}': not responding after 5000 ms\n` +
        `diskprobe: cannot access '${dead.dir}': not responding (a dead mount, skipped)\n`,
    );
  });

  it('gives the mount as unfinished in --json, the rest counted', async () => {
    const made = await treeWithDeadMount();
    dead = made.dead;
    const result = await timed(['--json', '--timeout', String(TIMEOUT), made.tree]);
    expect(result.status).toBe(1);
    const [usage] = JSON.parse(result.stdout) as Array<{ path: string; complete: boolean; unfinished: { count: number; first: string[] }; apparent: number }>;
    expect(usage).toMatchObject({ path: made.tree, complete: false, unfinished: { count: 1, first: [dead.dir] } });
    expect(usage!.apparent).toBeGreaterThanOrEqual(60_000);
  });

  it('ends a pipeline that reads its stdout and stderr together: the walking child, left stuck, holds neither', async () => {
    const made = await treeWithDeadMount();
    dead = made.dead;
    const { status, text } = await runPipedThroughCat(['du', '--timeout', String(TIMEOUT), '-a', made.tree], {}, EXIT_DEADLINE_MS);
    expect(status, 'the pipeline must end, not wait for the child stuck on the dead mount').toBe(0);
    expect(text).toContain(`${made.tree}/alive/file\n`);
    expect(text).toContain(`diskprobe: cannot access '${dead.dir}': not finished within`);
  });
});
