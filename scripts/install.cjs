// npm install hook. It never fails the install:
// - a prebuilt binary matches this platform: nothing to do;
// - otherwise the addon is built from source with node-gyp;
// - if that fails too (no compiler, no headers), the fs.statfs fallback
//   answers instead, and this says so on stderr.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');

function found() {
  try {
    require('node-gyp-build').path(root);
    return true;
  } catch {
    return false;
  }
}

if (found()) process.exit(0);

// npm hands lifecycle scripts its own node-gyp; fall back to one on PATH.
const nodeGyp = process.env.npm_config_node_gyp;
const build = nodeGyp
  ? spawnSync(process.execPath, [nodeGyp, 'rebuild'], { cwd: root, stdio: 'inherit' })
  : spawnSync('node-gyp', ['rebuild'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });

if (build.status !== 0 || !found()) {
  process.stderr.write(
    `diskprobe: no prebuilt binary for ${process.platform}-${process.arch}, and building one failed` +
      `${build.error ? ` (${build.error.message})` : ''}.\n` +
      'diskprobe works anyway, on the fs.statfs fallback (see "Platforms" in its README).\n',
  );
}
process.exit(0);
