// The fallback backend's worker process: runs fs.statfsSync and fs.statSync
// for the parent, so that a dead mount blocks this process instead of the
// parent's event loop or a libuv pool thread (which Node would wait for at
// exit). Requests on stdin, one per line: `<id>\t<JSON path>`. Answers on
// stdout, one JSON array per line: [id, 0, bsize, blocks, bfree, bavail,
// files, ffree, dev] or [id, code, syscall]. Counts are decimal strings.
//
// `node statfsHelper.js --once <path>` writes [-1] once started, answers for
// one path and exits.
//
// Its stdout is a pipe private to the parent (statfsHelperPool.ts, or
// spawnSync in statfsBackend.ts), never an MCP host's: the helper acts only
// when it is the process's main module, so importing it writes nothing.
import { statfsSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function answer(id: number, path: string): string {
  try {
    const fs = statfsSync(path, { bigint: true });
    const st = statSync(path, { bigint: true });
    const counts = [fs.bsize, fs.blocks, fs.bfree, fs.bavail, fs.files, fs.ffree, st.dev].map(String);
    return `${JSON.stringify([id, 0, ...counts])}\n`;
  } catch (error) {
    const { code = 'EIO', syscall = 'statfs' } = error as NodeJS.ErrnoException;
    return `${JSON.stringify([id, code, syscall])}\n`;
  }
}

/** Whether this file is what `node` was asked to run (paths compare without case on Windows). */
function isMain(): boolean {
  const fold = (path: string): string => (process.platform === 'win32' ? resolve(path).toLowerCase() : resolve(path));
  return process.argv[1] !== undefined && fold(process.argv[1]) === fold(fileURLToPath(import.meta.url));
}

if (isMain()) {
  // The reader may be gone (it timed out): exit quietly instead of crashing on EPIPE.
  process.stdout.on('error', () => process.exit(0));

  if (process.argv[2] === '--once') {
    // Started, written before the probe and synchronously (a pipe is
    // asynchronous on macOS): a parent that times out can tell a stuck probe
    // from a helper that had not yet started.
    writeSync(1, '[-1]\n');
    process.stdout.write(answer(0, process.argv[3] ?? ''));
  } else {
    // Started: the parent times calls from here, not from the spawn.
    process.stdout.write('[-1]\n');
    let pending = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      pending += chunk;
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        const tab = line.indexOf('\t');
        process.stdout.write(answer(Number(line.slice(0, tab)), JSON.parse(line.slice(tab + 1)) as string));
      }
    });
    // The parent is gone, or retired this helper: nothing left to answer.
    process.stdin.on('end', () => process.exit(0));
  }
}
