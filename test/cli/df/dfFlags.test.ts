// `diskprobe df ARGS` against `df ARGS`, byte for byte, for GNU df's flags
// and hundreds of their combinations, on tmpfs mounts made for the test:
// sized to land on rounding boundaries (powers of 1024 and 1000; -B1000's,
// -B1MB's and -B12000's floating-point rescaling), with files in them, a space in a name,
// a read-only one, ramfs (no blocks, no inodes), a bind mount (a duplicate
// device) and an over-mount by another device (-a's "-" row). Without any
// format flag diskprobe prints df -hT's table, so those are compared with
// `df -hT ARGS`. Everything runs in a private mount namespace (see
// inPrivateMounts.mjs), where listing every mount shows the same mounts to
// both commands whatever the other test files mount meanwhile.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { announceSkip, gnuDfSkipReason, has, rootSkipReason, run, tempDir } from '../../helpers/system.js';
import { cliPath } from '../cliProcess.js';

const PAGE = 4096;
const driver = fileURLToPath(new URL('./inPrivateMounts.mjs', import.meta.url));

interface Case {
  readonly name: string;
  readonly ours: string[];
  readonly gnu: string[];
  readonly env?: Record<string, string>;
}

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// Every format flag alone, and in pairs and triples; '' stands for none (df -hT's table).
const FORMATS: string[][] = [
  [],
  ['-h'],
  ['-H'],
  ['--si'],
  ['-k'],
  ['-m'],
  ['-P'],
  ['-i'],
  ['-T'],
  ['--human-readable'],
  ['--inodes'],
  ['--print-type'],
  ['--portability'],
  ['-B1'],
  ['-BK'],
  ['-BM'],
  ['-BG'],
  ['-B1K'],
  ['-B1KB'],
  ['-B1000'],
  ['-B512'],
  ['--block-size=1M'],
  ["--block-size='1k"],
  ['--block=1MiB'],
  ['-B', 'KiB'],
  ['-BkB'],
  ['-B3'],
  ['-B1MB'],
  ['-B', '1500'],
  ['-B', 'human-readable'],
  ['-Bsi'],
  ['-B', '0x10'],
  ['-B', '12000'],
  ['-BT'],
  ['--output'],
  ['--output=source,target'],
  ['--output=size,used,avail,pcent'],
  ['--output=itotal,iused,iavail,ipcent,file'],
  ['--output=target,fstype,size'],
  ['--output=file,source,pcent,ipcent'],
  ['--output=avail,target'],
  ['--out=iused', '--output=size'],
  ['-hT'],
  ['-iT'],
  ['-ih'],
  ['-iH'],
  ['-PT'],
  ['-Pk'],
  ['-Ph'],
  ['-PH'],
  ['-P', '-BM'],
  ['-P', '-B1000'],
  ['-kT'],
  ['-mT'],
  ['-HT'],
  ['-h', '--output=size,avail,target'],
  ['-BM', '--output=size,used,file,target'],
  ['-i', '-B1K'],
  ['-H', '--output'],
  ['-BKB', '-i'],
  ['-k', '-h'],
  ['-h', '-k'],
  ['-T', '-P', '-BG'],
  ['-TiB1000'],
];

// Filters, and the flags df ignores.
const FILTERS: string[][] = [
  [],
  ['--total'],
  ['-t', 'tmpfs'],
  ['-x', 'tmpfs'],
  ['-a'],
  ['-l'],
  ['-t', 'ramfs', '-t', 'tmpfs'],
  ['-x', 'ramfs', '--total'],
  ['-v', '--sync', '--no-sync'],
  ['-t', 'ext4'],
  ['--total', '-a', '-l'],
  ['-xtmpfs', '--exclude-type=ramfs'],
  ['--type=tmpfs', '--tot', '--loc'],
];

/** What GNU df is run with for `flags`: the same, or df -hT's when there is no format flag. */
function gnuArgs(format: string[], rest: string[]): string[] {
  return format.length === 0 ? ['-hT', ...rest] : [...format, ...rest];
}

const label = (args: string[]): string => args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg}'`)).join(' ');

