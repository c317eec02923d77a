// The code is read in files a reader can hold: no file of src/, views/ or
// native/ reaches 400 lines (docs/architecture.md, "Size"). Tests and
// generated files are not held to it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { projectRoot } from '../helpers/system.js';

const LIMIT = 400;

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesBelow(path);
    return /\.(ts|mts|cc|h|css)$/.test(entry.name) ? [path] : [];
  });
}

describe('file sizes', () => {
  it(`keeps every file of src/, views/ and native/ under ${LIMIT} lines`, () => {
    const long = ['src', 'views', 'native']
      .flatMap((dir) => filesBelow(join(projectRoot, dir)))
      .map((path) => ({ path: relative(projectRoot, path), lines: readFileSync(path, 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines >= LIMIT)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
