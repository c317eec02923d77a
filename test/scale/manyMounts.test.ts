// Thousands of mounts, as on a Kubernetes node or a build farm: 2,000 tmpfs
// in a private mount namespace (test/fixtures/mountmany.c), where the
// library, `diskprobe df`, GNU df and list_mounts are asked the same
// questions (scenario.mjs). Then again with a FUSE mount that never answers
// among them. Counts and bytes are compared exactly; times are not measured
// here (npm run bench:mounts does that), only bounded by the timeout.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { buildCFixture, compilerSkipReason } from '../fixtures/cFixture.mjs';
import { announceSkip, fuseSkipReason, gnuDfSkipReason, projectRoot, rootSkipReason, tempDir } from '../helpers/system.js';

const COUNT = 2000;
const TIMEOUT = 800;
const BUDGET = 16 * 1024;

interface Report {
  readonly dead?: string;
  readonly mountsUsageMs: number;
  readonly usages: ReadonlyArray<{
    mountPoint: string;
    fsType: string;
    total: string | null;
    used: string | null;
    available: string | null;
    error: string | null;
  }>;
  readonly listed: readonly string[];
  readonly df: { status: number; stdout: string; stderr: string; ms: number };
  readonly dfJson: { status: number; stdout: string; stderr: string; ms: number };
  readonly gnuDf?: string;
  readonly gnuDfExact?: string;
  readonly pages: ReadonlyArray<{ text: string; structured: { mounts: Array<{ mountPoint: string }>; total: number; nextCursor?: string } }>;
}

function scenario(withDead: boolean): Report {
  const fixtures = join(projectRoot, 'test/.fixtures');
  const mountmany = buildCFixture('mountmany', fixtures);
  const fusefix = buildCFixture('fusefix', fixtures);
  const dir = join(tempDir('diskprobe-scale-'), 'mm');
  // -x: the mounts other test files make under the temp dir meanwhile (a
  // dead one among them, at times) are left outside the namespace.
  const args = [
    '-x',
    join(tmpdir(), 'diskprobe-'),
    dir,
    String(COUNT),
    process.execPath,
    join(projectRoot, 'test/scale/scenario.mjs'),
    dir,
    fusefix,
    ...(withDead ? ['--dead'] : []),
  ];
  const result = spawnSync(mountmany, args, { encoding: 'utf8', timeout: 120_000, maxBuffer: 256 << 20 });
  if (result.status !== 0) throw new Error(`the scenario failed (${result.status ?? result.signal}):\n${result.stderr.slice(-4000)}`);
  return JSON.parse(result.stdout) as Report;
}

const pointOf = (row: string): string => row.trim().split(/\s+/)[0]!;
const bytes = (text: string): number => Buffer.byteLength(text);

const skipReason = rootSkipReason ?? compilerSkipReason() ?? gnuDfSkipReason;