/** The cases on the test's own mounts, named as paths. */
function pathCases(paths: string[]): Case[] {
  const cases: Case[] = [];
  const add = (format: string[], filter: string[], where: 'after' | 'before' = 'after'): void => {
    const flags = [...format, ...filter];
    const ours = where === 'after' ? [...flags, ...paths] : [...paths, ...flags];
    const gnu = where === 'after' ? [...gnuArgs(format, filter), ...paths] : [...paths, ...gnuArgs(format, filter)];
    cases.push({ name: `${label(flags)} PATHS${where === 'before' ? ' (flags last)' : ''}`, ours, gnu });
  };
  FORMATS.forEach((format, index) => {
    add(format, []);
    for (let step = 1; step <= 3; step++) add(format, FILTERS[(index * 3 + step) % FILTERS.length]!);
  });
  for (const filter of FILTERS.slice(1)) for (const format of [[], ['-i'], ['--output'], ['-BK', '-T']]) add(format, filter);
  for (const format of [['-T'], ['-i', '--total'], ['--output=file,target']]) add(format, [], 'before');
  return cases;
}

/** The same flags without paths: every mount of the namespace. */
function listingCases(): Case[] {
  const formats = [
    [],
    ['-h'],
    ['-i'],
    ['-T'],
    ['-P'],
    ['-BK'],
    ['-B1000'],
    ['--output'],
    ['-H', '--output=source,fstype,size,used,file,target'],
    ['-k', '-T'],
    ['-ih'],
  ];
  const filters = [
    [],
    ['-a'],
    ['-l'],
    ['-t', 'tmpfs'],
    ['-x', 'tmpfs'],
    ['--total'],
    ['-a', '--total'],
    ['-t', 'tmpfs', '--total'],
    ['-x', 'tmpfs', '-x', 'devtmpfs'],
    ['-a', '-t', 'ramfs'],
    ['-a', '-x', 'cgroup', '-x', 'proc'],
    ['-t', 'nosuch'],
  ];
  return formats.flatMap((format) =>
    filters.map((filter) => ({ name: `${label([...format, ...filter])} (every mount)`, ours: [...format, ...filter], gnu: gnuArgs(format, filter) })),
  );
}

/** The block size variables, with a format flag (they apply) and without (diskprobe's -hT table); and the other backend. */
function environmentCases(paths: string[]): Case[] {
  const variables: Array<[Record<string, string>, string[]]> = [
    [{ DF_BLOCK_SIZE: '1M' }, ['-T']],
    [{ DF_BLOCK_SIZE: '1M', BLOCK_SIZE: '1K' }, ['--output=size,target']],
    [{ BLOCK_SIZE: 'human-readable' }, ['-T']],
    [{ BLOCK_SIZE: 'KiB' }, ['-i', '-T']],
    [{ BLOCKSIZE: '512' }, ['--output=size,used,target']],
    [{ BLOCKSIZE: 'si' }, ['--output']],
    [{ POSIXLY_CORRECT: '1' }, ['-P']],
    [{ POSIXLY_CORRECT: '1' }, ['-T']],
    [{ POSIXLY_CORRECT: '1', DF_BLOCK_SIZE: '2K' }, ['-P']],
    [{ DF_BLOCK_SIZE: 'x1' }, ['-T']],
    [{ DF_BLOCK_SIZE: '1x' }, ['-T']],
    [{ DF_BLOCK_SIZE: '' }, ['-T']],
    [{ DF_BLOCK_SIZE: "'1k" }, ['-T']],
    [{ DF_BLOCK_SIZE: '1M' }, ['-h']],
    [{ DF_BLOCK_SIZE: '1M' }, []],
    // The fs.statfs fallback backend gives the same counts (GNU df ignores the variable).
    [{ DISKPROBE_BACKEND: 'statfs' }, []],
    [{ DISKPROBE_BACKEND: 'statfs' }, ['--output', '--total']],
    [{ DISKPROBE_BACKEND: 'statfs' }, ['-B1000', '-i', '-T']],
    [{ DISKPROBE_BACKEND: 'statfs' }, ['-B', '12000', '-P']],
  ];
  return variables.map(([env, format]) => ({
    name: `${Object.entries(env)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')} ${label(format)} PATHS`,
    ours: [...format, ...paths],
    gnu: [...gnuArgs(format, []), ...paths],
    env,
  }));
}

