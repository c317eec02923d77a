// `npm run test:clone`: what a newcomer gets. Clones this repository's HEAD
// into an empty temporary folder, with nothing beside the clone, runs
// `npm ci && npm test` there, and reports the test counts and every skip
// with its reason. Run it as root, so that the mount and FUSE suites run too.
//
//   npm run test:clone              clone HEAD, test, remove the clone
//   npm run test:clone -- --keep    leave the clone in place to look at
//
// Only committed work is cloned: uncommitted changes are named, not tested.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--keep');
if (unknown.length > 0) {
  console.error(`test:clone: unknown argument ${unknown[0]} (usage: npm run test:clone [-- --keep])`);
  process.exit(2);
}
const keep = args.includes('--keep');

const git = (...gitArgs) => spawnSync('git', ['-C', root, ...gitArgs], { encoding: 'utf8' });
const head = git('rev-parse', '--short', 'HEAD');
if (head.status !== 0) {
  console.error(`test:clone: ${root} is not a git checkout: ${head.stderr.trim()}`);
  process.exit(2);
}
const dirty = git('status', '--porcelain').stdout.trim();
if (dirty) console.warn(`test:clone: uncommitted changes are not part of the clone:\n${dirty}\n`);

// The clone is the only thing in its parent folder: nothing beside it, no sibling checkout.
const parent = mkdtempSync(join(tmpdir(), 'diskprobe-clone-'));
// mkdtemp makes it 0700; a clone usually lies where other users may pass (a test probes as nobody).
chmodSync(parent, 0o755);
const clone = join(parent, 'diskprobe');
console.log(`test:clone: HEAD ${head.stdout.trim()} into ${clone}`);
const cloned = spawnSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone], { stdio: 'inherit' });
if (cloned.status !== 0) finish(1, 'git clone failed');
if (readdirSync(parent).join() !== 'diskprobe') finish(1, `${parent} holds more than the clone`);

/** Runs a command in the clone, its output shown as it comes and kept for the report. */
function run(command, commandArgs) {
  console.log(`\ntest:clone: ${command} ${commandArgs.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { cwd: clone, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let output = '';
    for (const [stream, sink] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      stream.on('data', (chunk) => {
        output += chunk;
        sink.write(chunk);
      });
    }
    child.on('close', (code, signal) => resolve({ code: code ?? 1, signal, output }));
  });
}

const install = await run('npm', ['ci', '--no-audit', '--no-fund']);
if (install.code !== 0) finish(install.code, 'npm ci failed');
const test = await run('npm', ['test']);

// vitest's summary, and the reason each skipped suite printed (test/helpers/system.ts announceSkip).
const output = stripVTControlCharacters(test.output);
const summary = (label) => new RegExp(`^\\s*${label}\\s+(.*)$`, 'm').exec(output)?.[1]?.trim() ?? 'not reported';
const skips = [...new Set(output.match(/^.*\[skipped\] .*$/gm) ?? [])].map((line) => line.replace(/^.*\[skipped\] /, ''));
console.log('\ntest:clone: report');
console.log(`  test files: ${summary('Test Files')}`);
console.log(`  tests:      ${summary('Tests')}`);
console.log(skips.length === 0 ? '  skipped:    none' : `  skipped, each with its reason:\n${skips.map((skip) => `    - ${skip}`).join('\n')}`);
finish(test.code, test.code === 0 ? undefined : 'npm test failed');

function finish(code, why) {
  if (keep) console.log(`test:clone: the clone is kept at ${clone}`);
  else removeClone();
  if (why) console.error(`test:clone: ${why} (exit status ${code})`);
  else console.log('test:clone: passed');
  process.exit(code);
}

/** Removes the clone, unless a test left something mounted inside it: a walk into a dead mount would hang. */
function removeClone() {
  const mounted =
    existsSync('/proc/self/mountinfo') &&
    readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .some((line) => line.split(' ')[4]?.startsWith(parent));
  if (mounted) console.warn(`test:clone: something is still mounted under ${parent}; left in place`);
  else rmSync(parent, { recursive: true, force: true });
}
