// Reading the command line, and wording failures, without starting a process.
import { describe, expect, it } from 'vitest';

import { parseCommandLine } from '../../dist/cli/commandLine.js';
import type { DfOptions } from '../../dist/cli/df/dfCommandLine.js';
import { DfUsageError, UsageError } from '../../dist/cli/usageError.js';
import { failureReason } from '../../dist/format/failureReason.js';

const df = (fields: object = {}) => ({ kind: 'df', options: expect.objectContaining({ json: false, timeout: 5000, paths: [], ...fields }) });
/** The columns of df -hT's table, diskprobe df's default. */
const HT = ['source', 'fstype', 'size', 'used', 'avail', 'pcent', 'target'];
/** The options of `diskprobe df ARGS`. */
const dfOptions = (args: string[], env: Record<string, string> = {}) => (parseCommandLine(['df', ...args], env) as { options: DfOptions }).options;
const fields = (args: string[]) => dfOptions(args).columns.map((column) => column.field);

describe('parseCommandLine', () => {
  it('reads the df command, its options and paths', () => {
    expect(parseCommandLine(['df'])).toEqual(df({ humanTable: true }));
    expect(parseCommandLine(['df', '--json', '/', '--inodes', '/tmp'])).toEqual(df({ json: true, paths: ['/', '/tmp'] }));
    expect(parseCommandLine(['df', '--timeout', '250', '/'])).toEqual(df({ timeout: 250, paths: ['/'] }));
    expect(parseCommandLine(['df', '--timeout=1', '--', '-odd-name'])).toEqual(df({ timeout: 1, paths: ['-odd-name'] }));
    expect(parseCommandLine(['df', '-v', '/'])).toEqual(df({ paths: ['/'], humanTable: true })); // df ignores -v too
    expect(parseCommandLine(['df', '-a', '-l', '-t', 'a', '--type=b', '-xc', '--total', '/'])).toEqual(
      df({ all: true, local: true, types: ['a', 'b'], excludeTypes: ['c'], total: true, paths: ['/'], humanTable: true }),
    );
  });

  it("keeps df -hT's table without a format flag, and df's own columns with one", () => {
    expect(fields([])).toEqual(HT);
    expect(fields(['-a', '--total', '-l', '-v'])).toEqual(HT);
    expect(fields(['-h'])).toEqual(HT.filter((field) => field !== 'fstype'));
    expect(fields(['-T'])).toEqual(HT);
    expect(fields(['-i'])).toEqual(['source', 'itotal', 'iused', 'iavail', 'ipcent', 'target']);
    expect(fields(['--output'])).toEqual(['source', 'fstype', 'itotal', 'iused', 'iavail', 'ipcent', 'size', 'used', 'avail', 'pcent', 'file', 'target']);
    expect(fields(['--output=file,size', '--output=target'])).toEqual(['file', 'size', 'target']);
    const headers = (args: string[]) => dfOptions(args).columns.map((column) => column.header);
    expect(headers(['-BK'])).toEqual(['Filesystem', '1K-blocks', 'Used', 'Available', 'Use%', 'Mounted on']);
    expect(headers(['-B1000'])[1]).toBe('1kB-blocks');
    expect(headers(['-B512'])[1]).toBe('512B-blocks');
    expect(headers(['-B1500'])[1]).toBe('1.5kB-blocks');
    expect(headers(['-P'])).toEqual(['Filesystem', '1024-blocks', 'Used', 'Available', 'Capacity', 'Mounted on']);
    expect(headers(['-h'])).toEqual(['Filesystem', 'Size', 'Used', 'Avail', 'Use%', 'Mounted on']);
  });

  it('reads the block size variables only when a format flag is given, as df would', () => {
    const numbers = (args: string[], env: Record<string, string>) => dfOptions(args, env).numbers;
    expect(numbers(['-T'], { DF_BLOCK_SIZE: '1M' })).toEqual({ humanOptions: 0, blockSize: '1048576' });
    expect(numbers(['-T'], { BLOCK_SIZE: 'KiB' })).toEqual({ humanOptions: 128 | 32 | 256, blockSize: '1024' });
    expect(numbers(['-T'], { BLOCKSIZE: "'1k" })).toEqual({ humanOptions: 4, blockSize: '1024' });
    expect(numbers(['-T'], { POSIXLY_CORRECT: '1' })).toEqual({ humanOptions: 0, blockSize: '512' });
    expect(numbers(['-P'], { DF_BLOCK_SIZE: '2K' })).toEqual({ humanOptions: 0, blockSize: '1024' });
    expect(numbers([], { DF_BLOCK_SIZE: '2K' })).toEqual({ humanOptions: 16 | 128 | 32, blockSize: '1' });
    // Options after operands are options, unless POSIXLY_CORRECT says operands end them.
    expect(parseCommandLine(['df', '/', '-T'], {})).toEqual(df({ paths: ['/'] }));
    expect(parseCommandLine(['df', '/', '-T'], { POSIXLY_CORRECT: '1' })).toEqual(df({ paths: ['/', '-T'] }));
  });

  it('asks for help or the version before anything else', () => {
    const help = (topic?: string) => ({ kind: 'help', topic });
    expect(parseCommandLine(['--help'])).toEqual(help());
    expect(parseCommandLine(['-h'])).toEqual(help());
    expect(parseCommandLine(['df', '--help'])).toEqual(help('df'));
    expect(parseCommandLine(['serve', '--help'])).toEqual(help('serve'));
    expect(parseCommandLine(['metrics', '-h'])).toEqual(help('metrics'));
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
    // Wherever they stand, before a "--"; -h too, except after df, where it is df's.
    expect(parseCommandLine(['--help', 'df'])).toEqual(help());
    expect(parseCommandLine(['-h', 'df'])).toEqual(help());
    expect(parseCommandLine(['--help', '--bogus'])).toEqual(help());
    expect(parseCommandLine(['df', '/', '--help'])).toEqual(help('df'));
    expect(parseCommandLine(['df', '--bogus', '--help'])).toEqual(help('df'));
    expect(parseCommandLine(['df', '--he'])).toEqual(help('df')); // getopt's abbreviation
    expect(parseCommandLine(['df', '-h', '/'])).toMatchObject({ kind: 'df', options: { humanTable: false } });
    expect(parseCommandLine(['serve', '--probe-timeout', '9', '--version'])).toEqual({ kind: 'version' });
    expect(parseCommandLine(['df', '--', '--help'])).toEqual(df({ paths: ['--help'] }));
  });

  it('runs the server with no arguments or "serve", with its options', () => {
    const defaults = { probeTimeout: 5000, logLevel: 'warning', maxMessageBytes: 4 * 1024 * 1024, roots: [], walkBudget: 20_000 };
    expect(parseCommandLine([])).toEqual({ kind: 'serve', options: defaults });
    expect(parseCommandLine(['serve'])).toEqual({ kind: 'serve', options: defaults });
    expect(
      parseCommandLine(['--probe-timeout', '250', '--log-level', 'debug', '--max-message-bytes', '1000', '--root', '/a', '--root=/b', '--walk-budget', '900']),
    ).toEqual({
      kind: 'serve',
      options: { probeTimeout: 250, logLevel: 'debug', maxMessageBytes: 1000, roots: ['/a', '/b'], walkBudget: 900 },
    });
    expect(parseCommandLine(['serve', '--probe-timeout=9'])).toMatchObject({ options: { probeTimeout: 9 } });
  });

  it('takes several directories after one --root, as an MCP Bundle host passes a multiple setting', () => {
    expect(parseCommandLine(['serve', '--root', '/a', '/b c', '/d'])).toMatchObject({ options: { roots: ['/a', '/b c', '/d'] } });
    expect(parseCommandLine(['serve', '--probe-timeout', '5000', '--root', '/a', '/b'])).toMatchObject({
      options: { roots: ['/a', '/b'], probeTimeout: 5000 },
    });
    expect(parseCommandLine(['--root', '/a', '/b', '--root', '/c', '--probe-timeout', '9'])).toMatchObject({
      options: { roots: ['/a', '/b', '/c'], probeTimeout: 9 },
    });
    // Only after --root: elsewhere, and after "--", an argument is a mistake.
    expect(() => parseCommandLine(['serve', '--probe-timeout', '9', '/a'])).toThrow("unexpected argument '/a'");
    expect(() => parseCommandLine(['serve', '--root', '/a', '--', '/b'])).toThrow("unexpected argument '/b'");
  });

  it.each([
    [['--probe-timeout', '0'], "option '--probe-timeout' needs a whole number of milliseconds from 1 to 2147483647, not '0'"],
    [['serve', '--log-level', 'loud'], "option '--log-level' must be one of debug, info, notice, warning, error, critical, alert, emergency, not 'loud'"],
    [['--max-message-bytes', 'lots'], "option '--max-message-bytes' needs a whole number of bytes from 1 to 2147483647, not 'lots'"],
    [['serve', 'extra'], "unexpected argument 'extra'"],
  ])('refuses bad server options: %j', (args, message) => {
    expect(() => parseCommandLine(args)).toThrow(message);
  });

  it.each([
    [['--foo'], "unknown option '--foo'"],
    [['--json', 'df'], "unknown option '--json'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('refuses %j: %s', (args, message) => {
    expect(() => parseCommandLine(args)).toThrow(new UsageError(message));
  });

  it.each([
    [['--foo'], "unrecognized option '--foo'"],
    [['-x'], "option requires an argument -- 'x'"],
    [['-hz'], "invalid option -- 'z'"],
    [['--timeout'], "option '--timeout' requires an argument"],
    [['--json=yes'], "option '--json' doesn't allow an argument"],
    [['--t'], "option '--t' is ambiguous; possibilities: '--total' '--type' '--timeout'"],
    [['--timeout', 'soon'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not 'soon'"],
    [['--timeout', '0'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not '0'"],
    [['--timeout', '1.5'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not '1.5'"],
    [['--timeout', '2147483648'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not '2147483648'"],
  ])('refuses df %j as GNU df refuses a bad option: %s, status 1', (args, message) => {
    let thrown: unknown;
    try {
      parseCommandLine(['df', ...args], {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DfUsageError);
    expect((thrown as DfUsageError).status).toBe(1);
    expect((thrown as DfUsageError).report()).toBe(`diskprobe: ${message}\nTry 'diskprobe df --help' for more information.\n`);
  });
});

function fsError(code: string, message: string, fields: object = {}): Error {
  return Object.assign(new Error(message), { code, syscall: 'statvfs', path: '/x', ...fields });
}

describe('failureReason', () => {
  it('drops the code and the syscall clause the line already says', () => {
    expect(failureReason(fsError('ENOENT', "ENOENT: no such file or directory, statvfs '/x'"), 5000)).toBe('no such file or directory');
    expect(failureReason(fsError('EACCES', "EACCES: permission denied, statvfs '/a, b'"), 5000)).toBe('permission denied');
  });

  it('says how long a mount that did not answer was given', () => {
    const timedOut = fsError('ETIMEDOUT', "ETIMEDOUT: mount /mnt not responding after 300 ms, statfs '/mnt'", { timeout: 300, mountPoint: '/mnt' });
    expect(failureReason(timedOut, 5000)).toBe('not responding after 300 ms');
    expect(failureReason(fsError('ETIMEDOUT', 'ETIMEDOUT: stuck'), 700)).toBe('not responding after 700 ms');
  });

  it('keeps other messages whole', () => {
    expect(failureReason(new Error('something else'), 5000)).toBe('something else');
    expect(failureReason('a string', 5000)).toBe('a string');
  });
});
