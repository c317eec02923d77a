// `npm run build:native`: make sure an addon loads for this platform. Uses a
// matching prebuild when there is one; otherwise builds native/ with node-gyp,
// and rebuilds build/ whenever native/ or binding.gyp is newer than it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const built = join(root, 'build', 'Release', 'diskprobe.node');

const sources = ['binding.gyp', ...readdirSync(join(root, 'native')).map((name) => join('native', name))];
const newest = Math.max(...sources.map((file) => statSync(join(root, file)).mtimeMs));

function resolves() {
  try {
    return require('node-gyp-build').path(root);
  } catch {
    return undefined;
  }
}

const current = resolves();
const stale = existsSync(built) && statSync(built).mtimeMs < newest;
if (current && !stale) {
  console.log(`build:native: using ${current.slice(root.length)}`);
  process.exit(0);
}
console.log(stale ? 'build:native: native/ changed since build/; rebuilding' : 'build:native: no prebuild matches; building native/');
const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
const result = spawnSync(process.execPath, [nodeGyp, 'rebuild'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
