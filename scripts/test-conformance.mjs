// `npm run test:conformance`: the official MCP conformance suite
// (@modelcontextprotocol/conformance 0.2.0-alpha.12) against `diskprobe
// serve --http`, twice: every scenario 2026-07-28 requires, and every
// 2025-11-25 one. The suite needs Node 22, so it and the npm package node@22
// live in test/conformance/ (their own lockfile), installed there on first
// use; the server runs on this Node (20). What diskprobe is excused from,
// and why, is in test/conformance/baseline-*.yml: each entry needs one of
// the suite's own test fixtures. Any other failure fails the run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const suiteDir = join(root, 'test', 'conformance');
const node22 = join(suiteDir, 'node_modules', 'node', 'bin', 'node');
const suite = join(suiteDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

if (!existsSync(suite) || !existsSync(node22)) {
  console.log('test:conformance: installing the suite and Node 22 into test/conformance/ from its lockfile');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: suiteDir, stdio: 'inherit' });
}

/** Starts the server on a free loopback port; resolves with it and its URL once it says where it listens. */
function startServer() {
  const child = spawn(process.execPath, [join(root, 'dist', 'bin', 'diskprobe.js'), 'serve', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server said nothing within 10 s:\n${stderr}`)), 10_000);
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stderr: () => stderr });
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
  });
}

/** One run of the suite; returns whether it passed (exit status 0: no failure outside the baseline). */
function runSuite(url, label, args, baseline) {
  const out = mkdtempSync(join(tmpdir(), 'diskprobe-conformance-'));
  console.log(`\n== ${label}: conformance server --url ${url} ${args.join(' ')}`);
  const run = spawnSync(node22, [suite, 'server', '--url', url, ...args, '--expected-failures', join(suiteDir, baseline), '-o', out], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 600_000,
  });
  const status = run.status ?? 1;
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `\n${run.error.message}` : ''}`;
  // Per scenario: the checks that failed, from the JSON results, and whether the baseline excuses them.
  const excused = new Set(
    readFileSync(join(suiteDir, baseline), 'utf8')
      .split('\n')
      .map((line) => /^\s*-\s*(\S+)/.exec(line)?.[1])
      .filter(Boolean),
  );
  // Run but not scored for the revision (extensions, pending scenarios; the suite's requirements/*.yaml): they decide nothing.
  const requirements = readFileSync(join(suiteDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'requirements', `${label}.yaml`), 'utf8');
  const unscored = new Set([...(requirements.split(/^not_scored:/m)[1] ?? '').matchAll(/- scenario: (\S+)/g)].map((match) => match[1]));
  const lines = [];
  let checks = 0;
  for (const dir of readdirSync(out).sort()) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    const results = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8'));
    checks += results.length;
    const failed = results.filter((check) => check.status === 'FAILURE');
    const own = failed.filter((check) => !excused.has(scenario) && !excused.has(`${scenario}:${check.id}`));
    const mark = failed.length === 0 ? 'ok      ' : unscored.has(scenario) ? 'unscored' : own.length === 0 ? 'excused ' : 'FAIL    ';
    lines.push(`${mark} ${scenario}${failed.length === 0 ? '' : `: ${failed.map((check) => check.id).join(', ')}`}`);
  }
  rmSync(out, { recursive: true, force: true });
  console.log(lines.join('\n'));
  const summary = output
    .split('\n')
    .filter((line) => /Total:|Baseline check|Unexpected|^\s+✗|stale/i.test(line))
    .join('\n');
  console.log(
    `${summary}\n${label}: ${lines.length} scenarios, ${checks} checks; ${status === 0 ? 'PASS (failures only where the baseline excuses them)' : 'FAIL'}`,
  );
  return status === 0;
}

const server = await startServer();
let passed = true;
try {
  passed = runSuite(server.url, '2026-07-28', ['--requirements', '2026-07-28'], 'baseline-2026-07-28.yml') && passed;
  passed = runSuite(server.url, '2025-11-25', ['--spec-version', '2025-11-25'], 'baseline-2025-11-25.yml') && passed;
} finally {
  server.child.kill('SIGTERM');
}
const code = await new Promise((resolve) => server.child.on('exit', (status) => resolve(status)));
if (code !== 0) {
  console.log(`test:conformance: the server exited ${code} on SIGTERM, not 0:\n${server.stderr()}`);
  passed = false;
}
console.log(`\ntest:conformance: ${passed ? 'PASS' : 'FAIL'}`);
process.exit(passed ? 0 : 1);
