// A walk in progress: onProgress reports it as it grows, and an AbortSignal
// stops it at once: the promise rejects with an AbortError within 100 ms,
// and the walk's threads (native) or its helper process (statfs) are gone
// within a second. On a generated tree (test/fixtures/mktree.c) sized so the
// walk takes about a second on each backend. Runs once per backend.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildCFixture, compilerSkipReason } from '../fixtures/cFixture.mjs';
import { announceSkip, mountTmpfs, projectRoot, rootSkipReason, run, type TestMount } from '../helpers/system.js';
import { directoryUsage, type WalkProgress } from '../lib.js';
import { duTotals, gnuDuSkipReason } from './duOracle.js';
import { backendUnderTest, expectWhole } from './expectations.js';

/** mktree's TOP SUB FILES: about 600,000 entries for the addon, 100,000 for the slower fallback: a second's walk or more. */
const SHAPE = backendUnderTest === 'native' ? [40, 40, 375] : [32, 32, 97];

/** Threads of this process now. */
const threads = () => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);

/** The fallback's helper processes this process started that are still alive. */
function helpers(): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const parent = Number(
        readFileSync(`/proc/${pid}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ')[1],
      );
      if (parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('fallbackWalker')) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** What runs the walk: the addon's threads, or the helper processes. */
const walkers = () => (backendUnderTest === 'native' ? threads() : helpers().length);

describe.skipIf(announceSkip(`a walk in progress (${backendUnderTest})`, rootSkipReason ?? gnuDuSkipReason ?? compilerSkipReason()))(
  `a walk in progress, ${backendUnderTest}`,
  () => {
    let mount: TestMount | undefined;
    let root: string;
    beforeAll(() => {
      mount = mountTmpfs('size=64M,nr_inodes=700k');
      root = join(mount.dir, 'tree');
      run('mkdir', [root]);
      const started = performance.now();
      run(buildCFixture('mktree', join(projectRoot, 'test/.fixtures')), [root, ...SHAPE.map(String)]);
      console.log(`[walk in progress] made ${SHAPE.join('×')} files in ${Math.round(performance.now() - started)} ms`);
    });
    afterAll(() => mount?.cleanup());

    it('reports progress as it grows, never past the answer, and nothing after it', async () => {
      const seen: WalkProgress[] = [];
      const usage = await directoryUsage(root, { fresh: true, onProgress: (progress) => seen.push(progress) });
      const reported = seen.length;
      console.log(`[walk in progress] ${usage.elapsedMs} ms, ${reported} progress reports`);
      expect(reported).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < seen.length; i++) {
        const [before, after] = [seen[i - 1]!, seen[i]!];
        expect(after.entries + after.directories).toBeGreaterThan(before.entries + before.directories);
        expect(after.entries).toBeGreaterThanOrEqual(before.entries);
        expect(after.allocated).toBeGreaterThanOrEqual(before.allocated);
        expect(after.directories).toBeGreaterThanOrEqual(before.directories);
      }
      const last = seen.at(-1)!;
      expect(last.entries).toBeLessThanOrEqual(usage.files + usage.directories);
      expect(last.allocated).toBeLessThanOrEqual(usage.allocated);
      expect(last.directories).toBeLessThanOrEqual(usage.directories);
      await sleep(500);
      expect(seen).toHaveLength(reported);
      expect(usage.allocated).toBe(Number(duTotals(root).allocated));
    });

    it('stops when aborted: rejects with an AbortError within 100 ms, and its threads or helper are gone within a second', async () => {
      const before = walkers();
      const controller = new AbortController();
      const seen: WalkProgress[] = [];
      const walk = directoryUsage(root, { fresh: true, signal: controller.signal, onProgress: (progress) => seen.push(progress) });
      const settled = walk.then(
        () => 'resolved' as const,
        (error: Error) => ({ error, at: performance.now() }),
      );
      await sleep(30);
      const during = walkers();
      const abortedAt = performance.now();
      controller.abort();
      const outcome = await settled;
      if (outcome === 'resolved') throw new Error('the walk was done in 30 ms: the tree is too small to test cancelling');
      const late = Math.round(outcome.at - abortedAt);
      expect(outcome.error).toMatchObject({ name: 'AbortError' });
      expect(late).toBeLessThan(100);
      expect(during, 'the walk was running when aborted').toBeGreaterThan(before);
      const reported = seen.length;
      let gone = Number.NaN;
      for (const start = performance.now(); performance.now() - start < 1000; await sleep(20)) {
        if (walkers() <= before) {
          gone = Math.round(performance.now() - abortedAt);
          break;
        }
      }
      console.log(`[walk in progress] rejected ${late} ms after the abort; ${backendUnderTest === 'native' ? 'threads' : 'helper'} gone after ${gone} ms`);
      expect(walkers(), `${backendUnderTest === 'native' ? 'threads' : 'helpers'} a second after the abort`).toBeLessThanOrEqual(before);
      expect(seen).toHaveLength(reported);
    });

    it('rejects at once for a signal aborted already, and leaves nothing behind that a later call answers from', async () => {
      const controller = new AbortController();
      controller.abort(new Error('because'));
      await expect(directoryUsage(root, { fresh: true, signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
      // The walks cancelled above were dropped, not kept half done: a later call (from
      // the whole walk of the first test, or a new one) answers whole.
      const usage = await directoryUsage(root);
      expect(usage.files + usage.directories).toBe(Number(duTotals(root).inodes));
      expectWhole(usage);
    });
  },
);
