// Table layout (df's print_table) and the df command's rows, without I/O.
import { describe, expect, it } from 'vitest';

import { type DfOptions, parseDfCommandLine } from '../../../dist/cli/df/dfCommandLine.js';
import { type DfRow, renderDfTable } from '../../../dist/cli/df/dfTable.js';
import { renderTable } from '../../../dist/cli/df/table.js';
import type { DiskUsage } from '../../../dist/index.js';

describe('renderTable', () => {
  const columns = [
    { header: 'Name', align: 'left', minWidth: 6 },
    { header: 'N', align: 'right', minWidth: 3 },
    { header: 'Last', align: 'left', minWidth: 0 },
  ] as const;

  it('pads to the widest cell or the minimum, aligns, and leaves the last column unpadded', () => {
    expect(
      renderTable(columns, [
        ['a', '1', 'x'],
        ['longer name', '12345', 'yy'],
      ]),
    ).toBe('Name            N Last\n' + 'a               1 x\n' + 'longer name 12345 yy\n');
  });

  it('lets a spanning cell cover several columns, widening the last it covers when too long', () => {
    expect(
      renderTable(columns, [
        ['a', '1', 'x'],
        [{ text: 'far too long for N', span: 2 }, 'z'],
      ]),
    ).toBe('Name             N Last\n' + 'a                1 x\n' + 'far too long for N z\n');
  });

  it('measures width in terminal columns: wide characters take two, combining marks none', () => {
    expect(
      renderTable(columns, [
        ['😀', '1', 'x'],
        ['数据', '2', 'y'],
        ['e\u0301', '3', 'z'],
      ]),
    ).toBe('Name     N Last\n' + '😀       1 x\n' + '数据     2 y\n' + 'e\u0301        3 z\n');
  });
});

function usage(fields: Partial<DiskUsage<bigint>> = {}): DiskUsage<bigint> {
  return {
    path: '/m',
    mountPoint: '/m',
    fsType: 'ext4',
    total: 10n * 1024n ** 3n,
    free: 6n * 1024n ** 3n,
    available: 5n * 1024n ** 3n,
    used: 4n * 1024n ** 3n,
    usedPercent: 44.44444444444444,
    blockSize: 4096n,
    inodes: { total: 655360n, free: 655000n, available: 655000n, used: 360n, usedPercent: 0.054931640625 },
    backend: 'native',
    ...fields,
  };
}

const row = (fields: Partial<DiskUsage<bigint>> = {}, source = '/dev/sda1'): DfRow => ({
  kind: 'usage',
  source,
  fstype: 'ext4',
  target: '/m',
  file: '-',
  usage: usage(fields),
});

/** The table options `diskprobe df ARGS` gives. */
function tableOptions(args: string[], usageBar = false) {
  const { options } = parseDfCommandLine(args, {}) as { options: DfOptions };
  return { columns: options.columns, numbers: options.numbers, total: options.total, usageBar };
}

