// The README is short and true: under 200 lines, and every link in it and in
// docs/ leads somewhere, to a file of the repository and, with an #anchor, to
// a heading (as GitHub makes its id) or an explicit <a id> in that file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { projectRoot } from '../helpers/system.js';

/** GitHub's id for a heading: lower case, punctuation but hyphens dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown file offers: its headings' ids (repeats numbered, as GitHub does) and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) {
      const id = slug(heading[1]!);
      const count = seen.get(id) ?? 0;
      seen.set(id, count + 1);
      anchors.add(count === 0 ? id : `${id}-${count}`);
    }
    for (const [, id] of line.matchAll(/<a id="([^"]+)"/g)) anchors.add(id!);
  }
  return anchors;
}

/** The relative links of a Markdown file, outside code: [text](target). */
function linksOf(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/.test(target));
}

const documents = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the documentation', () => {
  it('keeps the README under 200 lines, the depth in docs/', () => {
    const lines = readFileSync(join(projectRoot, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThan(200);
  });

  it.each(documents)('%s: every relative link leads to a file and, with an anchor, to a heading in it', (document) => {
    const path = join(projectRoot, document);
    const text = readFileSync(path, 'utf8');
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file === '' ? path : join(dirname(path), decodeURIComponent(file));
      if (!existsSync(target)) {
        broken.push(`${link}: no file ${relative(projectRoot, target)}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${relative(projectRoot, target)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
