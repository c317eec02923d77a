// `npm run test:hosts`: real MCP hosts connect to `diskprobe serve`, over
// stdio and over Streamable HTTP, and must neither fail nor warn about it.
// The hosts, pinned in test/hosts/package-lock.json and installed there on
// first use (they need Node 22, so npm's node@22 comes along; diskprobe runs
// on this Node):
// - Claude Code: `claude mcp add` both servers, `claude mcp list` must say
//   both are connected, and `claude -p` (no API key: it stops before any
//   model call) must list diskprobe's tools in its init message.
// - The MCP Inspector CLI: tools/list with --strict (its schema portability
//   report) and tools/call disk_usage, over both transports, in both
//   protocol eras it speaks.
// Each host gets its own scratch HOME, XDG folders and temp folder, removed
// at the end, and an environment with no API key and no update or telemetry
// traffic. Every host command has a deadline: running past it is a failure.
// docs/hosts.md says how to add a host.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const hostsDir = join(root, 'test', 'hosts');
const modules = join(hostsDir, 'node_modules');
const node22 = join(modules, 'node', 'bin', 'node');
const claude = join(modules, '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
const inspector = join(modules, '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const diskprobe = join(root, 'dist', 'bin', 'diskprobe.js');
const pins = JSON.parse(readFileSync(join(hostsDir, 'package.json'), 'utf8')).dependencies;
const TOOLS = ['disk_usage', 'list_mounts', 'directory_usage', 'explain_disk_usage', 'system_info'];
const DEADLINE_MS = 60_000;
// What a host says when it warns about a server's tools or schemas. Matched
// against what a host prints as text (never against a JSON result, whose
// schemas and descriptions say "schema" by right).
const WARNING = /\bwarn(ing)?s?\b|deprecat|portab|invalid|unsupported|not supported|schema/i;

let passed = 0;
let failed = 0;
const scratch = [];
const running = new Set();
const seen = new Map();

/** Records one check; on failure prints why, indented under it. */
function check(what, problems) {
  if (problems.length === 0) {
    passed++;
    console.log(`ok   ${what}`);
    return;
  }
  failed++;
  console.log(`FAIL ${what}`);
  for (const problem of problems) console.log(`     ${problem.replaceAll('\n', '\n     ')}`);
}

/** A problem made of lines a host printed; said in full once, and as "the same as" when a later command repeats them. */
function hostLines(label, heading, lines) {
  if (lines.length === 0) return [];
  const key = `${heading}\n${lines.join('\n')}`;
  const earlier = seen.get(key);
  if (earlier) return [`${label}: ${heading}: the same ${lines.length} lines as ${earlier}`];
  seen.set(key, label);
  return [`${label}: ${heading} (${lines.length} lines):\n${lines.join('\n')}`];
}

/** The lines of some host text that warn. */
function warningsIn(label, text, keep = () => true) {
  return hostLines(
    label,
    'warned',
    text.split('\n').filter((line) => keep(line) && WARNING.test(line)),
  );
}

/** diskprobe must be built first: the package.json script compiles it, a bare `node scripts/test-hosts.mjs` may not have. */
function requireBuiltDiskprobe() {
  if (existsSync(diskprobe)) return;
  console.log(`test:hosts: ${relative(root, diskprobe)} is missing: run \`npm run compile\` first (npm run test:hosts does)\ntest:hosts: FAIL`);
  process.exit(1);
}

/** Installs the pinned hosts from the lockfile unless exactly those versions are already there. */
function installHosts() {
  const stale = Object.entries(pins).filter(([name, version]) => {
    const manifest = join(modules, name, 'package.json');
    return !existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== version;
  });
  if (stale.length === 0 && existsSync(node22) && existsSync(claude) && existsSync(inspector)) return;
  console.log(`test:hosts: installing ${Object.keys(pins).join(', ')} into test/hosts/ from its lockfile`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: hostsDir, stdio: 'inherit' });
}

/** A scratch HOME for one host, with its XDG, runtime and temp folders inside it, and the environment that points there. */
function scratchHome(host) {
  const home = mkdtempSync(join(tmpdir(), `diskprobe-hosts-${host}-`));
  scratch.push(home);
  const dirs = {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    TMPDIR: join(home, 'tmp'),
  };
  for (const dir of [...Object.values(dirs), join(home, 'work')]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Built from nothing rather than from process.env: no API key, no token and no config of the person running it reaches a host.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', NO_COLOR: '1', HOME: home, ...dirs };
  return { home, cwd: join(home, 'work'), env };
}

/** The end of a long output: enough to see why, without pages of JSON. */
function tail(text, max = 4000) {
  return text.length <= max ? text : `[… ${text.length - max} characters before this]\n${text.slice(-max)}`;
}

/** Kills a host's whole process group: a stdio server it started must not outlive it. */
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Runs one host command with a deadline. Resolves with its exit status and
 * output, and problems: a failure to start, or running past the deadline
 * (then with all it had printed). Never rejects.
 */
function runHost(label, command, args, { env, cwd }) {
  const shown = [command, ...args].map((arg) => (arg.startsWith(root) ? relative(root, arg) || '.' : arg));
  console.log(`  $ ${shown.join(' ')}`);
  return new Promise((resolve) => {
    // Its own process group, so that a deadline or an interrupted run can kill it with everything it started.
    const child = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) running.add(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let startError;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, DEADLINE_MS);
    child.on('error', (error) => {
      startError = error;
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      if (child.pid) {
        killGroup(child.pid);
        running.delete(child.pid);
      }
      const problems = [];
      if (startError) problems.push(`${label} did not start: ${startError.message}`);
      if (timedOut) problems.push(`${label} was still running after ${DEADLINE_MS / 1000} s and was killed; it had printed:\n${tail(stdout + stderr)}`);
      resolve({ status, stdout, stderr, problems });
    });
  });
}

/** The exit status a check expects, with the output shown when it differs. */
function statusProblems(label, run, expected = 0) {
  if (run.problems.length > 0 || run.status === expected) return run.problems;
  return [`${label} exited ${run.status}, not ${expected}:\n${tail(run.stdout + run.stderr)}`];
}

/** Starts `diskprobe serve --http` on a free loopback port; resolves once it says where it listens. */
function startHttpServer() {
  const child = spawn(process.execPath, [diskprobe, 'serve', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`diskprobe serve --http said nothing within 10 s:\n${stderr}`));
    }, 10_000);
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      const match = /diskprobe: serving MCP on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stderr: () => stderr, exited });
      }
    });
    exited.then((code) => reject(new Error(`diskprobe serve --http exited (${code}) before listening:\n${stderr}`)));
  });
}

