// Builds du's test trees inside a private mount namespace and runs GNU du
// and `diskprobe du` side by side on them, for duMatchesGnuDu.test.ts. Run as
// `unshare -m --propagation private node <this>`; reads { cli, base, cases }
// from stdin, writes a JSON array of results (stdout in base64: names are
// raw bytes) to stdout. A case's `own` arguments go to diskprobe alone.
//
// Why a namespace: the trees hold mounts of their own (a tmpfs inside the
// tree, a bind-mount cycle, a loop-mounted ext4 image), which nothing outside
// sees, and which go away with the namespace even if the test dies; and the
// mounts other test files make meanwhile do not reach in.
//
// The trees, each built on a tmpfs and on ext4 (see buildTree):
//   a/, b/      hard links within a directory and across the two
//   c/          sparse, empty and written files, an empty directory
//   d/          symlinks to ".", to "/" and to nowhere; names with a
//               newline, a tab, invalid UTF-8, quotes and a leading dash
//   many/       5,000 files and a few directories among them
//   mnt/        a tmpfs of its own (-x leaves it out)
//   sub/loop    the tree bind-mounted inside itself: a cycle
//   locked/     mode 000, listonly/ mode 444, searchonly/ mode 111: for the
//               unprivileged runs (root reads them all)
// and `deep`, a chain of directories 30,000 bytes deep; `aliased`, a
// directory bind-mounted beside itself (see buildAliased); and `large`, a
// directory of 12,000 entries, which fts visits in inode order on ext4.
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, linkSync, mkdirSync, openSync, readFileSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const { cli, base, cases } = JSON.parse(readFileSync(0, 'utf8'));

function must(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
}

/** A file of `bytes` bytes of data. */
function file(path, bytes) {
  writeFileSync(path, Buffer.alloc(bytes, 0x61));
}

function buildTree(tree) {
  mkdirSync(tree);
  for (const dir of ['a', 'a/in', 'b', 'c', 'c/empty', 'd', 'many', 'mnt', 'sub', 'sub/loop', 'links', 'locked', 'listonly', 'searchonly']) {
    mkdirSync(join(tree, dir));
  }
  // Hard links: across a/ and b/, both ways, and to the tree's top; within links/.
  file(join(tree, 'a/shared'), 10_000);
  linkSync(join(tree, 'a/shared'), join(tree, 'b/shared-too'));
  file(join(tree, 'b/first-in-b'), 70_000);
  linkSync(join(tree, 'b/first-in-b'), join(tree, 'a/in/second'));
  linkSync(join(tree, 'b/first-in-b'), join(tree, 'top-link'));
  file(join(tree, 'links/one'), 5000);
  linkSync(join(tree, 'links/one'), join(tree, 'links/two'));
  linkSync(join(tree, 'links/one'), join(tree, 'links/three'));
  file(join(tree, 'a/plain'), 123);
  file(join(tree, 'a/in/x'), 4097);
  // Sparse, partly written, empty.
  writeFileSync(join(tree, 'c/sparse'), '');
  truncateSync(join(tree, 'c/sparse'), 1 << 30);
  const partial = openSync(join(tree, 'c/partly'), 'w');
  writeSync(partial, Buffer.alloc(8192, 0x62), 0, 8192, 3 << 20);
  closeSync(partial);
  writeFileSync(join(tree, 'c/empty-file'), '');
  file(join(tree, 'c/small'), 1);
  file(join(tree, 'c/page'), 4096);
  // Symlinks and names du prints as raw bytes.
  symlinkSync('.', join(tree, 'd/to-dot'));
  symlinkSync('/', join(tree, 'd/to-root'));
  symlinkSync('nowhere', join(tree, 'd/dangling'));
  for (const name of ['new\nline', 'tab\there', "it's", '-rf', 'sp ace', 'caf\u00e9', '$HOME']) file(join(tree, 'd', name), 300);
  const invalid = Buffer.concat([Buffer.from(join(tree, 'd/')), Buffer.from([0x62, 0xff, 0xfe, 0x61])]);
  writeFileSync(invalid, 'x'.repeat(5000));
  mkdirSync(Buffer.concat([Buffer.from(join(tree, 'd/dir-')), Buffer.from([0xc3, 0x28, 0x0a])]));
  // 5,000 children, directories among them.
  for (let i = 0; i < 5000; i++) {
    if (i % 1250 === 7) mkdirSync(join(tree, 'many', `dir${i}`));
    writeFileSync(join(tree, 'many', `f${i}`), i % 3 === 0 ? '' : 'y'.repeat(i));
  }
  file(join(tree, 'many/dir7/inner'), 9000);
  // For the unprivileged runs.
  file(join(tree, 'locked/secret'), 100);
  file(join(tree, 'listonly/x'), 100);
  file(join(tree, 'listonly/y'), 200);
  mkdirSync(join(tree, 'listonly/z'));
  file(join(tree, 'searchonly/s'), 100);
  chmodSync(join(tree, 'locked'), 0o000);
  chmodSync(join(tree, 'listonly'), 0o444);
  chmodSync(join(tree, 'searchonly'), 0o111);
  // A file system of its own inside the tree, then the tree inside itself.
  must('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=755', 'tmpfs', join(tree, 'mnt')]);
  file(join(tree, 'mnt/on-tmpfs'), 20_000);
  mkdirSync(join(tree, 'mnt/below'));
  file(join(tree, 'mnt/below/more'), 30_000);
  must('mount', ['--bind', tree, join(tree, 'sub/loop')]);
}

