// A dead mount, end to end: while eight disk_usage calls hang on the
// FUSE fixture's `hang` mount, the server keeps answering everything else at
// once, each hung call ends as isError naming the timeout close to
// --probe-timeout, list_mounts reports the mount as not responding, later
// calls fail fast, and once the daemon is gone the server exits cleanly.
//
// The bounds below are generous bounds on failure (a stall would take seconds),
// not measurements; bench/ and docs/benchmarks.md hold the measurements.

import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';

import { announceSkip, type FuseMount, fuseSkipReason, mountFuse, mountTmpfs, type TestMount } from '../helpers/system.js';
import { it, type RpcResponse } from './mcpClient.js';

const PROBE_TIMEOUT = 1500;
const HUNG_CALLS = 8;
/** What "promptly" means while the calls hang: a ping's round trip must stay under this. */
const PING_LIMIT_MS = 100;
/** The statfs fallback's first probe after its helpers are stuck starts a new helper process: this long at most. */
const HELPER_SPAWN_LIMIT_MS = 1000;
/** A hung call must end no later than this after --probe-timeout. */
const LATE_LIMIT_MS = 500;

async function timed(request: () => Promise<RpcResponse>): Promise<{ response: RpcResponse; ms: number }> {
  const start = performance.now();
  const response = await request();
  return { response, ms: performance.now() - start };
}