/** A host's JSON output, or undefined when it is not JSON (the check then shows the text). */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Claude Code: add both servers, health-check them with `mcp list`, and read the tools from `claude -p`'s init message. */
async function testClaudeCode(url) {
  const { home, cwd, env: base } = scratchHome('claude');
  const env = {
    ...base,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CLAUDE_CODE_TMPDIR: base.TMPDIR,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // By default `claude -p` connects MCP servers in the background and may report before they are up; this makes it wait for them.
    MCP_CONNECTION_NONBLOCKING: '0',
  };
  const servers = { 'diskprobe-stdio': 'stdio', 'diskprobe-http': 'HTTP' };
  console.log(`\n== Claude Code ${pins['@anthropic-ai/claude-code']} (HOME ${home})`);

  const version = await runHost('claude --version', claude, ['--version'], { env, cwd });
  const versionProblems = statusProblems('claude --version', version);
  if (versionProblems.length === 0 && !version.stdout.startsWith(`${pins['@anthropic-ai/claude-code']} `)) {
    versionProblems.push(`claude --version printed ${JSON.stringify(version.stdout.trim())}: not the pinned native binary (did its install script run?)`);
  }
  check('claude --version is the pinned one', versionProblems);
  if (versionProblems.length > 0) return;

  // User scope: the scratch HOME's config, whatever the working folder.
  const adds = {
    'diskprobe-stdio': ['mcp', 'add', '--scope', 'user', 'diskprobe-stdio', '--', process.execPath, diskprobe, 'serve'],
    'diskprobe-http': ['mcp', 'add', '--scope', 'user', '--transport', 'http', 'diskprobe-http', url],
  };
  for (const [name, args] of Object.entries(adds)) {
    const label = `claude mcp add ${name}`;
    const run = await runHost(label, claude, args, { env, cwd });
    check(`${label} (${servers[name]})`, [...statusProblems(label, run), ...warningsIn(label, run.stdout + run.stderr)]);
  }

  // `mcp list` exits 0 even when a server fails to connect, so its lines are read: `name: command-or-url - ✔ Connected`.
  const list = await runHost('claude mcp list', claude, ['mcp', 'list'], { env, cwd });
  const listProblems = [...statusProblems('claude mcp list', list), ...warningsIn('claude mcp list', list.stdout + list.stderr)];
  const statuses = [];
  for (const name of Object.keys(servers)) {
    const status = new RegExp(`^${name}: .* - (.+)$`, 'm').exec(list.stdout)?.[1] ?? 'not listed';
    statuses.push(`${name} ${status}`);
    if (!/^✔ Connected$/.test(status)) listProblems.push(`claude mcp list: ${name}: ${status}\n${list.stdout}`);
  }
  check(`claude mcp list health-checks both: ${statuses.join(', ')}`, listProblems);

  // No API key, so the turn ends with "Not logged in" before any model call; the init message before it
  // lists every MCP server's status and tools. Claude Code cannot call a tool without a model, so none is called.
  const debugLog = join(home, 'claude-debug.log');
  const printArgs = ['-p', 'Which disks are full?', '--output-format', 'stream-json', '--verbose', '--no-session-persistence', '--debug-file', debugLog];
  const print = await runHost('claude -p', claude, printArgs, { env, cwd });
  const printProblems = [...print.problems, ...warningsIn('claude -p (stderr)', print.stderr)];
  const messages = print.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(parseJson)
    .filter(Boolean);
  const init = messages.find((message) => message.type === 'system' && message.subtype === 'init');
  const listed = [];
  if (!init && print.problems.length === 0) printProblems.push(`claude -p printed no init message:\n${tail(print.stdout + print.stderr)}`);
  for (const name of init ? Object.keys(servers) : []) {
    const server = init.mcp_servers?.find((entry) => entry.name === name);
    if (server?.status !== 'connected') printProblems.push(`claude -p: ${name} is ${server?.status ?? 'not listed'}, not connected`);
    const tools = (init.tools ?? []).filter((tool) => tool.startsWith(`mcp__${name}__`)).map((tool) => tool.slice(`mcp__${name}__`.length));
    const missing = TOOLS.filter((tool) => !tools.includes(tool));
    if (missing.length > 0) printProblems.push(`claude -p: ${name} lacks ${missing.join(', ')} (has ${tools.join(', ') || 'none'})`);
    listed.push(`${name}: ${tools.sort().join(', ')}`);
  }
  // The messages after init are the refused turn; anything else there that warns (a system notice, say) counts.
  const after = messages.filter((message) => message !== init).map((message) => JSON.stringify(message));
  printProblems.push(...warningsIn('claude -p (messages)', after.join('\n')));
  // The debug log holds Claude Code's own view of each server; its lines about diskprobe must not warn or err.
  const log = existsSync(debugLog) ? readFileSync(debugLog, 'utf8') : '';
  const aboutDiskprobe = log.split('\n').filter((line) => line.includes('diskprobe') && (WARNING.test(line) || /\[(WARN|ERROR)\]/.test(line)));
  printProblems.push(...hostLines('claude -p (debug log)', 'warned or erred about diskprobe', aboutDiskprobe));
  check(`claude -p lists the tools without an API key: ${listed.join('; ') || 'none'}`, printProblems);
}