const skipReason = rootSkipReason ?? gnuDfSkipReason ?? (has('unshare') ? undefined : 'unshare (util-linux) is missing');

describe.skipIf(announceSkip('diskprobe df vs GNU df, flag by flag', skipReason))('diskprobe df ARGS vs df ARGS, byte for byte', () => {
  const work = tempDir('diskprobe-dfflags-');
  const dir = (name: string): string => join(work, name);
  const mounted: string[] = [];
  const mount = (type: string, source: string, options: string, at: string): void => {
    mkdirSync(at, { recursive: true });
    run('mount', ['-t', type, '-o', options, source, at]);
    mounted.push(at);
  };
  const fill = (at: string, pages: number[]): void => {
    for (const [index, count] of pages.entries()) writeFileSync(join(at, `file${index}`), Buffer.alloc(count * PAGE, 1));
  };

  const paths = [
    dir('t1'),
    dir('t2'),
    dir('t3/'),
    dir('t4'),
    dir('t5'),
    dir('big'),
    dir('b125'),
    dir('m15625'),
    dir('ld1125'),
    dir('a b'),
    dir('ro'),
    dir('ramfs'),
    dir('bind'),
    dir('over'),
    join(dir('t2'), 'file0'),
  ];
  const cases = [...pathCases(paths), ...listingCases(), ...environmentCases(paths)];
  // --json beside the table's sources and mount points, which its entries must list in the same order.
  const jsonCases: Case[] = [[], ['-a'], ['-l', '--total'], ['-t', 'tmpfs', '-x', 'ramfs'], ['-a', '-i', '-BK']].flatMap((filter) => [
    {
      name: `--json ${label(filter)}`,
      ours: ['--json', ...filter],
      gnu: [...filter.filter((flag) => !['-i', '-BK'].includes(flag)), '--output=source,target'],
    },
    {
      name: `--json ${label(filter)} PATHS`,
      ours: ['--json', ...filter, ...paths],
      gnu: [...filter.filter((flag) => !['-i', '-BK'].includes(flag)), '--output=source,target', ...paths],
    },
  ]);
  let results: Ran[][] = [];
  let jsonResults: Ran[][] = [];

  beforeAll(() => {
    mount('tmpfs', 'tmpfs', `size=${PAGE},nr_inodes=1023`, dir('t1')); // 4.0K; 1023 inodes
    mount('tmpfs', 'tmpfs', `size=${255 * PAGE},nr_inodes=1024`, dir('t2')); // 1020K; 1.0K inodes
    fill(dir('t2'), [3]);
    mount('tmpfs', 'tmpfs', `size=${257 * PAGE},nr_inodes=1025`, dir('t3')); // 1.1M; 1.1K inodes
    fill(dir('t3'), [1, 1]);
    mount('tmpfs', 'tmpfs', `size=${2534 * PAGE},nr_inodes=10239`, dir('t4')); // 9.9M, 1.5M used; 10K inodes
    fill(dir('t4'), [384]);
    mount('tmpfs', 'tmpfs', `size=${2608332 * PAGE},nr_inodes=10240`, dir('t5')); // 1024^3 × 9.95 bytes: 10G
    mount('tmpfs', 'tmpfs', `size=9P,nr_inodes=${2n ** 53n + 1n}`, dir('big')); // above 2^53 bytes and inodes
    fill(dir('big'), [2]);
    mount('tmpfs', 'tmpfs', `size=${375 * PAGE}`, dir('b125')); // multiples of 125 blocks: -B1000 lands on integers
    fill(dir('b125'), [250]);
    mount('tmpfs', 'tmpfs', `size=${15625 * PAGE}`, dir('m15625')); // 64,000,000 bytes: -B1MB lands on an integer
    fill(dir('m15625'), [3]);
    // 1125 blocks × (4096 / 12000) is 384 exactly, but 385 in long double: -B12000 must print 385, as df does.
    mount('tmpfs', 'tmpfs', `size=${1125 * PAGE}`, dir('ld1125'));
    mount('tmpfs', 'tmpfs', `size=${3 * PAGE}`, dir('a b')); // -B3 lands on integers
    mount('tmpfs', 'tmpfs', `size=${7 * PAGE},ro`, dir('ro'));
    mount('ramfs', 'ramfs', 'rw', dir('ramfs'));
    mkdirSync(dir('bind'));
    run('mount', ['--bind', dir('t2'), dir('bind')]);
    mounted.push(dir('bind'));
    mount('tmpfs', 'dpunder', `size=${11 * PAGE}`, dir('over'));
    mount('tmpfs', 'dpover', `size=${13 * PAGE}`, dir('over'));

    const request = { cli: cliPath, keep: [work], below: '/tmp/', cases: [...cases, ...jsonCases].map(({ ours, gnu, env }) => ({ ours, gnu, env })) };
    const ran = spawnSync('unshare', ['-m', '--propagation', 'private', process.execPath, driver], {
      input: JSON.stringify(request),
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    if (ran.status !== 0) throw new Error(`the namespace driver failed (${ran.status ?? ran.signal}): ${ran.stderr}`);
    const all = (JSON.parse(ran.stdout) as Array<{ gnu: Ran; ours: Ran }>).map(({ gnu, ours }) => [gnu, ours]);
    results = all.slice(0, cases.length);
    jsonResults = all.slice(cases.length);
  }, 600_000);

  afterAll(() => {
    for (const at of mounted.reverse()) spawnSync('umount', ['-l', at]);
  });

  it(`compares ${cases.length} command lines`, () => {
    expect(results).toHaveLength(cases.length);
    expect(cases.length).toBeGreaterThan(350);
  });

  it.each(jsonCases.map((testCase, index) => [testCase.name, index] as const))('%s lists what the table lists, in its order', (_, index) => {
    const [gnu, ours] = jsonResults[index]!;
    const entries = JSON.parse(ours!.stdout) as Array<{
      device: string | null;
      mountPoint: string | null;
      fsType: string | null;
      error: { code: string } | null;
    }>;
    const rows = gnu!.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ')).trim()])
      // --json has no total row.
      .filter(([source, target]) => !(source === 'total' && target === '-'));
    expect(entries.map((entry) => [entry.device, entry.mountPoint])).toEqual(rows);
    expect(ours!.status).toBe(gnu!.status);
    // -a's over-mounted entry has no counts of its own; every other one answered.
    for (const entry of entries) {
      if (entry.device === 'dpunder') expect(entry.error).toEqual({ code: 'EOVERMOUNTED', message: 'over-mounted by another device' });
      else expect(entry.error).toBeNull();
    }
  });

  it('gives --json entries their device and read-only flag', () => {
    const entries = JSON.parse(jsonResults[1]![1]!.stdout) as Array<{ path: string; device: string; readOnly: boolean; fsType: string }>;
    expect(entries.find((entry) => entry.path === dir('ro'))).toMatchObject({ device: 'tmpfs', fsType: 'tmpfs', readOnly: true });
    expect(entries.find((entry) => entry.path === dir('over'))).toMatchObject({ device: 'dpover', readOnly: false });
    expect(entries.find((entry) => entry.path === dir('ramfs'))).toMatchObject({ device: 'ramfs', fsType: 'ramfs', readOnly: false });
  });

  it.each(cases.map((testCase, index) => [testCase.name, index] as const))('%s', (_, index) => {
    const [gnu, ours] = results[index]!;
    expect(gnu!.status, `GNU df did not finish: ${gnu!.stderr}`).not.toBe(124);
    expect(ours!.stdout).toBe(gnu!.stdout);
    expect(ours!.status).toBe(gnu!.status);
    expect(ours!.stderr).toBe(gnu!.stderr.replace(/^df: /gm, 'diskprobe: '));
  });
});