const textOf = (response: RpcResponse): string => ((response.result?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? '';

describe.skipIf(announceSkip('a dead mount, end to end', fuseSkipReason)).each(['native', 'statfs'])(
  'a dead mount under a running server, %s backend',
  (backend) => {
    it(`keeps serving while ${HUNG_CALLS} calls hang on it, times each out, and exits cleanly once it is gone`, async ({ startServer }) => {
      const server = startServer({ args: ['--probe-timeout', String(PROBE_TIMEOUT)], env: { DISKPROBE_BACKEND: backend } });
      await server.initialize();
      let dead: FuseMount | undefined = await mountFuse('hang');
      try {
        const paths = Array.from({ length: HUNG_CALLS }, (_, index) => (index === 0 ? dead!.dir : `${dead!.dir}/dir${index}`));
        const sentAt = performance.now();
        const hung = paths.map((path) => server.callTool('disk_usage', { path }).then((response) => ({ response, at: performance.now() - sentAt })));

        // list_mounts, asked meanwhile, cannot know the mount is dead before the timeout: it answers by then.
        const listing = timed(() => server.callTool('list_mounts', { all: true }));

        // While they hang: pings and other mounts answer at once.
        const pings: number[] = [];
        const others: number[] = [];
        while (performance.now() - sentAt < PROBE_TIMEOUT - 300) {
          pings.push((await timed(() => server.request('ping'))).ms);
          const root = await timed(() => server.callTool('disk_usage', { path: '/' }));
          expect(root.response.result?.isError).toBe(false);
          others.push(root.ms);
          const tmp = await timed(() => server.callTool('disk_usage', { path: '/tmp' }));
          expect(tmp.response.result?.isError).toBe(false);
          others.push(tmp.ms);
        }
        expect(pings.length).toBeGreaterThan(5);
        expect(Math.max(...pings), `ping round trips (ms): ${pings.map(Math.round).join(' ')}`).toBeLessThan(PING_LIMIT_MS);
        // The fallback's first probe after its helpers got stuck waits for a fresh helper process to start.
        const othersLimit = backend === 'native' ? PING_LIMIT_MS : HELPER_SPAWN_LIMIT_MS;
        expect(Math.max(...others.slice(1)), `other mounts (ms): ${others.map(Math.round).join(' ')}`).toBeLessThan(PING_LIMIT_MS);
        expect(others[0]!).toBeLessThan(othersLimit);

        const deadEntry = (response: RpcResponse): unknown =>
          (response.result!.structuredContent as { mounts: Array<{ mountPoint: string }> }).mounts.find((mount) => mount.mountPoint === dead!.dir);
        const notResponding = { usage: null, error: `ETIMEDOUT: ${dead.dir}: mount not responding after ${PROBE_TIMEOUT} ms` };
        const listed = await listing;
        expect(listed.ms).toBeLessThan(PROBE_TIMEOUT + LATE_LIMIT_MS);
        expect(deadEntry(listed.response)).toMatchObject(notResponding);
        expect(textOf(listed.response)).toContain(`${dead.dir} (fuse.fusefix, fusefix): ETIMEDOUT`);

        // Each hung call ends as a tool error naming the timeout, close to --probe-timeout.
        const ended = await Promise.all(hung);
        for (const [index, { response, at }] of ended.entries()) {
          expect(response.result).toEqual({
            content: [{ type: 'text', text: `ETIMEDOUT: ${paths[index]}: mount not responding after ${PROBE_TIMEOUT} ms` }],
            isError: true,
          });
          expect(at).toBeGreaterThanOrEqual(PROBE_TIMEOUT - 50);
          expect(at, `call ${index} ended ${Math.round(at)} ms after it was sent`).toBeLessThan(PROBE_TIMEOUT + LATE_LIMIT_MS);
        }

        // The mount is known to be stuck now: later calls fail at once, with the same words.
        for (const path of [dead.dir, `${dead.dir}/later`]) {
          const again = await timed(() => server.callTool('disk_usage', { path }));
          expect(textOf(again.response)).toBe(`ETIMEDOUT: ${path}: mount not responding after ${PROBE_TIMEOUT} ms`);
          expect(again.ms).toBeLessThan(PING_LIMIT_MS);
        }
        // And list_mounts no longer waits for it at all.
        const relisted = await timed(() => server.callTool('list_mounts', { all: true }));
        expect(relisted.ms).toBeLessThan(PING_LIMIT_MS * 2);
        expect(deadEntry(relisted.response)).toMatchObject(notResponding);

        // The daemon dies: the stuck probe returns, and EOF ends the server cleanly.
        const closing = server.close(5000);
        dead.cleanup();
        dead = undefined;
        expect(await closing).toEqual({ code: 0, signal: null });
        expect(server.stderr).not.toMatch(/Error|at .*\(/);
      } finally {
        dead?.cleanup();
      }
    });
  },
);

// directory_usage across a dead mount waits --probe-timeout for it, as a
// probe does, not the walk's default 5 s (issue 27).
describe.skipIf(announceSkip('a dead mount inside a directory_usage walk', fuseSkipReason)).each(['native', 'statfs'])(
  'directory_usage over a dead mount, %s backend',
  (backend) => {
    it('answers once the dead mount has been silent for --probe-timeout, incomplete, naming it', async ({ startServer }) => {
      const probeTimeout = 1000;
      const mounts: TestMount[] = [];
      try {
        const tmpfs = mountTmpfs('size=8M');
        mounts.push(tmpfs);
        const dead = await mountFuse('dead', join(tmpfs.dir, 'sub', 'dead'));
        mounts.unshift(dead); // the daemon first: nothing else ends a call stuck on its mount
        // The fallback re-reads the mount table once its copy is a second old.
        if (backend === 'statfs') await sleep(1100);
        const server = startServer({ args: ['--probe-timeout', String(probeTimeout)], env: { DISKPROBE_BACKEND: backend } });
        await server.initialize();
        const { response, ms } = await timed(() => server.callTool('directory_usage', { path: tmpfs.dir, one_file_system: false, fresh: true }));
        expect(response.result?.isError).toBe(false);
        expect(ms).toBeGreaterThanOrEqual(probeTimeout - 50);
        expect(ms, `answered after ${Math.round(ms)} ms`).toBeLessThan(probeTimeout + LATE_LIMIT_MS + 500);
        expect(textOf(response)).toContain(dead.dir);
        expect(textOf(response)).toMatch(/incomplete|partial/i);
        // Later calls skip it at once: the mount is known to be stuck.
        const again = await timed(() => server.callTool('directory_usage', { path: tmpfs.dir, one_file_system: false, fresh: true }));
        expect(again.ms).toBeLessThan(probeTimeout / 2);
      } finally {
        for (const mount of mounts) mount.cleanup();
      }
    });
  },
);
