// Scenario of `npm run test:native-safety`: the addon is loaded by a worker
// thread only, never by the main thread. When the worker's environment goes
// away, Node dlclose()s the addons it loaded; any thread of the addon still
// running then (an idle pool thread, the mount-table watcher, a probe stuck
// in the kernel) would execute unmapped code. The process must exit 0.
//
//   node worker-only.mjs <package copy> <finish|terminate>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const [root, mode = 'finish'] = process.argv.slice(2);
const index = pathToFileURL(join(root, 'dist/index.js')).href;
const source = `
  import { parentPort } from 'node:worker_threads';
  const api = await import(${JSON.stringify(index)});
  if (api.backend !== 'native') throw new Error('backend is ' + api.backend);
  api.diskUsageSync('/tmp');
  api.diskUsageSync('/', { timeout: 5000 });
  await Promise.all(['/', '/tmp', '/nonexistent'].map((p) => api.diskUsage(p).catch(() => {})));
  if (${JSON.stringify(mode)} === 'terminate') {
    const burst = () => { for (let i = 0; i < 20; i++) api.diskUsage('/').catch(() => {}); setImmediate(burst); };
    burst();
  }
  parentPort.postMessage('ready');
`;
const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`));
worker.on('message', () => {
  if (mode === 'terminate') setTimeout(() => worker.terminate(), 20);
});
worker.on('error', (error) => {
  console.error(`worker-only: the worker failed: ${error?.stack ?? error}`);
  process.exitCode = 1;
});
worker.on('exit', () => {
  // Outlive the worker by a little: the addon's threads finish meanwhile.
  setTimeout(() => console.log('worker-only: ok'), 300);
});
