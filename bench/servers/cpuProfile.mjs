// Where a server's main thread spends its time, from a V8 CPU profile
// (`node --cpu-prof`): self time summed by layer of diskprobe and by
// function, over a window of the run. Native calls (the addon, JSON.parse,
// JSON.stringify) have no frame of their own and count in their JS caller.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where each frame belongs: the first rule whose test matches its URL (or,
 * for URL-less frames, its function name) names the layer.
 */
const LAYERS = [
  {
    name: 'stdout writes: Node streams and the write syscall',
    test: (url, fn) => (url === '' && fn === 'writeUtf8String') || /^node:(internal\/stream|internal\/streams\/writable|net$)/.test(url),
  },
  { name: '`AbortController` / `AbortSignal` and their listeners', test: (url) => /^node:internal\/(abort_controller|event_target)$/.test(url) },
  { name: 'garbage collection', test: (url, fn) => url === '' && fn === '(garbage collector)' },
  { name: 'idle (waiting for input or the probe)', test: (url, fn) => url === '' && fn === '(idle)' },
  { name: 'native code outside any JS function (V8, libuv, calls from the addon into JS)', test: (url, fn) => url === '' && fn === '(program)' },
  { name: 'probe: `src/probe/` (addon calls included)', test: (url) => url.includes('/dist/probe/') },
  { name: 'JSON-RPC: `src/jsonrpc/` (JSON.parse / JSON.stringify included)', test: (url) => url.includes('/dist/jsonrpc/') },
  { name: 'MCP: `src/mcp/` and `src/format/`', test: (url) => /\/dist\/(mcp|format)\//.test(url) },
  { name: 'transport: `src/transport/`', test: (url) => url.includes('/dist/transport/') },
  { name: 'other Node internals (stdin reads, promises, timers)', test: (url) => url.startsWith('node:') },
  { name: 'other', test: () => true },
];

/** The one .cpuprofile in `dir`, parsed. */
export function readProfile(dir) {
  const name = readdirSync(dir).find((file) => file.endsWith('.cpuprofile'));
  if (name === undefined) throw new Error(`no .cpuprofile in ${dir}: did the server exit cleanly?`);
  return JSON.parse(readFileSync(`${dir}/${name}`, 'utf8'));
}

/**
 * Self time of the samples taken between `fromUs` and `toUs` (the
 * monotonic clock in µs, which is what profile timestamps and
 * process.hrtime count), by layer and by function, each { label, us },
 * largest first. `root` turns dist/ URLs into src/ positions.
 */
export function summarizeProfile(profile, { fromUs, toUs, root }) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byNode = new Map();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    // A sample stands for the time until the next one.
    const lasts = profile.timeDeltas[i + 1] ?? 0;
    if (at < fromUs || at >= toUs) continue;
    byNode.set(profile.samples[i], (byNode.get(profile.samples[i]) ?? 0) + lasts);
  }
  const layers = new Map();
  const functions = new Map();
  const positions = new SourcePositions(root);
  for (const [id, us] of byNode) {
    const { functionName, url, lineNumber, columnNumber } = nodes.get(id).callFrame;
    const layer = LAYERS.find((candidate) => candidate.test(url, functionName)).name;
    layers.set(layer, (layers.get(layer) ?? 0) + us);
    const label = `${functionName || '(anonymous)'} ${positions.describe(url, lineNumber, columnNumber)}`.trim();
    functions.set(label, (functions.get(label) ?? 0) + us);
  }
  const sorted = (map) => [...map].map(([label, us]) => ({ label, us })).sort((a, b) => b.us - a.us);
  const totalUs = [...byNode.values()].reduce((sum, us) => sum + us, 0);
  return { totalUs, layers: sorted(layers), functions: sorted(functions) };
}

/** Maps positions in dist/*.js to src/*.ts through the compiler's source maps. */
class SourcePositions {
  constructor(root) {
    this.root = root;
    this.maps = new Map();
  }

  describe(url, line, column) {
    if (url === '') return '';
    if (!url.startsWith('file:')) return url;
    const file = fileURLToPath(url);
    const relative = file.startsWith(this.root) ? file.slice(this.root.length) : file;
    const entry = this.map(file)?.findEntry(line, column);
    if (entry?.originalSource === undefined) return `${relative}:${line + 1}`;
    const source = fileURLToPath(new URL(entry.originalSource, url));
    return `${source.startsWith(this.root) ? source.slice(this.root.length) : source}:${entry.originalLine + 1}`;
  }

  map(file) {
    if (!this.maps.has(file)) {
      const mapFile = `${file}.map`;
      this.maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
    }
    return this.maps.get(file);
  }
}
