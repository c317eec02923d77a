// `diskprobe` typed at a terminal starts the stdio server, which would wait
// in silence and look hung (issue 27): with stdin a terminal it says on
// stderr what it is waiting for and how to stop; stdout stays the
// protocol's, and a host, which pipes stdin, never sees the note.
//
// The terminal is a real pseudo-terminal, made by python3's pty module: it is
// the server's controlling terminal and its stdin, while stdout and stderr
// are pipes read apart, and the test types Ctrl-D or Ctrl-C on it.
import { spawnSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { announceSkip, has } from '../helpers/system.js';
import { serverPath } from './mcpClient.js';

/** The note's last words: once stderr holds them, the note is whole. */
const NOTE_END = 'every command: `diskprobe --help`.\n';

/**
 * argv: what ends the note, the key to type, then the command. Runs the
 * command with a pseudo-terminal as stdin (and controlling terminal), stdout
 * and stderr on pipes; once stderr ends with the note, types the key. Prints
 * {status, signal, stdout, stderr, typed} as JSON.
 */
const ON_A_TERMINAL = `
import json, os, pty, select, sys, time
note_end, key, *command = sys.argv[1:]
out_r, out_w = os.pipe()
err_r, err_w = os.pipe()
pid, master = pty.fork()
if pid == 0:
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.execv(command[0], command)
os.close(out_w)
os.close(err_w)
got = {out_r: b'', err_r: b''}
reading = [out_r, err_r]
typed = False
deadline = time.monotonic() + 10
while reading and time.monotonic() < deadline:
    for fd in select.select(reading, [], [], 0.1)[0]:
        chunk = os.read(fd, 65536)
        if chunk:
            got[fd] += chunk
        else:
            reading.remove(fd)
    if not typed and got[err_r].endswith(note_end.encode()):
        os.write(master, key.encode())
        typed = True
if reading:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
print(json.dumps({
    'status': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
    'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
    'stdout': got[out_r].decode(), 'stderr': got[err_r].decode(), 'typed': typed,
}))
`;

interface TerminalRun {
  readonly status: number | null;
  readonly signal: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Whether the note came, and the key was typed. */
  readonly typed: boolean;
}

/** `diskprobe ARGS` with a terminal on stdin; `key` is typed once the note is on stderr. */
function onTerminal(args: readonly string[], key: string): TerminalRun {
  const run = spawnSync('python3', ['-c', ON_A_TERMINAL, NOTE_END, key, process.execPath, serverPath, ...args], { encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`python3's pty helper failed (status ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout) as TerminalRun;
}

const noPty = process.platform === 'win32' ? 'no pseudo-terminals on win32' : has('python3') ? undefined : 'needs python3 (its pty module makes the terminal)';

describe.skipIf(announceSkip('diskprobe at a terminal', noPty))('diskprobe at a terminal', () => {
  it.each([
    ['Ctrl-D', '\x04', []],
    ['Ctrl-C', '\x03', ['serve']],
  ])('says on stderr, never on stdout, that it is an MCP server waiting for a client; %s stops it with exit 0', (_name, key, args) => {
    const run = onTerminal(args, key);
    expect(run.typed, run.stderr).toBe(true);
    expect(run).toMatchObject({ status: 0, signal: null, stdout: '' });
    const note = run.stderr;
    expect(note).toMatch(/^diskprobe: this is an MCP server, speaking JSON-RPC on stdin and stdout; it is waiting for an MCP client/);
    for (const words of ['Ctrl-D', 'Ctrl-C', '`diskprobe --help`', '`diskprobe df`', '`diskprobe du`']) expect(note).toContain(words);
    expect(note.trim().split('\n')).toHaveLength(2);
  });

  it('says nothing when stdin is a pipe, as a host gives it: its answer alone, on stdout', () => {
    const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;
    const run = spawnSync(process.execPath, [serverPath], { input: initialize, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  });
});
