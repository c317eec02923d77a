// The committed prebuilds must come from the committed native sources:
// prebuilds/MANIFEST.json records the sources' hash each was built from.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// @ts-expect-error: a plain .mjs script, no types
import { nativeSourcesSha256 } from '../../scripts/prebuild-manifest.mjs';
import { projectRoot } from '../helpers/system.js';

const manifest = JSON.parse(readFileSync(join(projectRoot, 'prebuilds', 'MANIFEST.json'), 'utf8')) as {
  prebuilds: Record<string, { files: string[]; nativeSourcesSha256: string }>;
};

describe('prebuilds/MANIFEST.json', () => {
  it('lists every prebuild directory, with the files in it', () => {
    const targets = readdirSync(join(projectRoot, 'prebuilds'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(Object.keys(manifest.prebuilds).sort()).toEqual(targets.sort());
    for (const [target, { files }] of Object.entries(manifest.prebuilds)) {
      for (const file of files) expect(existsSync(join(projectRoot, 'prebuilds', target, file)), `${target}/${file}`).toBe(true);
    }
  });

  it.each(Object.keys(manifest.prebuilds))('%s was built from the native sources as they are now (else: npm run prebuilds)', (target) => {
    expect(manifest.prebuilds[target]!.nativeSourcesSha256).toBe(nativeSourcesSha256());
  });
});
