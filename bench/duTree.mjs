// The tree that npm run bench:du walks: N entries (names, not inodes) in a
// shape like a home directory or a monorepo, the same tree for the same seed
// and N. Top-level projects of a few levels each; most directories small, a
// few with thousands of entries; mostly small files; a few hardlinks and
// symlinks (to files, to `..`, to `/`, dangling) that a walker must neither
// follow nor count twice.
//
// What files hold is chosen so that 4,000,000 entries fit on a tmpfs without
// eating the machine's RAM: on tmpfs every page written stays in memory, so
// only about a quarter of the files carry data (one to a few pages). The rest
// are empty or have a size but no blocks (holes), which costs a walker the
// same as data: it reads metadata, never contents. A few files are large and
// sparse (GiB to TiB apparent, two pages written), so apparent and allocated
// totals differ by far, as they do on real disks with VM images.
//
//   node bench/duTree.mjs DIR [--entries 1000000] [--seed 1]
//
// DIR must be empty or absent. Prints what it made and how long it took.
import { closeSync, ftruncateSync, linkSync, mkdirSync, openSync, readdirSync, symlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** A small, fast PRNG (xorshift32 with a multiply on the way out): uniform in [0, 1). */
function random(seed) {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return (Math.imul(state, 0x2545f491) >>> 0) / 2 ** 32;
  };
}

// Subdirectories per directory, by depth (1 = a top-level project): wide at
// the top, thinning out, none below depth 8, so a project is about 1,000
// directories and 30,000 entries.
const SUBDIRS = [0, [3, 10], [2, 7], [1, 5], [0, 4], [0, 3], [0, 2], [0, 1], [0, 1]];

// Files per directory: cumulative probability, then the log-uniform range.
// The median directory holds a handful; one in 200 holds thousands.
const FILE_COUNTS = [
  [0.7, 0, 8],
  [0.95, 8, 64],
  [0.995, 64, 512],
  [0.9995, 512, 4096],
  [1, 4096, 16384],
];

const KiB = 1024;
const GiB = KiB ** 3;

/**
 * Builds the tree in `root` (created if absent; must be empty). Returns what
 * it made: { entries, dirs, files, symlinks, hardlinks, dataFiles, sparseFiles, bytesWritten, ms }.
 */
