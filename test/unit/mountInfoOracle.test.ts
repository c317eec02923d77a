// parseMountInfo finds its fields in place, for speed (bench:mounts); the
// oracle is the plain reading it replaced: each line split on spaces, every
// field decoded, the options joined. Both read thousands of random lines
// made of the pieces mountinfo has (ids, device numbers, paths with octal
// escapes, option lists with ro, prjquota, upperdir=, the separator) and of
// what it should never have, and must agree on every entry they keep.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { answersFromMemory, isPseudoType, isRemote } from '../../dist/probe/fsTypes.js';
import { deviceKey, parseMountInfo } from '../../dist/probe/mountInfo.js';

const decode = (field: string): string =>
  field.includes('\\') ? field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))) : field;
const hasOption = (options: string, option: string): boolean => options.split(',').includes(option);

/** The split-based reading (proc(5)'s fields, in order), as the parser read mountinfo before it was rewritten. */
function oracle(text: string) {
  const entries = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0 || fields.length < separator + 3) continue;
    const numbers = fields[2]!;
    const colon = numbers.indexOf(':');
    const major = colon < 0 ? Number.NaN : Number(numbers.slice(0, colon));
    const minor = colon < 0 ? Number.NaN : Number(numbers.slice(colon + 1));
    const fsType = decode(fields[separator + 1]!);
    const device = decode(fields[separator + 2]!);
    const options = fields[5]!;
    const superOptions = fields[separator + 3] ?? '';
    entries.push({
      mountPoint: decode(fields[4]!),
      device,
      fsType,
      readOnly: hasOption(options, 'ro') || hasOption(superOptions, 'ro'),
      pseudo: isPseudoType(fsType),
      deviceKey: deviceKey(major, minor),
      root: decode(fields[3]!),
      remote: isRemote(fsType, device),
      mountId: Number(fields[0]),
      parentId: Number(fields[1]),
      answersFromMemory: answersFromMemory(fsType, options, superOptions),
    });
  }
  return entries;
}

const PIECES = [
  '',
  '-',
  '1',
  '22',
  '0:5',
  '8:1',
  'a:b',
  ':',
  '/',
  '/a',
  '/a\\040b',
  '\\134',
  'ro',
  'rw',
  'ro,x',
  'x,ro',
  'rw,ro,y',
  'ext4',
  'tmpfs',
  'overlay',
  'xfs',
  'proc',
  'upperdir=/x',
  'lowerdir=/a,upperdir=/b',
  'prjquota',
  'rw,prjquota',
  'ro,prjquota',
  'nfs',
  'nfs4',
  'srv:/e',
  '//srv/share',
  'fuse.sshfs',
  'shared:1',
  'master:2',
  '1e3',
  '0x10',
  '-1',
  '9999999999999999',
];
const line = fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).map((fields) => fields.join(' '));
/** A line as the kernel writes one: seven fields or more, the separator, type, source and super options. */
const wellFormed = fc
  .tuple(
    fc.nat(5000),
    fc.nat(5000),
    fc.constantFrom('0:5', '8:1', '259:3'),
    fc.constantFrom('/', '/sub', '/a\\040b'),
    fc.constantFrom('/', '/mnt', '/m\\011t'),
    fc.constantFrom('rw', 'ro', 'rw,relatime', 'ro,nosuid'),
    fc.array(fc.constantFrom('shared:1', 'master:2', 'unbindable'), { maxLength: 2 }),
    fc.constantFrom('ext4', 'tmpfs', 'overlay', 'xfs', 'nfs4', 'proc', 'fuse.sshfs'),
    fc.constantFrom('/dev/vda', 'tmpfs', 'srv:/e', 'overlay'),
    fc.constantFrom('rw', 'ro', 'rw,prjquota', 'rw,lowerdir=/l,upperdir=/u,workdir=/w', 'rw,pquota'),
  )
  .map(([id, parent, dev, root, point, options, optional, type, source, superOptions]) =>
    [id, parent, dev, root, point, options, ...optional, '-', type, source, superOptions].join(' '),
  );

describe('parseMountInfo against the split-based reading', () => {
  it('agrees on random lines, well formed or not', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(line, wellFormed), { minLength: 1, maxLength: 6 }), (lines) => {
        const text = lines.join('\n');
        expect(parseMountInfo(text)).toEqual(oracle(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads ro, project quotas and an overlay upper directory from the super options as from the mount options', () => {
    const [quota, overlay, readOnly] = parseMountInfo(
      [
        '36 1 8:1 / /q rw - xfs /dev/sdb rw,prjquota',
        '37 1 0:30 / /o rw - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w',
        '38 1 8:2 / /r rw - ext4 /dev/sdc ro',
      ].join('\n'),
    );
    expect(quota).toMatchObject({ mountPoint: '/q', answersFromMemory: false });
    expect(overlay).toMatchObject({ mountPoint: '/o', answersFromMemory: true });
    expect(readOnly).toMatchObject({ mountPoint: '/r', readOnly: true, answersFromMemory: true });
  });
});