/** The MCP Inspector CLI, --strict: tools/list and tools/call disk_usage over one transport in one protocol era. */
async function testInspector(transport, era, target, { env, cwd }) {
  const where = `${transport}, ${era}`;
  const cli = [inspector, '--cli', ...target, '--protocol-era', era, '--format', 'json'];

  const listLabel = `inspector tools/list --strict (${where})`;
  const list = await runHost(listLabel, node22, [...cli, '--method', 'tools/list', '--strict'], { env, cwd });
  const listProblems = [...statusProblems(listLabel, list), ...warningsIn(listLabel, list.stderr)];
  let names = [];
  const listed = parseJson(list.stdout);
  if (listProblems.length === 0 && !Array.isArray(listed?.result?.tools)) listProblems.push(`tools/list printed no tool list:\n${tail(list.stdout)}`);
  if (Array.isArray(listed?.result?.tools)) {
    const { result, schemaFindings = [] } = listed;
    names = result.tools.map((tool) => tool.name).sort();
    const missing = TOOLS.filter((tool) => !names.includes(tool));
    if (missing.length > 0) listProblems.push(`tools/list lacks ${missing.join(', ')}`);
    // --strict also returns its findings in the JSON envelope: counted here even if the text report were to change.
    const findings = schemaFindings.flatMap(({ toolName, findings }) => findings.map((f) => `${f.severity} ${f.rule}: ${toolName} ${f.schema}.${f.path}`));
    listProblems.push(...hostLines(listLabel, 'its JSON has schemaFindings', findings));
  }
  check(`${listLabel}: ${names.join(', ') || 'no tools'}`, listProblems);

  const callLabel = `inspector tools/call disk_usage path=/ (${where})`;
  const call = await runHost(callLabel, node22, [...cli, '--method', 'tools/call', '--tool-name', 'disk_usage', '--tool-arg', 'path=/'], { env, cwd });
  const callProblems = [...statusProblems(callLabel, call), ...warningsIn(callLabel, call.stderr)];
  let summary = 'no result';
  const result = parseJson(call.stdout)?.result;
  if (callProblems.length === 0 && !result) callProblems.push(`tools/call printed no result:\n${tail(call.stdout)}`);
  if (result) {
    summary = result.content?.find((block) => block.type === 'text')?.text ?? 'no text';
    if (result.isError) callProblems.push(`isError: ${JSON.stringify(result.content)}`);
    if (result.structuredContent?.path !== '/') callProblems.push(`structuredContent is not disk_usage's for /: ${JSON.stringify(result.structuredContent)}`);
  }
  check(`${callLabel}: ${summary}`, callProblems);
}

