// Records, for each prebuild in prebuilds/, the sha256 of the native sources
// (native/* and binding.gyp) it was built from, so a test can tell when
// native/ changed and the prebuilds were not rebuilt.
//   node scripts/prebuild-manifest.mjs <target>...   e.g. linux-x64
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** sha256 over native/* and binding.gyp: each file's name, a NUL, its bytes, a NUL, in name order. */
export function nativeSourcesSha256() {
  const files = [
    'binding.gyp',
    ...readdirSync(join(root, 'native'))
      .sort()
      .map((name) => `native/${name}`),
  ];
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    console.error('usage: node scripts/prebuild-manifest.mjs <target>... (e.g. linux-x64)');
    process.exit(2);
  }
  const path = join(root, 'prebuilds', 'MANIFEST.json');
  const manifest = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : { prebuilds: {} };
  const sha256 = nativeSourcesSha256();
  for (const target of targets) {
    const files = readdirSync(join(root, 'prebuilds', target)).filter((name) => name.endsWith('.node'));
    manifest.prebuilds[target] = { files, nativeSourcesSha256: sha256 };
  }
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`prebuilds/MANIFEST.json: ${targets.join(', ')} built from native sources ${sha256.slice(0, 12)}`);
}
