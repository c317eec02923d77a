// df's columns: the fields --output names, the columns each display mode
// shows, and their headers, as get_field_list and get_header in coreutils
// 9.1's df.c choose them. Pure: options in, columns out.

import { HUMAN, humanReadable } from '../../format/humanReadable.js';

/** The fields of --output, in the order `--output` alone shows them. */
const DF_FIELDS = ['source', 'fstype', 'itotal', 'iused', 'iavail', 'ipcent', 'size', 'used', 'avail', 'pcent', 'file', 'target'] as const;
export type DfField = (typeof DF_FIELDS)[number];

/** Which numbers a field shows: block counts, inode counts, or neither. */
type FieldKind = 'block' | 'inode' | 'other';

interface FieldData {
  readonly kind: FieldKind;
  /** The header unless the mode or --output names it otherwise. */
  readonly caption: string;
  /** Display cells the column takes at least (field_data's widths). */
  readonly minWidth: number;
  readonly align: 'left' | 'right';
}

export const FIELD_DATA: Readonly<Record<DfField, FieldData>> = {
  source: { kind: 'other', caption: 'Filesystem', minWidth: 14, align: 'left' },
  fstype: { kind: 'other', caption: 'Type', minWidth: 4, align: 'left' },
  size: { kind: 'block', caption: 'blocks', minWidth: 5, align: 'right' },
  used: { kind: 'block', caption: 'Used', minWidth: 5, align: 'right' },
  avail: { kind: 'block', caption: 'Available', minWidth: 5, align: 'right' },
  pcent: { kind: 'block', caption: 'Use%', minWidth: 4, align: 'right' },
  itotal: { kind: 'inode', caption: 'Inodes', minWidth: 5, align: 'right' },
  iused: { kind: 'inode', caption: 'IUsed', minWidth: 5, align: 'right' },
  iavail: { kind: 'inode', caption: 'IFree', minWidth: 5, align: 'right' },
  ipcent: { kind: 'inode', caption: 'IUse%', minWidth: 4, align: 'right' },
  target: { kind: 'other', caption: 'Mounted on', minWidth: 0, align: 'left' },
  file: { kind: 'other', caption: 'File', minWidth: 0, align: 'left' },
};

export function isDfField(name: string): name is DfField {
  return (DF_FIELDS as readonly string[]).includes(name);
}

/** df's display modes (header_mode in df.c). */
export type DfMode = 'default' | 'inodes' | 'human' | 'posix' | 'output';

/** One column of the table: a field and its header text. */
export interface DfColumn {
  readonly field: DfField;
  readonly header: string;
}

/** How the numbers are printed: JSON-safe, as it crosses to the df worker process. */
export interface DfNumbers {
  /** human_readable option bits (HUMAN). */
  readonly humanOptions: number;
  /** Bytes per output block, as decimal digits: it may pass 2^53. */
  readonly blockSize: string;
}

/** The fields each mode shows (get_field_list), with the captions it gives them. */
function modeFields(mode: Exclude<DfMode, 'output'>, printType: boolean): Array<[DfField, string | undefined]> {
  const type: Array<[DfField, string | undefined]> = printType ? [['fstype', undefined]] : [];
  switch (mode) {
    case 'default':
      return [['source', undefined], ...type, ['size', undefined], ['used', undefined], ['avail', undefined], ['pcent', undefined], ['target', undefined]];
    case 'human':
      return [['source', undefined], ...type, ['size', 'Size'], ['used', undefined], ['avail', 'Avail'], ['pcent', undefined], ['target', undefined]];
    case 'inodes':
      return [['source', undefined], ...type, ['itotal', undefined], ['iused', undefined], ['iavail', undefined], ['ipcent', undefined], ['target', undefined]];
    case 'posix':
      return [['source', undefined], ...type, ['size', undefined], ['used', undefined], ['avail', undefined], ['pcent', 'Capacity'], ['target', undefined]];
  }
}

/** --output's captions: its own for size and avail (decode_output_arg). */
function outputCaption(field: DfField): string | undefined {
  return field === 'size' ? 'Size' : field === 'avail' ? 'Avail' : undefined;
}

/**
 * The "1K-blocks" of the size header: the block size as human_readable
 * prints it, in the base that states it exactly (get_header in df.c).
 */
function blocksHeader(numbers: DfNumbers, precision: number): string {
  const blockSize = BigInt(numbers.blockSize);
  let options = HUMAN.suppressPointZero | HUMAN.autoscale | HUMAN.SI | (numbers.humanOptions & (HUMAN.groupDigits | HUMAN.base1024 | HUMAN.B));
  let q1000 = blockSize;
  let q1024 = blockSize;
  let by1000: boolean;
  let by1024: boolean;
  do {
    by1000 = q1000 % 1000n === 0n;
    q1000 /= 1000n;
    by1024 = q1024 % 1024n === 0n;
    q1024 /= 1024n;
  } while (by1000 && by1024);
  if (!by1000 && by1024) options |= HUMAN.base1024;
  if (!by1024 && by1000) options &= ~HUMAN.base1024;
  if (!(options & HUMAN.base1024)) options |= HUMAN.B;
  return `${humanReadable(blockSize, options, 1n, 1n, precision)}-blocks`;
}

/**
 * The columns and their headers for `mode`: the fields of --output
 * (`outputFields`, all of them when empty) or the mode's own.
 */
export function dfColumns(mode: DfMode, printType: boolean, outputFields: readonly DfField[], numbers: DfNumbers, precision: number): DfColumn[] {
  const fields: Array<[DfField, string | undefined]> =
    mode === 'output' ? (outputFields.length > 0 ? outputFields : DF_FIELDS).map((field) => [field, outputCaption(field)]) : modeFields(mode, printType);
  return fields.map(([field, caption]) => {
    let header = caption ?? FIELD_DATA[field].caption;
    if (field === 'size' && (mode === 'default' || (mode === 'output' && !(numbers.humanOptions & HUMAN.autoscale)))) {
      header = blocksHeader(numbers, precision);
    } else if (field === 'size' && mode === 'posix') {
      header = `${numbers.blockSize}-${header}`;
    }
    return { field, header };
  });
}
