// `node bench/signalWindow.mjs [script...]`: how long after spawn a SIGTERM
// still kills the stdio server, the window before its handlers exist (issue 27).
// Each script (default: dist/bin/diskprobe.js) is run as `node <script> serve`
// with DISKPROBE_DEBUG_SIGNALS=1; scripts are interleaved, and the same with
// an older build's bin or a floor (a module whose first statement handles the
// signals) given beside it compares them under the same load. Prints, per script:
// - deaths by SIGTERM sent at each delay after spawn, out of N (N=20, DELAYS=0,40,…);
// - ms from Node's first statement (an --import preload marks it) to the handlers;
// and, once, when `node -e` runs its first statement, Node's own start-up.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const scripts = process.argv.length > 2 ? process.argv.slice(2) : [join(ROOT, 'dist/bin/diskprobe.js')];
const RUNS = Number(process.env.N ?? 20);
const DELAYS = (process.env.DELAYS ?? '0,40,60,80,100,120,140,160,180,200,250').split(',').map(Number);
const MARK_FIRST_STATEMENT = "data:text/javascript,process.stderr.write('first statement at ' + performance.now().toFixed(1) + ' ms\\n')";

/** One run: SIGTERM `delay` ms after spawn, or stdin closed at once if no delay. */
function run(args, delay) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, DISKPROBE_DEBUG_SIGNALS: '1' }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.on('error', () => {});
    child.on('close', (code, signal) => {
      const handled = /handled from ([\d.]+) ms/.exec(stderr);
      const first = /first statement at ([\d.]+) ms/.exec(stderr);
      resolve({ code, signal, handled: handled && Number(handled[1]), first: first && Number(first[1]), stderr });
    });
    if (delay === undefined) child.stdin.end();
    else setTimeout(() => child.kill('SIGTERM'), delay);
  });
}

function nodeFirstStatement() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write(String(performance.now()))'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.on('close', () => resolve(Number(text)));
  });
}

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];
const spread = (values) => `median ${quantile(values, 0.5).toFixed(1)} ms (p25 ${quantile(values, 0.25).toFixed(1)}, p75 ${quantile(values, 0.75).toFixed(1)})`;

const kills = new Map(scripts.map((script) => [script, new Map(DELAYS.map((delay) => [delay, 0]))]));
const gaps = new Map(scripts.map((script) => [script, []]));
const bare = [];
for (let round = 0; round < RUNS; round++) {
  for (const delay of DELAYS) {
    for (const script of scripts) {
      const result = await run([script, 'serve'], delay);
      if (result.signal !== null) kills.get(script).set(delay, kills.get(script).get(delay) + 1);
      else if (result.code !== 0) throw new Error(`${script}: exit ${result.code} after SIGTERM at ${delay} ms:\n${result.stderr}`);
    }
  }
  bare.push(await nodeFirstStatement());
  for (const script of scripts) {
    const result = await run(['--import', MARK_FIRST_STATEMENT, script, 'serve']);
    if (result.handled === null || result.first === null) throw new Error(`${script}: no handlers or first-statement line:\n${result.stderr}`);
    gaps.get(script).push(result.handled - result.first);
  }
}
console.log(`node -e: first statement ${spread(bare)}, ${RUNS} runs`);
for (const script of scripts) {
  console.log(`${script}\n  handlers after Node's first statement: ${spread(gaps.get(script))}`);
  console.log(`  killed by SIGTERM, out of ${RUNS}: ${DELAYS.map((delay) => `${delay} ms: ${kills.get(script).get(delay)}`).join(', ')}`);
}