describe.skipIf(announceSkip(`${COUNT} mounts in a private namespace`, skipReason))(`${COUNT} mounts in a private namespace`, () => {
  let report: Report;
  beforeAll(() => {
    report = scenario(false);
  }, 180_000);

  it('lists the set GNU df lists, in its order, with its exact bytes', () => {
    const rows = report.gnuDfExact!.trimEnd().split('\n').slice(1);
    expect(report.listed.length).toBeGreaterThanOrEqual(COUNT);
    expect(report.listed).toEqual(rows.map(pointOf));
    // Bytes exactly on the namespace's own tmpfs, which nothing else writes to; the machine's
    // own mounts (/ among them) change between the two readings while other test files run.
    const own = (line: string): boolean => line.startsWith(`${report.listed.find((point) => point.endsWith('/mm'))}/`);
    const exact = report.usages.map(({ mountPoint, total, used, available }) => `${mountPoint} ${total} ${used} ${available}`).filter(own);
    expect(exact).toHaveLength(COUNT);
    expect(exact).toEqual(rows.map((row) => row.trim().split(/\s+/).join(' ')).filter(own));
    expect(report.usages.every(({ error }) => error === null)).toBe(true);
  });

  it('prints, as diskprobe df, exactly what GNU df -hT prints', () => {
    expect(report.df.stderr).toBe('');
    expect(report.df.status).toBe(0);
    expect(report.df.stdout).toBe(report.gnuDf);
    const json = JSON.parse(report.dfJson.stdout) as Array<{ mountPoint: string }>;
    expect(json.map((usage) => usage.mountPoint)).toEqual(report.listed);
  });

  it("keeps list_mounts' default answer within 16 KiB, saying how many it left out", () => {
    const [first] = report.pages;
    expect(bytes(first!.text)).toBeLessThanOrEqual(BUDGET);
    expect(bytes(JSON.stringify(first!.structured))).toBeLessThanOrEqual(BUDGET);
    const lines = first!.text.split('\n');
    const tmpfs = report.usages.filter(({ fsType }) => fsType === 'tmpfs').length;
    expect(lines[0]).toMatch(new RegExp(`^${report.listed.length.toLocaleString('en-US')} file systems: ${tmpfs.toLocaleString('en-US')} tmpfs, `));
    const shown = first!.structured.mounts.length;
    expect(lines.at(-1)).toContain(`${(report.listed.length - shown).toLocaleString('en-US')} more: pass cursor`);
  });

  it('pages through every mount exactly once, each page within the budget', () => {
    const seen = report.pages.flatMap((page) => page.structured.mounts.map((mount) => mount.mountPoint));
    expect(seen).toHaveLength(report.listed.length);
    expect(new Set(seen)).toEqual(new Set(report.listed));
    for (const page of report.pages) {
      expect(bytes(page.text)).toBeLessThanOrEqual(BUDGET);
      expect(page.structured.total).toBe(report.listed.length);
    }
  });
});

describe.skipIf(announceSkip(`${COUNT} mounts and a dead one`, rootSkipReason ?? fuseSkipReason))(`${COUNT} mounts and a dead FUSE mount among them`, () => {
  let report: Report;
  beforeAll(() => {
    report = scenario(true);
  }, 180_000);

  it('answers every mount within the timeout: the dead one as not responding, every other exactly', () => {
    expect(report.mountsUsageMs).toBeLessThan(TIMEOUT + 3000);
    const dead = report.usages.filter(({ error }) => error !== null);
    expect(dead).toEqual([expect.objectContaining({ mountPoint: report.dead, error: 'ETIMEDOUT' })]);
    const tmpfs = report.usages.filter(({ mountPoint }) => /\/mm\/m\d+$/.test(mountPoint));
    expect(tmpfs).toHaveLength(COUNT);
    // Each is an empty 64 KiB tmpfs: its exact figures are known.
    for (const usage of tmpfs) expect(usage).toMatchObject({ total: '65536', used: '0', available: '65536', error: null });
  });

  it('prints, as diskprobe df, the dead one as not responding and every other, and ends', () => {
    expect(report.df.status).toBe(1);
    expect(report.df.ms).toBeLessThan(TIMEOUT + 10_000);
    const rows = report.df.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(report.listed.length);
    expect(rows.filter((row) => row.includes('not responding'))).toEqual([
      expect.stringMatching(new RegExp(`^fusefix +fuse\\.fusefix not responding +.*${report.dead}$`)),
    ]);
    // Every mount, the dead one with its error.
    const json = JSON.parse(report.dfJson.stdout) as Array<{ mountPoint: string; error: { code: string } | null }>;
    expect(json).toHaveLength(report.listed.length);
    expect(json.filter((entry) => entry.error !== null)).toEqual([
      expect.objectContaining({ mountPoint: report.dead, error: expect.objectContaining({ code: 'ETIMEDOUT' }) }),
    ]);
  });

  it('puts the dead mount first in list_mounts, the rest within the budget', () => {
    const [first] = report.pages;
    expect(first!.text.split('\n')[1]).toContain(`${report.dead} (fuse.fusefix, fusefix): ETIMEDOUT`);
    expect(bytes(first!.text)).toBeLessThanOrEqual(BUDGET);
    const seen = report.pages.flatMap((page) => page.structured.mounts.map((mount) => mount.mountPoint));
    expect(new Set(seen).size).toBe(report.listed.length);
  });
});
