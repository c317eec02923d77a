// `npm run compile:native`: make sure an addon loads for this platform. Uses a
// matching prebuild when there is one; otherwise builds native/ with node-gyp,
// and rebuilds build/ whenever a file below native/ (in its folders by part)
// or binding.gyp is newer than it.
//
// PREBUILDS_ONLY (any non-empty value, as node-gyp-build reads it; CI sets
// PREBUILDS_ONLY=1): only a prebuild in prebuilds/ will do. build/ is ignored,
// node-gyp is never run, and the script fails loudly when no prebuild matches
// this platform or the one that matches does not load. node-gyp-build honours
// the same variable when the package loads the addon, so the tests that
// follow exercise that prebuild and nothing else.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const built = join(root, 'build', 'Release', 'diskprobe.node');
const prebuildsOnly = Boolean(process.env.PREBUILDS_ONLY);

function resolves() {
  try {
    return require('node-gyp-build').path(root);
  } catch {
    return undefined;
  }
}

if (prebuildsOnly) {
  // node-gyp-build reads PREBUILDS_ONLY when it is first required, so this
  // finds only prebuilds/<platform>-<arch>[+…]/ files, never build/.
  const found = resolves();
  const target = `${process.platform}-${process.arch}`;
  const fail = (why) => {
    const present = existsSync(join(root, 'prebuilds')) ? readdirSync(join(root, 'prebuilds')).join(', ') || 'nothing' : 'no prebuilds/ directory';
    console.error(
      `build:native: PREBUILDS_ONLY is set, and ${why}.\n  prebuilds/ holds: ${present}\n  build/ is ignored and node-gyp is not run in this mode; build the prebuilds first (npm run prebuilds, docs/platforms.md).`,
    );
    process.exit(1);
  };
  if (!found) fail(`no prebuild in prebuilds/ matches ${target}`);
  const shown = relative(root, found).split('\\').join('/');
  if (!shown.startsWith('prebuilds/')) fail(`the addon found is ${shown}, not a prebuild`);
  try {
    require(found);
  } catch (error) {
    fail(`${shown} matches ${target} but does not load: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(`build:native: PREBUILDS_ONLY: using ${shown}`);
  process.exit(0);
}

// Every file and folder below native/ (its parts: probe/, walk/, addon/): a
// folder's own time changes when a file is added to it or removed from it.
const sources = ['binding.gyp', 'native', ...readdirSync(join(root, 'native'), { recursive: true }).map((name) => join('native', name))];
const newest = Math.max(...sources.map((file) => statSync(join(root, file)).mtimeMs));

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
