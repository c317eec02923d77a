// Reading the command line, and wording failures, without starting a process.
import { describe, expect, it } from 'vitest';

import { parseCommandLine, UsageError } from '../../dist/cli/commandLine.js';
import { failureReason } from '../../dist/format/failureReason.js';

const df = (fields: object = {}) => ({ kind: 'df', options: { json: false, inodes: false, timeout: 5000, paths: [], ...fields } });

describe('parseCommandLine', () => {
  it('reads the df command, its options and paths', () => {
    expect(parseCommandLine(['df'])).toEqual(df());
    expect(parseCommandLine(['df', '--json', '/', '--inodes', '/tmp'])).toEqual(df({ json: true, inodes: true, paths: ['/', '/tmp'] }));
    expect(parseCommandLine(['df', '--timeout', '250', '/'])).toEqual(df({ timeout: 250, paths: ['/'] }));
    expect(parseCommandLine(['df', '--timeout=1', '--', '-odd-name'])).toEqual(df({ timeout: 1, paths: ['-odd-name'] }));
    // df's habits: -h and -T change nothing (always so), -i is --inodes.
    expect(parseCommandLine(['df', '-hT', '/'])).toEqual(df({ paths: ['/'] }));
    expect(parseCommandLine(['df', '-h'])).toEqual(df());
    expect(parseCommandLine(['df', '-hiT', '/'])).toEqual(df({ inodes: true, paths: ['/'] }));
    expect(parseCommandLine(['df', '-i', '--json'])).toEqual(df({ inodes: true, json: true }));
    expect(parseCommandLine(['df', '-v', '/'])).toEqual(df({ paths: ['/'] })); // df ignores -v too
  });

  it('asks for help or the version before anything else', () => {
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['-h'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['df', '--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
    // Wherever they stand, before a "--"; -h too, except after df, where it is df's.
    expect(parseCommandLine(['--help', 'df'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['-h', 'df'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--help', '--bogus'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['df', '/', '--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['serve', '--probe-timeout', '9', '--version'])).toEqual({ kind: 'version' });
    expect(parseCommandLine(['df', '--', '--help'])).toEqual(df({ paths: ['--help'] }));
  });

  it('runs the server with no arguments or "serve", with its options', () => {
    const defaults = { probeTimeout: 5000, logLevel: 'warning', maxMessageBytes: 4 * 1024 * 1024, roots: [] };
    expect(parseCommandLine([])).toEqual({ kind: 'serve', options: defaults });
    expect(parseCommandLine(['serve'])).toEqual({ kind: 'serve', options: defaults });
    expect(parseCommandLine(['--probe-timeout', '250', '--log-level', 'debug', '--max-message-bytes', '1000', '--root', '/a', '--root=/b'])).toEqual({
      kind: 'serve',
      options: { probeTimeout: 250, logLevel: 'debug', maxMessageBytes: 1000, roots: ['/a', '/b'] },
    });
    expect(parseCommandLine(['serve', '--probe-timeout=9'])).toMatchObject({ options: { probeTimeout: 9 } });
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
    [['df', '--foo'], "unknown option '--foo'"],
    [['df', '-x'], "unknown option '-x'"],
    [['--json', 'df'], "unknown option '--json'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['df', '--timeout'], "option '--timeout <value>' argument missing"],
    [['df', '--json=yes'], "option '--json' does not take an argument"],
    [['df', '--timeout', 'soon'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not 'soon'"],
    [['df', '--timeout', '0'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not '0'"],
    [['df', '--timeout', '1.5'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not '1.5'"],
    [['df', '--timeout', '2147483648'], "option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not '2147483648'"],
  ])('refuses %j: %s', (args, message) => {
    expect(() => parseCommandLine(args)).toThrow(new UsageError(message));
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