/** Directories 99 bytes long, nested to 30,000 bytes: past PATH_MAX, which du walks relative to each directory, and so must diskprobe. */
function buildDeep(deep) {
  mkdirSync(deep);
  const back = process.cwd();
  process.chdir(deep);
  for (let level = 0; level < 300; level++) {
    const name = `${String(level).padStart(3, '0')}${'d'.repeat(96)}`;
    mkdirSync(name);
    process.chdir(name);
    if (level % 50 === 0) writeFileSync('file', 'z'.repeat(level * 10));
  }
  writeFileSync('bottom', 'z'.repeat(100_000));
  process.chdir(back);
}

/** x/ and, bind-mounted from it, y/: one directory reached twice without a cycle; and empty/, a harmless second operand. */
function buildAliased(aliased) {
  mkdirSync(join(aliased, 'x/inner'), { recursive: true });
  mkdirSync(join(aliased, 'y'));
  mkdirSync(join(aliased, 'z'));
  mkdirSync(join(aliased, '../empty'));
  file(join(aliased, 'x/data'), 40_000);
  file(join(aliased, 'x/inner/more'), 9000);
  file(join(aliased, 'z/other'), 100);
  must('mount', ['--bind', join(aliased, 'x'), join(aliased, 'y')]);
}

/** 12,000 entries, directories among them: past the 10,000 beyond which fts visits a directory in inode order (but on tmpfs). */
function buildLarge(large) {
  mkdirSync(large);
  for (let i = 0; i < 12_000; i++) {
    if (i % 2000 === 3) {
      mkdirSync(join(large, `d${i}`));
      file(join(large, `d${i}`, 'in'), i);
    } else {
      writeFileSync(join(large, `f${i}`), i % 7 === 0 ? 'x'.repeat(i) : '');
    }
  }
}

must('mount', ['-t', 'tmpfs', '-o', 'size=2g,mode=755', 'tmpfs', join(base, 'tmpfs')]);
buildTree(join(base, 'tmpfs/tree'));
buildDeep(join(base, 'tmpfs/deep'));
buildAliased(join(base, 'tmpfs/aliased'));
must('truncate', ['-s', '128M', join(base, 'ext4.img')]);
must('mkfs.ext4', ['-q', '-F', join(base, 'ext4.img')]);
must('mount', ['-o', 'loop', join(base, 'ext4.img'), join(base, 'ext4')]);
buildTree(join(base, 'ext4/tree'));
buildLarge(join(base, 'ext4/large'));
buildLarge(join(base, 'tmpfs/large'));

function run(command, args, { env, cwd, user }) {
  const argv =
    user === undefined
      ? [command, ...args]
      : ['setpriv', `--reuid=${user}`, `--regid=${user === 'nobody' ? 'nogroup' : user}`, '--clear-groups', command, ...args];
  const result = spawnSync(argv[0], argv.slice(1), {
    cwd: cwd ?? base,
    env: { ...process.env, LC_ALL: 'C', ...env },
    timeout: 60_000,
    maxBuffer: 256 << 20,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout.toString('base64'), stderr: result.stderr.toString('utf8') };
}

const results = cases.map(({ args, own, env, cwd, user }) => ({
  gnu: run('du', args, { env, cwd, user }),
  ours: run(process.execPath, [cli, 'du', ...(own ?? []), ...args], { env, cwd, user }),
}));
process.stdout.write(JSON.stringify(results));
