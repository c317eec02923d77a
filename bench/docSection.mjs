// Keeps docs/benchmarks.md in step with the bench scripts: each script owns
// one section between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->`
// and rewrites only that, so hand-written text and other scripts' sections
// around it survive every run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const NEW_FILE_HEADER = `# Benchmarks

Numbers in the marked sections below are written by scripts in \`bench/\`; each
section says which \`npm run\` command reproduces it. Text outside the markers
is written by hand and kept across runs.
`;

/**
 * Replaces the section `name` of the markdown file at `file` with `body`.
 * A file that does not exist is created; a section it lacks is appended,
 * after `intro` (its heading and how to reproduce it).
 */
export function writeDocSection(file, name, intro, body) {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = `${start}\n${body.trim()}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : NEW_FILE_HEADER;
  const startAt = text.indexOf(start);
  const endAt = text.indexOf(end, startAt);
  let updated;
  if (startAt >= 0 && endAt >= 0) {
    updated = text.slice(0, startAt) + section + text.slice(endAt + end.length);
  } else if (startAt >= 0 || text.includes(end)) {
    throw new Error(`${file}: the ${name} section has one marker but not the other; fix it by hand`);
  } else {
    updated = `${text.trimEnd()}\n\n${intro.trim()}\n\n${section}\n`;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, updated);
}

/**
 * " at commit abc1234" for the checkout at `root`, plus a note when the code
 * measured (src/, native/, binding.gyp, scripts/bundle-cli.mjs) differs from
 * it; "" outside a git checkout.
 */
export function sourceRevision(root) {
  const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return '';
  const changed = git('status', '--porcelain', '--', 'src', 'native', 'binding.gyp', 'scripts/bundle-cli.mjs').stdout.trim() !== '';
  return ` at commit ${head.stdout.trim()}${changed ? ' with uncommitted changes in src/ or native/' : ''}`;
}
