// What disk_usage and list_mounts say of the same file system: one
// percentage, df's Use% (rounded up), in both texts, with the exact share
// in structuredContent; and progress whenever list_mounts is asked for it,
// at least once, with the total, however fast the mounts answer (issue 17).
// Units and words (issue 27): disk_usage's MiB and MB each what its label
// says, list_mounts naming a device only where it is not the type again, and
// system_info's "1 CPU". The tools run against the real probe and real tmpfs
// mounts, GNU df as the reference for Use% and the bytes available.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { RequestSignal } from '../../dist/jsonrpc/requestSignal.js';
import { diskUsageTool } from '../../dist/mcp/features/tools/diskUsageTool.js';
import { listMountsTool } from '../../dist/mcp/features/tools/listMountsTool.js';
import { validateArguments } from '../../dist/mcp/protocol/inputValidation.js';
import { RootPolicy } from '../../dist/mcp/protocol/roots.js';
import { gnuDf } from '../cli/cliProcess.js';
import { announceSkip, gnuDfSkipReason, linuxSkipReason, mountTmpfs, projectRoot, rootSkipReason, run, type TestMount, tempDir } from '../helpers/system.js';

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

describe.skipIf(announceSkip('units and words on real mounts', rootSkipReason ?? gnuDfSkipReason))('units and words', () => {
  it('gives the space available in MiB as mib and in MB as mb, each rounded down from what df says is available', async () => {
    const mount = mountTmpfs('size=400M');
    mounts.push(mount);
    run('dd', ['if=/dev/zero', `of=${mount.dir}/fill`, 'bs=4096', 'count=1000', 'status=none']);
    const available = Number(gnuDf(['-B1', '--output=avail', mount.dir]).split('\n')[1]!.trim());
    const mib = await diskUsageTool.call({ path: mount.dir, unit: 'mib' }, context());
    expect(mib.text).toBe(`${Math.floor(available / 2 ** 20)} MiB free`);
    const mb = await diskUsageTool.call({ path: mount.dir, unit: 'mb' }, context());
    expect(mb.text).toBe(`${Math.floor(available / 1e6)} MB free`);
    // 400M of tmpfs: the two differ, so neither can pass for the other.
    expect(mib.text).not.toBe(mb.text.replace('MB', 'MiB'));
    expect(validateArguments(diskUsageTool.inputSchema, { path: '/', unit: 'gb' })).toEqual(['"unit" must be one of "percent", "mib", "mb", not "gb"']);
  });

  it('names the device beside the type only where it is not empty, "none" or the type again', async () => {
    const base = tempDir('diskprobe-labels-');
    for (const source of ['tmpfs', 'none', 'scratch-disk']) mounts.push(mountTmpfs('size=4M', join(base, source), source));
    const listed = await listMountsTool.call({ mount_prefix: base, sort: 'mount_point' }, context());
    const lines = listed.text.split('\n').slice(1);
    expect(lines.map((line) => line.slice(0, line.indexOf(':')))).toEqual([
      `${join(base, 'none')} (tmpfs)`,
      `${join(base, 'scratch-disk')} (tmpfs, scratch-disk)`,
      `${join(base, 'tmpfs')} (tmpfs)`,
    ]);
    // structuredContent keeps the device as the mount table names it.
    const entries = (listed.structured as { mounts: Array<{ device: string }> }).mounts;
    expect(entries.map((entry) => entry.device)).toEqual(['none', 'scratch-disk', 'tmpfs']);
  });
});

describe.skipIf(announceSkip('system_info on one CPU', linuxSkipReason ?? (spawnSync('taskset', ['-V']).status === 0 ? undefined : 'no taskset')))(
  'system_info words',
  () => {
    it('says "1 CPU" to a process held to one, and "N CPUs" otherwise', () => {
      const tool = join(projectRoot, 'dist/mcp/features/tools/systemInfoTool.js');
      const script = `import { systemInfoTool } from ${JSON.stringify(tool)}; process.stdout.write((await systemInfoTool.call({}, {})).text);`;
      const one = spawnSync('taskset', ['-c', '0', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(one.stdout, one.stderr).toMatch(/, 1 CPU, memory /);
      const two = spawnSync('taskset', ['-c', '0,1', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
      if (two.status === 0) expect(two.stdout).toMatch(/, 2 CPUs, memory /); // a machine of one CPU cannot be held to two
    });
  },
);

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