requireBuiltDiskprobe();
installHosts();
console.log(`test:hosts: diskprobe ${relative(root, diskprobe)} on Node ${process.version}; hosts on Node ${pins.node}`);
const server = await startHttpServer();
console.log(`test:hosts: diskprobe serve --http at ${server.url}`);
// However the run ends (a failure, Ctrl-C, a closed pipe), no host or server is left running and the scratch homes go.
process.on('exit', () => {
  for (const pid of running) killGroup(pid);
  if (server.child.exitCode === null) server.child.kill('SIGKILL');
  for (const home of scratch) rmSync(home, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

await testClaudeCode(server.url);
const inspectorHome = scratchHome('inspector');
console.log(`\n== MCP Inspector CLI ${pins['@modelcontextprotocol/inspector']} (HOME ${inspectorHome.home})`);
for (const era of ['legacy', 'modern']) {
  await testInspector('stdio', era, [process.execPath, diskprobe, 'serve'], inspectorHome);
  await testInspector('http', era, ['--transport', 'http', '--server-url', server.url], inspectorHome);
}

server.child.kill('SIGTERM');
const code = await server.exited;
check('diskprobe serve --http exits 0 on SIGTERM', code === 0 ? [] : [`it exited ${code}:\n${server.stderr()}`]);
console.log(`\nhosts: ${passed} passed, ${failed} failed`);
console.log(`test:hosts: ${failed === 0 ? 'PASS' : 'FAIL'}`);
process.exit(failed === 0 ? 0 : 1);
