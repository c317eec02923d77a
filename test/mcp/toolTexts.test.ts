// What disk_usage and list_mounts say of the same file system: one
// percentage, df's Use% (rounded up), in both texts, with the exact share
// in structuredContent; and progress whenever list_mounts is asked for it,
// at least once, with the total, however fast the mounts answer (issue 17).
// The tools run against the real probe and real tmpfs mounts, GNU df as the
// reference for Use%.
import { afterAll, describe, expect, it } from 'vitest';

import { RequestSignal } from '../../dist/jsonrpc/requestSignal.js';
import { diskUsageTool } from '../../dist/mcp/features/tools/diskUsageTool.js';
import { listMountsTool } from '../../dist/mcp/features/tools/listMountsTool.js';
import { RootPolicy } from '../../dist/mcp/protocol/roots.js';
import { gnuDf } from '../cli/cliProcess.js';
import { announceSkip, gnuDfSkipReason, mountTmpfs, rootSkipReason, run, type TestMount } from '../helpers/system.js';

interface Progress {
  readonly progress: number;
  readonly total: number | undefined;
}

function context(progress: Progress[] = []) {
  return {
    signal: new RequestSignal(),
    probeTimeout: 5000,
    walkBudgetMs: 20_000,
    roots: new RootPolicy([]),
    progress: (value: number, total?: number) => progress.push({ progress: value, total }),
    log: () => {},
  };
}

const mounts: TestMount[] = [];
afterAll(() => {
  for (const mount of mounts) mount.cleanup();
});

describe.skipIf(announceSkip('one percentage in both tools', rootSkipReason ?? gnuDfSkipReason))('disk_usage and list_mounts', () => {
  it("say df's Use% of the same mount, rounded up, and keep the exact share in structuredContent", async () => {
    // 0.1 % used: df says 1%, and so must both tools.
    const mount = mountTmpfs('size=400M');
    mounts.push(mount);
    run('dd', ['if=/dev/zero', `of=${mount.dir}/fill`, 'bs=4096', 'count=100', 'status=none']);
    const dfUse = gnuDf(['--output=pcent', mount.dir]).split('\n')[1]!.trim();
    expect(dfUse).toBe('1%');

    const usage = await diskUsageTool.call({ path: mount.dir }, context());
    expect(usage.text).toContain(`: ${dfUse} used, `);
    expect((usage.structured as { usedPercent: number }).usedPercent).toBeLessThan(1);
    const percent = await diskUsageTool.call({ path: mount.dir, unit: 'percent' }, context());
    expect(percent.text).toBe(dfUse);

    const listed = await listMountsTool.call({ mount_prefix: mount.dir, limit: 50 }, context());
    const line = listed.text.split('\n').find((text) => text.startsWith(`${mount.dir} (tmpfs`));
    expect(line).toContain(`: ${dfUse} used, `);
  });
});

describe('list_mounts progress', () => {
  it('is reported at least once, with the total, before the result, and ends at the total', async () => {
    const progress: Progress[] = [];
    const result = await listMountsTool.call({}, context(progress));
    expect(result.isError).not.toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    const last = progress.at(-1)!;
    expect(last.total).toBeDefined();
    expect(last.progress).toBe(last.total);
    expect(progress.map((entry) => entry.progress)).toEqual([...progress.map((entry) => entry.progress)].sort((a, b) => a - b));
  });
});
