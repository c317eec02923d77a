// Builds bench/floor.c and wraps it as a bench contender: the cost of the
// probe's system calls with no JavaScript, N-API or libuv around them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('floor.c', import.meta.url));

/**
 * Compiles floor.c with `$CC` (default cc) -O2 into a fresh temporary
 * directory. Returns { binary, compiler, dispose() }, or { skipped: reason }
 * when there is no working compiler.
 */
export function buildFloor() {
  const compiler = process.env.CC || 'cc';
  const dir = mkdtempSync(join(tmpdir(), 'diskprobe-bench-'));
  const binary = join(dir, 'floor');
  const result = spawnSync(compiler, ['-O2', '-o', binary, SOURCE], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const why = result.error ? result.error.message : result.stderr.trim().split('\n')[0];
    return { skipped: `could not compile bench/floor.c with ${compiler} (${why})` };
  }
  const version = spawnSync(compiler, ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0] ?? compiler;
  return { binary, compiler: version, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A contender that runs `binary` for one batch of `calls` probes in `mode`
 * ("statvfs+stat", "statvfs" or "statfs": see floor.c). The program times itself, so process start-up
 * is not counted; it also runs one unreported warm-up batch first.
 */
export function floorContender(name, binary, path, mode) {
  return {
    name,
    measure(calls) {
      const result = spawnSync(binary, [path, String(calls), '1', mode], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`bench/floor.c (${mode}) failed: ${result.stderr.trim() || result.error?.message}`);
      // Another process: its CPU time is not ours to read, and it is
      // single-threaded and never waits, so wall time says it all.
      return { wallNs: Number(result.stdout.trim()), cpuNs: undefined };
    },
  };
}
