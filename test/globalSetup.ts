// Run once before the whole suite (vitest.config.ts, globalSetup): fetches
// Debian's Prometheus and promtool for the test files that need them (once,
// here: several workers unpacking the same package at once would race), says
// when the test files get no mount namespace of their own (the suites
// that mount then skip, each saying so), and unmounts the FUSE fixture's
// mounts that a killed run left behind in this namespace.
//
// The safety net, not the plan: each test file mounts in a mount namespace of
// its own (test/privateMountsPool.ts), so no run of this suite leaves a mount
// here. One that ran without (an older checkout, another pool, a script run
// by hand) may have; each test file's namespace starts as a copy of this one,
// so such a mount would be in every file's view. Its daemon died with that
// run (fusefix.c asks for SIGKILL when its parent dies), so each answers
// ENOTCONN: a mount df has no row for, which every test that compares the
// mount table with df's would otherwise trip over. A mount whose daemon lives
// belongs to a run still going, and is left alone; nothing here touches a
// mount, so none can hang.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

import { privateMountsSkipReason } from './helpers/privateMounts.mjs';
import { prometheusTools } from './helpers/prometheus.js';

/** The mount points of fuse.fusefix mounts, from /proc/self/mountinfo (octal escapes undone). */
function fixtureMounts(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.split(' - ')[1]?.startsWith('fuse.fusefix '))
    .map((line) => line.split(' ')[4]!.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
}

/** The directories live fusefix daemons serve: argv is `fusefix MODE DIR`. */
function servedDirs(): Set<string> {
  const dirs = new Set<string>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('/fusefix') && argv[2] !== undefined) dirs.add(argv[2]);
    } catch {
      // gone meanwhile
    }
  }
  return dirs;
}

export default function setup(): void {
  const tools = prometheusTools();
  if (typeof tools === 'string') console.log(`test setup: no Prometheus for the metrics and fleet tests (they will skip, saying so): ${tools}`);
  const noNamespaces = privateMountsSkipReason();
  if (noNamespaces !== undefined && process.platform === 'linux' && process.getuid?.() === 0) {
    console.log(`test setup: no mount namespace per test file (the suites that mount will skip, saying so): ${noNamespaces}`);
  }
  sweepStaleFixtureMounts();
}

function sweepStaleFixtureMounts(): void {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return;
  const served = servedDirs();
  const stale = fixtureMounts().filter((dir) => !served.has(dir));
  for (const dir of stale) spawnSync('umount', ['-l', dir]);
  if (stale.length > 0) console.log(`test setup: unmounted ${stale.length} FUSE fixture mount(s) an earlier run left without a daemon: ${stale.join(', ')}`);
}