describe('renderDfTable', () => {
  it('prints df -hT columns with df minimum widths', () => {
    expect(renderDfTable([row()], tableOptions([]))).toBe(
      'Filesystem     Type  Size  Used Avail Use% Mounted on\n' + '/dev/sda1      ext4   10G  4.0G  5.0G  45% /m\n',
    );
  });

  it("prints df -hiT columns with -hiT, and df -i's with -i", () => {
    expect(renderDfTable([row()], tableOptions(['-hiT']))).toBe(
      'Filesystem     Type Inodes IUsed IFree IUse% Mounted on\n' + '/dev/sda1      ext4   640K   360  640K    1% /m\n',
    );
    expect(renderDfTable([row()], tableOptions(['-i']))).toBe(
      'Filesystem     Inodes IUsed  IFree IUse% Mounted on\n' + '/dev/sda1      655360   360 655000    1% /m\n',
    );
  });

  it('prints the block sizes, units and headers of -BK, -B1000, -P and --output', () => {
    expect(renderDfTable([row()], tableOptions(['-BK']))).toBe(
      'Filesystem     1K-blocks     Used Available Use% Mounted on\n' + '/dev/sda1      10485760K 4194304K  5242880K  45% /m\n',
    );
    expect(renderDfTable([row()], tableOptions(['-B1000', '-P']))).toBe(
      'Filesystem     1000-blocks    Used Available Capacity Mounted on\n' + '/dev/sda1         10737419 4294968   5368710      45% /m\n',
    );
    expect(renderDfTable([row()], tableOptions(['--output=target,size,file', '-H']))).toBe('Mounted on  Size File\n' + '/m           11G -\n');
  });

  it('adds df\'s total row: "total" and "-" for names, "total" as mount point when no Filesystem column says it', () => {
    expect(renderDfTable([row(), row()], tableOptions(['--total', '-k']))).toBe(
      'Filesystem     1K-blocks    Used Available Use% Mounted on\n' +
        '/dev/sda1       10485760 4194304   5242880  45% /m\n' +
        '/dev/sda1       10485760 4194304   5242880  45% /m\n' +
        'total           20971520 8388608  10485760  45% -\n',
    );
    expect(renderDfTable([row()], tableOptions(['--total', '--output=target,itotal']))).toBe(
      'Mounted on Inodes\n' + '/m         655360\n' + 'total      655360\n',
    );
  });

  it('shows "-" for every count df does not know (-a\'s unreadable or over-mounted mounts), and leaves them out of the total', () => {
    const unknown: DfRow = { kind: 'unknown', source: 'dpunder', fstype: '-', target: '/m', file: '-' };
    expect(renderDfTable([unknown, row()], tableOptions(['-k', '--total']))).toBe(
      'Filesystem     1K-blocks    Used Available Use% Mounted on\n' +
        'dpunder                -       -         -    - /m\n' +
        '/dev/sda1       10485760 4194304   5242880  45% /m\n' +
        'total           10485760 4194304   5242880  45% -\n',
    );
  });

  it('shows 0 for inode counts a file system does not have, and "-" for Use% with nothing to divide, as df does', () => {
    const empty = row({ total: 0n, free: 0n, available: 0n, used: 0n, usedPercent: 0, inodes: null });
    expect(renderDfTable([empty], tableOptions(['-hiT']))).toContain('/dev/sda1      ext4      0     0     0     - /m\n');
    expect(renderDfTable([empty], tableOptions([]))).toContain('/dev/sda1      ext4     0     0     0    - /m\n');
  });

  it('shows a mount that did not answer as one "not responding" cell across the numbers, and "-" for later ones', () => {
    const dead: DfRow = { kind: 'notResponding', source: 'server:/export', fstype: 'nfs4', target: '/mnt/nfs', file: '-' };
    expect(renderDfTable([row(), dead], tableOptions([]))).toBe(
      'Filesystem     Type  Size  Used Avail Use% Mounted on\n' +
        '/dev/sda1      ext4   10G  4.0G  5.0G  45% /m\n' +
        'server:/export nfs4 not responding         /mnt/nfs\n',
    );
    expect(renderDfTable([row(), dead], tableOptions(['--output=size,target,pcent', '-h']))).toBe(
      '          Size Mounted on Use%\n' + '           10G /m          45%\n' + 'not responding /mnt/nfs      -\n',
    );
  });

  it('adds a usage bar after Use% only when asked (for terminals)', () => {
    const text = renderDfTable([row(), row({ free: 10n * 1024n ** 3n, used: 0n, usedPercent: 0 })], tableOptions([], true));
    expect(text.split('\n')[1]).toBe('/dev/sda1      ext4   10G  4.0G  5.0G  45% [████░░░░░░] /m');
    expect(text.split('\n')[2]).toBe('/dev/sda1      ext4   10G     0  5.0G   0% [░░░░░░░░░░] /m');
  });

  it('turns control characters in names into "?", as df does, so a row stays one line', () => {
    const text = renderDfTable([{ ...row(), target: '/mnt/a\nb\tc' }], tableOptions([]));
    expect(text.split('\n')[1]).toMatch(/ \/mnt\/a\?b\?c$/);
  });
});