export function buildTree(dir, { entries, seed = 1 }) {
  const root = resolve(dir);
  const started = performance.now();
  const rng = random(seed);
  const between = (low, high) => low + Math.floor(rng() * (high - low + 1));
  const logUniform = (low, high) => Math.floor(Math.exp(Math.log(low) + rng() * (Math.log(high) - Math.log(low))));
  const pick = (list) => list[Math.floor(rng() * list.length)];

  // One block of bytes to write from: contents do not matter, their page count does.
  const data = Buffer.alloc(1 << 20, 'diskprobe bench tree ');
  const made = { entries: 0, dirs: 0, files: 0, symlinks: 0, hardlinks: 0, dataFiles: 0, sparseFiles: 0, bytesWritten: 0 };
  // Recent regular files, for hardlinks made later in other directories.
  const recent = [];

  const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_-.';
  const EXTENSIONS = ['', '.js', '.ts', '.json', '.md', '.c', '.h', '.o', '.png', '.txt', '.log', '.d.ts', '.map'];
  /** A name unique in its directory (the index leads), 2 to ~120 bytes, a few with spaces or non-ASCII. */
  function name(index, prefix) {
    const r = rng();
    const length = r < 0.6 ? between(2, 10) : r < 0.95 ? between(10, 36) : between(36, 110);
    let tail = '';
    for (let i = 0; i < length; i++) tail += NAME_CHARS[Math.floor(rng() * NAME_CHARS.length)];
    const odd = rng();
    if (odd < 0.003) tail += ' copy';
    else if (odd < 0.006) tail += '-résumé-日本';
    return `${prefix}${index.toString(36)}-${tail}${prefix === '' ? pick(EXTENSIONS) : ''}`;
  }

  function write(fd, size, position) {
    for (let done = 0; done < size; ) done += writeSync(fd, data, 0, Math.min(data.length, size - done), position + done);
    made.bytesWritten += size;
  }

  /** One file, symlink or hardlink named `entry` in the current directory; `path` is its path from the root. */
  function file(entry, path) {
    const kind = rng();
    if (kind < 0.005) {
      // Relative, absolute, upward and dangling targets: none may be followed.
      symlinkSync(
        pick(['..', '/', '/etc/passwd', 'no-such-file', `../${'x'.repeat(between(1, 200))}`, recent.at(-1) ? `${root}/${recent.at(-1)}` : '.']),
        entry,
      );
      made.symlinks++;
      return;
    }
    if (kind < 0.006 && recent.length > 0) {
      linkSync(`${root}/${pick(recent)}`, entry);
      made.hardlinks++;
      return;
    }
    const fd = openSync(entry, 'w');
    const shape = rng();
    if (shape < 0.1) {
      // empty
    } else if (shape < 0.31) {
      write(fd, logUniform(1, 16 * KiB), 0); // small, with data: one to four pages
      made.dataFiles++;
    } else if (shape < 0.312) {
      write(fd, logUniform(16 * KiB, 256 * KiB), 0); // medium, with data
      made.dataFiles++;
    } else if (shape < 0.33) {
      // sparse: a size, and one page written somewhere inside it
      const size = logUniform(64 * KiB, 16 * 1024 * KiB);
      ftruncateSync(fd, size);
      write(fd, 4 * KiB, Math.floor((rng() * (size - 4 * KiB)) / (4 * KiB)) * 4 * KiB);
      made.sparseFiles++;
    } else if (shape < 0.33002) {
      // large and sparse: GiB to TiB apparent, a page at each end
      const size = logUniform(GiB, 1024 * GiB) & ~(4 * KiB - 1);
      ftruncateSync(fd, size);
      write(fd, 4 * KiB, 0);
      write(fd, 4 * KiB, size - 4 * KiB);
      made.sparseFiles++;
    } else {
      ftruncateSync(fd, logUniform(1, 64 * KiB)); // a size, no blocks: costs a walker what data does
    }
    closeSync(fd);
    made.files++;
    if (recent.length < 1000) recent.push(path);
    else recent[Math.floor(rng() * recent.length)] = path;
  }

  /** Fills the current directory (`path` from the root), then its subdirectories, depth first. */
  function fill(path, depth) {
    let files = 0;
    const r = rng();
    for (const [upTo, low, high] of FILE_COUNTS) {
      if (r < upTo) {
        files = low === 0 ? between(0, high) : logUniform(low, high);
        break;
      }
    }
    for (let i = 0; i < files && made.entries < entries; i++, made.entries++) {
      const entry = name(i, '');
      file(entry, `${path}/${entry}`);
    }
    const [low, high] = SUBDIRS[depth] ?? [0, 0];
    const subdirs = [];
    for (let i = between(low, high); i > 0 && made.entries < entries; i--, made.entries++) {
      const entry = name(subdirs.length, 'd');
      mkdirSync(entry);
      made.dirs++;
      subdirs.push(entry);
    }
    for (const entry of subdirs) {
      process.chdir(entry); // names relative to the directory: no path walk per file
      fill(`${path}/${entry}`, depth + 1);
      process.chdir('..');
    }
  }

  mkdirSync(root, { recursive: true });
  if (readdirSync(root).length > 0) throw new Error(`${root} is not empty`);
  const cwd = process.cwd();
  process.chdir(root);
  try {
    for (let project = 0; made.entries < entries; project++) {
      const entry = `project-${String(project).padStart(4, '0')}`;
      mkdirSync(entry);
      made.dirs++;
      made.entries++;
      process.chdir(entry);
      fill(entry, 1);
      process.chdir('..');
    }
  } finally {
    process.chdir(cwd);
  }
  return { ...made, ms: performance.now() - started };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { entries: { type: 'string', default: '1000000' }, seed: { type: 'string', default: '1' } },
  });
  if (positionals.length !== 1) throw new Error('usage: node bench/duTree.mjs DIR [--entries N] [--seed S]');
  const made = buildTree(resolve(positionals[0]), { entries: Number(values.entries), seed: Number(values.seed) });
  console.log(JSON.stringify(made));
}
