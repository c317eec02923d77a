// The built command end to end: argument handling, exit statuses, and df's
// output on this machine's root file system.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { type DfOptions, parseDfCommandLine } from '../../dist/cli/df/dfCommandLine.js';
import { announceSkip, df, gnuDfSkipReason, has, linuxSkipReason, posixPathsSkipReason, projectRoot, tempDir } from '../helpers/system.js';
import { cliPath, gnuDf, ownStderr, runCli, tableRows, whileStill } from './cliProcess.js';

/** The options `diskprobe df ARGS` sends its worker. */
const dfOptions = (args: string[]): DfOptions => (parseDfCommandLine(args, {}) as { options: DfOptions }).options;

const MISSING = '/nonexistent-diskprobe-cli-test';

describe('diskprobe', () => {
  it('prints usage on stdout and exits 0 for --help and -h: the commands, each with its summary, and how to get its help', () => {
    for (const flag of ['--help', '-h']) {
      const result = runCli([flag]);
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/^Usage: diskprobe /);
      const commands = result.stdout.split('Commands:\n')[1]!.split('\n\n')[0]!.split('\n');
      expect(commands.map((line) => line.trim().split(/\s+/)[0])).toEqual(['serve', 'df', 'du', 'explain', 'metrics']);
      for (const line of commands) expect(line).toMatch(/^ {2}\w+ +\S.{20,}/);
      expect(result.stdout).toContain("Run 'diskprobe <command> --help'");
      // Each command's options are in its own help, not here.
      expect(result.stdout).not.toContain('--probe-timeout');
      expect(result.stdout).not.toContain('--listen');
      expect(result.stderr).toBe('');
    }
  });

  it.each([
    [['df', '--help'], 'Usage: diskprobe df ', ['--block-size=SIZE', '--output[=FIELD_LIST]', '--timeout <ms>', '--json'], ['--probe-timeout', '--listen']],
    [['serve', '--help'], 'Usage: diskprobe [serve] ', ['--probe-timeout <ms>', '--http [host:]port'], ['--listen', '--block-size']],
    [['serve', '-h'], 'Usage: diskprobe [serve] ', ['--probe-timeout <ms>'], ['--listen']],
    [['metrics', '--help'], 'Usage: diskprobe metrics ', ['--listen [host:]port', '--prefix <name>'], ['--probe-timeout', '--block-size']],
    [['metrics', '-h'], 'Usage: diskprobe metrics ', ['--listen [host:]port'], ['--probe-timeout']],
    [['explain', '--help'], 'Usage: diskprobe explain ', ['--probe-timeout <ms>', '--json', '--timeout <ms>'], ['--listen', '--block-size']],
    [['df', '/', '--help'], 'Usage: diskprobe df ', ['--total'], ['--listen']],
    [['du', '--help'], 'Usage: diskprobe du ', ['--max-depth=N', '--top N', '--json', '--timeout <ms>', '--threads <n>'], ['--probe-timeout', '--output']],
    [['du', '-s', '/', '--help'], 'Usage: diskprobe du ', ['--summarize'], ['--listen']],
  ])('prints only its own help for %j', (args, start, has, hasNot) => {
    const result = runCli(args);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.startsWith(start)).toBe(true);
    for (const text of has) expect(result.stdout).toContain(text);
    for (const text of hasNot) expect(result.stdout).not.toContain(text);
  });

  it("prints package.json's version for --version", () => {
    const { version } = JSON.parse(readFileSync(`${projectRoot}package.json`, 'utf8')) as { version: string };
    expect(runCli(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    [['--foo'], "diskprobe: unknown option '--foo'. Run 'diskprobe --help' for usage.\n"],
    [['metrics', '--foo'], "diskprobe: unknown option '--foo'. Run 'diskprobe --help' for usage.\n"],
    [['frobnicate'], "diskprobe: unknown command 'frobnicate'. Run 'diskprobe --help' for usage.\n"],
  ])('refuses %j with one line on stderr and exit status 2', (args, message) => {
    expect(runCli(args)).toEqual({ status: 2, stdout: '', stderr: message });
  });

  it.each([
    [['df', '--foo'], "diskprobe: unrecognized option '--foo'\nTry 'diskprobe df --help' for more information.\n"],
    [
      ['df', '--timeout', 'soon'],
      "diskprobe: option '--timeout' needs a whole number of milliseconds from 1 to 2147483647, not 'soon'\nTry 'diskprobe df --help' for more information.\n",
    ],
  ])("refuses df's %j as GNU df refuses a bad option, exit status 1", (args, message) => {
    expect(runCli(args)).toEqual({ status: 1, stdout: '', stderr: message });
  });

  it('says in one line on stderr, exit status 1, that DISKPROBE_BACKEND=native cannot load the addon', () => {
    // A copy of the package with no addon to find (no build/, no prebuilds/).
    const copy = tempDir('diskprobe-noaddon-');
    try {
      cpSync(join(projectRoot, 'dist'), join(copy, 'dist'), { recursive: true });
      cpSync(join(projectRoot, 'package.json'), join(copy, 'package.json'));
      symlinkSync(join(projectRoot, 'node_modules'), join(copy, 'node_modules'));
      for (const args of [
        ['df', '/'],
        ['df', '--json'],
      ]) {
        const result = spawnSync(process.execPath, [join(copy, 'dist/bin/diskprobe.js'), ...args], {
          encoding: 'utf8',
          env: { ...process.env, DISKPROBE_BACKEND: 'native' },
        });
        expect(result.status).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^diskprobe: DISKPROBE_BACKEND=native, but diskprobe's native addon could not be loaded: /);
        expect(result.stderr).toContain('unset DISKPROBE_BACKEND to use the fs.statfs fallback');
        expect(result.stderr).not.toMatch(/\n\s+at |Node\.js v|worker ended unexpectedly/);
      }
      // Without the variable, the fallback answers.
      const fallback = spawnSync(process.execPath, [join(copy, 'dist/bin/diskprobe.js'), 'df', '--json', '/'], {
        encoding: 'utf8',
        env: { ...process.env, DISKPROBE_BACKEND: '' },
      });
      expect(fallback.status).toBe(0);
      expect((JSON.parse(fallback.stdout) as Array<{ backend: string }>)[0]!.backend).toBe('statfs');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it.skipIf(announceSkip('df with a closed or full stdout', existsSync('/dev/full') && has('bash') ? undefined : 'needs /dev/full and bash'))(
    'ends quietly when its reader goes away, and says "write error" when stdout is full, exit status 1 either way',
    () => {
      for (const command of ['df', '--help', '--version', 'df --help']) {
        // `| true` exits without reading, so the write finds the pipe closed.
        const closed = spawnSync('bash', ['-c', `"$0" "$1" ${command} | true; echo "status \${PIPESTATUS[0]}"`, process.execPath, cliPath], {
          encoding: 'utf8',
        });
        expect(ownStderr(closed.stderr), command).toBe('');
        expect(closed.stdout, command).toMatch(/^status [01]\n$/); // 0 when the write beat the reader's exit
        const full = spawnSync('bash', ['-c', `"$0" "$1" ${command} > /dev/full; echo "status $?"`, process.execPath, cliPath], { encoding: 'utf8' });
        expect(ownStderr(full.stderr), command).toMatch(/^diskprobe: write error: ENOSPC: no space left on device/);
        expect(ownStderr(full.stderr).trim().split('\n'), command).toHaveLength(1);
        expect(full.stdout, command).toBe('status 1\n');
      }
    },
  );

  it('runs the MCP server with no arguments or "serve", and ends at EOF', () => {
    for (const args of [[], ['serve']]) {
      // runCli gives the server no input: EOF at once, nothing to answer.
      expect(runCli(args)).toEqual({ status: 0, stdout: '', stderr: '' });
    }
  });

  it('is self-contained: the bundled bin and its df worker run with none of the rest of dist/ beside them', () => {
    // The bin must never load a second copy of the probe from dist/ (two
    // dead-mount guards, two addon callbacks): so give it nothing to load.
    // Only the fallback's helper, a separate process, is spawned from dist/probe/.
    const copy = tempDir('diskprobe-bin-');
    try {
      cpSync(join(projectRoot, 'dist/bin'), join(copy, 'dist/bin'), { recursive: true });
      cpSync(join(projectRoot, 'dist/probe/statfsHelper.js'), join(copy, 'dist/probe/statfsHelper.js'));
      cpSync(join(projectRoot, 'package.json'), join(copy, 'package.json'));
      for (const dir of ['build', 'prebuilds']) {
        if (existsSync(join(projectRoot, dir))) cpSync(join(projectRoot, dir), join(copy, dir), { recursive: true });
      }
      symlinkSync(join(projectRoot, 'node_modules'), join(copy, 'node_modules'));
      const bin = join(copy, 'dist/bin/diskprobe.js');
      for (const backend of ['native', 'statfs']) {
        const env = { ...process.env, DISKPROBE_BACKEND: backend };
        const table = spawnSync(process.execPath, [bin, 'df'], { encoding: 'utf8', env });
        expect(ownStderr(table.stderr)).toBe('');
        expect(table.stdout).toMatch(/^Filesystem +Type +Size +Used +Avail +Use% +Mounted on\n/);
        const json = spawnSync(process.execPath, [bin, 'df', '--json', '/'], { encoding: 'utf8', env });
        expect(json.stderr).toBe('');
        expect((JSON.parse(json.stdout) as Array<{ backend: string }>)[0]!.backend).toBe(backend);
      }
      // The worker `diskprobe df` starts when a mount may block, driven as isolated.ts drives it.
      const worker = spawnSync(
        process.execPath,
        [
          '-e',
          `const child = require('node:child_process').fork(${JSON.stringify(join(copy, 'dist/bin/isolatedWorker.js'))}, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
           child.on('message', (message) => { if ('status' in message) process.exitCode = message.status; else process[message.stream].write(message.text); });
           child.send({ job: { command: 'df', options: ${JSON.stringify(dfOptions(['--json', '/']))} }, isTTY: false });`,
        ],
        { encoding: 'utf8' },
      );
      expect(worker.stderr).toBe('');
      expect(worker.status).toBe(0);
      expect((JSON.parse(worker.stdout) as Array<{ mountPoint: string }>)[0]!.mountPoint).toBe('/');
      const served = spawnSync(process.execPath, [bin, 'serve'], {
        encoding: 'utf8',
        input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      });
      expect(served.status).toBe(0);
      expect((JSON.parse(served.stdout) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe.skipIf(announceSkip('diskprobe df on /', posixPathsSkipReason))('diskprobe df', () => {
  it.skipIf(announceSkip('diskprobe df --json vs df -B1', gnuDfSkipReason))('gives the exact byte counts of df -B1 in --json', () => {
    const { gnu, ours } = whileStill(
      () => {
        const { size, used, avail } = df('/');
        return [size, used, avail];
      },
      () => {
        const [usage] = JSON.parse(runCli(['df', '--json', '/']).stdout) as Array<{ total: number; used: number; available: number }>;
        expect([usage!.total, usage!.used, usage!.available].every(Number.isInteger)).toBe(true);
        return [usage!.total, usage!.used, usage!.available].map(BigInt);
      },
    );
    expect(ours).toEqual(gnu);
  });

  it('shows, listing every file system, the probe that found it not empty: never a size-0 row, even with a timeout too short for some probes', () => {
    // The emptiness check and the row shown were two probes once: with a 1 ms
    // timeout the first could time out (kept, as df keeps a mount it cannot
    // read) and the second answer 0 bytes, listing a cgroup file system.
    for (let run = 0; run < 3; run++) {
      for (const timeout of ['1', '2']) {
        const listed = runCli(['df', '--json', '--timeout', timeout]);
        for (const entry of JSON.parse(listed.stdout) as Array<{ total: number | null; mountPoint: string; error: unknown }>) {
          if (entry.error === null) expect(entry.total, entry.mountPoint).toBeGreaterThan(0);
        }
      }
    }
  });

  it('reports a missing path on stderr, still prints the others, and exits 1', () => {
    const table = runCli(['df', MISSING, '/']);
    expect(table.status).toBe(1);
    expect(table.stderr).toBe(`diskprobe: ${MISSING}: no such file or directory\n`);
    expect(tableRows(table.stdout).map((row) => row[6])).toEqual(['/']);

    const json = runCli(['df', '--json', '/', MISSING]);
    expect(json.status).toBe(1);
    expect(json.stderr).toBe(`diskprobe: ${MISSING}: no such file or directory\n`);
    // Every path asked about, in order; the one that failed with its error.
    const entries = JSON.parse(json.stdout) as Array<{ path: string; mountPoint: string | null; total: number | null; error: unknown }>;
    expect(entries.map((entry) => [entry.path, entry.mountPoint])).toEqual([
      ['/', '/'],
      [MISSING, null],
    ]);
    expect(entries[0]).toMatchObject({ error: null, device: expect.any(String), readOnly: expect.any(Boolean) });
    expect(entries[1]).toMatchObject({ total: null, device: null, error: { code: 'ENOENT', message: 'no such file or directory' } });
  });

  it('quotes a failing name as df does, so a newline or a terminal escape in it cannot break or forge a line', () => {
    const failed = runCli(['df', '/no\nsuch', '/\x1b[31mred', '']);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toBe(
      "diskprobe: '/no'$'\\n''such': no such file or directory\ndiskprobe: '/'$'\\033''[31mred': no such file or directory\ndiskprobe: '': no such file or directory\n",
    );
  });

  it('prints only errors when every path fails, and in JSON an entry with its error for each', () => {
    expect(runCli(['df', MISSING])).toEqual({ status: 1, stdout: '', stderr: `diskprobe: ${MISSING}: no such file or directory\n` });
    const json = runCli(['df', '--json', MISSING]);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        path: MISSING,
        mountPoint: null,
        device: null,
        fsType: null,
        readOnly: null,
        total: null,
        free: null,
        available: null,
        used: null,
        usedPercent: null,
        blockSize: null,
        inodes: null,
        backend: expect.stringMatching(/^(native|statfs)$/),
        error: { code: 'ENOENT', message: 'no such file or directory' },
      },
    ]);
  });

  it.skipIf(announceSkip('diskprobe df headers vs GNU df', gnuDfSkipReason))("prints df -i's header with --inodes, and df -hT's with no format flag", () => {
    const header = (text: string) => text.split('\n')[0];
    expect(header(runCli(['df', '--inodes', '/']).stdout)).toBe(header(gnuDf(['-i', '/'])));
    expect(header(runCli(['df', '-hiT', '/']).stdout)).toBe(header(gnuDf(['-hiT', '/'])));
    expect(header(runCli(['df', '/']).stdout)).toBe(header(gnuDf(['-hT', '/'])));
  });

  it.skipIf(announceSkip('diskprobe df row vs GNU df -hT', gnuDfSkipReason))('names the file system holding a path, as df does', () => {
    const gnu = tableRows(gnuDf(['-hT', projectRoot]))[0]!;
    const ours = tableRows(runCli(['df', projectRoot]).stdout)[0]!;
    // Filesystem, Type, Size and Mounted on; Used and Avail move with the disk.
    expect([ours[0], ours[1], ours[2], ours[6]]).toEqual([gnu[0], gnu[1], gnu[2], gnu[6]]);
  });

  it.skipIf(announceSkip('diskprobe df of a device node vs GNU df -hT', gnuDfSkipReason))(
    'reports the file system mounted from a device node given as a path, as df does',
    () => {
      // Block devices mounted here (/dev/vda on /, ...), but not by other tests, which mount
      // and unmount under /tmp meanwhile; and a node that is no mount's (/dev/null: its own /dev).
      const mounted = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .filter((line) => line.split(' ')[4]?.startsWith('/tmp/') === false);
      const sources = mounted.map((line) => line.split(' - ')[1]?.split(' ')[1] ?? '');
      const devices = [...new Set(sources.filter((device) => device.startsWith('/dev/') && existsSync(device) && statSync(device).isBlockDevice()))].slice(
        0,
        3,
      );
      for (const node of [...devices, '/dev/null']) {
        const gnu = tableRows(gnuDf(['-hT', node]))[0]!;
        const ours = tableRows(runCli(['df', node]).stdout)[0]!;
        expect([ours[0], ours[1], ours[2], ours[6]], node).toEqual([gnu[0], gnu[1], gnu[2], gnu[6]]);
      }
    },
  );

  it.skipIf(announceSkip('diskprobe df in mountinfo order', linuxSkipReason))('lists the mounted file systems in mount-table order without paths', () => {
    // The fallback backend, so a dead mount another test has up cannot keep
    // this process from exiting (see deadMount.test.ts).
    const result = runCli(['df', '--json', '--timeout', '2000'], { DISKPROBE_BACKEND: 'statfs' });
    expect([0, 1]).toContain(result.status);
    const listed = (JSON.parse(result.stdout) as Array<{ mountPoint: string }>).map((usage) => usage.mountPoint);
    expect(listed).toContain('/');
    // Mount points as mountinfo spells them, with its octal escapes (\040 for a space) undone.
    const unescapeOctal = (field = ''): string => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    const table = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => unescapeOctal(line.split(' ')[4]));
    const once = listed.filter((point) => table.indexOf(point) === table.lastIndexOf(point));
    const positions = once.map((point) => table.indexOf(point));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});
