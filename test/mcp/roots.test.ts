// --root: paths count by where they really are, and a refusal reads the same
// whether the path exists or not.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RootPolicy } from '../../dist/mcp/roots.js';
import { diskUsageTool } from '../../dist/mcp/tools/diskUsageTool.js';
import { tempDir } from '../helpers/system.js';

describe('RootPolicy with the disk_usage tool', () => {
  let base: string;
  let root: string;
  let policy: RootPolicy;
  const call = async (path: string) => diskUsageTool.call({ path }, { signal: new AbortController().signal, probeTimeout: 2000, roots: policy, progress() {}, log() {} });

  beforeAll(() => {
    base = tempDir();
    root = join(base, 'allowed');
    mkdirSync(join(root, 'inside'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'secret'), 'x');
    symlinkSync(join(base, 'outside'), join(root, 'escape'));
    symlinkSync(join(root, 'inside'), join(base, 'into-root'));
    policy = new RootPolicy([root]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('allows paths under a root, existing or not', async () => {
    expect((await call(join(root, 'inside'))).isError).toBeFalsy();
    expect((await call(join(root, 'missing'))).text).toBe(`ENOENT: ${join(root, 'missing')}: no such file or directory`);
    // A link from outside into the root is judged by its target.
    expect((await call(join(base, 'into-root'))).isError).toBeFalsy();
  });

  it('refuses symlinks out of the root and ".." the same way as paths that do not exist', async () => {
    const refused = [join(root, 'escape'), join(root, 'escape', 'secret'), join(root, '..', 'outside'), join(root, 'escape', 'missing'), join(base, 'outside', 'nope'), '/etc'];
    for (const path of refused) {
      const result = await call(path);
      expect(result).toEqual({ text: `EACCES: ${path}: outside the allowed roots (${root}); ask about a path under one of them`, isError: true });
    }
  });

  it('refuses to start with a root that does not exist', () => {
    expect(() => new RootPolicy([join(base, 'nowhere')])).toThrow(`--root ${join(base, 'nowhere')}: no such directory`);
  });
});
