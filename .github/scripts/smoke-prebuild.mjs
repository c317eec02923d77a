// The prebuild workflow's last check of the committed prebuild for a runner,
// after the test suite: the platform's real root (C:\ on Windows, where the
// suite's POSIX-path tests skip), loaded from prebuilds/ and nowhere else, and
// from the very file committed (its sha256 is the one MANIFEST.json records).
//   PREBUILDS_ONLY=1 DISKPROBE_BACKEND=native node .github/scripts/smoke-prebuild.mjs <target> [arch] [libc]
// <target> is the prebuilds/ directory the addon must come from (e.g.
// darwin-arm64, linux-x64); [arch] the process.arch this Node must have
// (default: any); [libc] on Linux, glibc or musl (default: this process's).
// Run from the package root, after `npm run compile:ts`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const [target, arch, wantedLibc] = process.argv.slice(2);
if (!target) {
  console.error('usage: node .github/scripts/smoke-prebuild.mjs <target> [arch] [libc]');
  process.exit(2);
}

const root = process.cwd();
const require = createRequire(join(root, 'package.json'));
let failures = 0;
function check(what, ok, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail === '' ? '' : `: ${detail}`}`);
  if (!ok) failures++;
}

check('PREBUILDS_ONLY is set, so build/ cannot answer', Boolean(process.env.PREBUILDS_ONLY));
check('DISKPROBE_BACKEND=native, so the fallback cannot answer', process.env.DISKPROBE_BACKEND === 'native');
if (arch) check(`this Node runs as ${arch}`, process.arch === arch, process.arch);

const file = relative(root, require('node-gyp-build').path(root)).split(sep).join('/');
check(`the addon comes from prebuilds/${target}/`, file.startsWith(`prebuilds/${target}/`), file);
if (process.platform === 'linux') {
  const libc = process.report?.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
  if (wantedLibc) check(`this Node runs on ${wantedLibc}`, libc === wantedLibc, libc);
  check(`it is the ${libc} build`, file.endsWith(`.${libc}.node`), file);
}
const manifest = JSON.parse(readFileSync(join(root, 'prebuilds', 'MANIFEST.json'), 'utf8'));
const recorded = manifest.prebuilds[file.slice('prebuilds/'.length)]?.sha256;
const actual = createHash('sha256')
  .update(readFileSync(join(root, file)))
  .digest('hex');
check('it is the committed file: its sha256 is the one MANIFEST.json records', recorded === actual, `${actual.slice(0, 12)} vs ${recorded?.slice(0, 12)}`);

const m = await import(pathToFileURL(join(root, 'dist', 'index.js')).href);
check("the backend is 'native'", m.backend === 'native', m.backend);

const windows = process.platform === 'win32';
const top = windows ? `${process.env.SystemDrive ?? 'C:'}\\` : '/';
const missing = windows ? `${top}diskprobe-smoke\\no\\such\\dir` : '/diskprobe-smoke/no/such/dir';
const code = (probe) => {
  try {
    probe();
    return 'no error';
  } catch (error) {
    return error.code;
  }
};

const sync = m.diskUsageSync(top, { bigint: true });
check(`diskUsageSync('${top}') answers, on its own mount`, sync.total > 0n && sync.mountPoint === top, `${sync.mountPoint} ${sync.fsType} ${sync.total}`);
check('free ≥ available, used = total − free', sync.free >= sync.available && sync.used === sync.total - sync.free);
const async = await m.diskUsage(top);
check("diskUsage (the addon's threads) answers", async.total > 0 && async.mountPoint === top, async.mountPoint);
check('a probe with a timeout answers', m.diskUsageSync(top, { timeout: 5000 }).mountPoint === top);
check(
  'a missing path is ENOENT, sync and async',
  code(() => m.diskUsageSync(missing)) === 'ENOENT' &&
    (await m.diskUsage(missing).then(
      () => 'no error',
      (e) => e.code,
    )) === 'ENOENT',
);
const mounts = (await m.listMounts({ all: true })).map((mount) => mount.mountPoint);
check(`listMounts lists ${top}`, mounts.includes(top), mounts.slice(0, 8).join(' '));

console.log(`smoke ${target} (${process.platform}-${process.arch}, ${file}): ${failures === 0 ? 'passed' : `${failures} failed`}`);
process.exit(failures === 0 ? 0 : 1);
