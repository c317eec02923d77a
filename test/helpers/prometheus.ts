// Debian's Prometheus (2.42) and promtool for the metrics tests: taken from
// the PATH, or from Debian's `prometheus` package unpacked into
// test/.fixtures/prometheus/ (apt-get download, dpkg-deb -x: no service is
// installed or started). Where neither can be had, the tests skip, saying so.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { projectRoot } from './system.js';

export interface PrometheusTools {
  readonly prometheus: string;
  readonly promtool: string;
}

const onPath = (command: string): string | undefined => {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
};

let cached: PrometheusTools | string | undefined;

/** The tools, or the reason they cannot be had on this machine (looked for once). */
export function prometheusTools(): PrometheusTools | string {
  cached ??= findTools();
  return cached;
}

function findTools(): PrometheusTools | string {
  const prometheus = onPath('prometheus');
  const promtool = onPath('promtool');
  if (prometheus !== undefined && promtool !== undefined) return { prometheus, promtool };
  const dir = join(projectRoot, 'test/.fixtures/prometheus');
  const bin = join(dir, 'usr/bin');
  if (!existsSync(join(bin, 'promtool'))) {
    if (onPath('apt-get') === undefined || onPath('dpkg-deb') === undefined) return "no prometheus on the PATH, and no apt-get to fetch Debian's";
    mkdirSync(dir, { recursive: true });
    const download = spawnSync('apt-get', ['download', 'prometheus'], { cwd: dir, encoding: 'utf8' });
    const deb = readdirSync(dir).find((name) => name.startsWith('prometheus_') && name.endsWith('.deb'));
    if (deb === undefined) return `apt-get download prometheus failed: ${(download.stderr || download.error?.message || '').trim().split('\n').at(-1)}`;
    const unpacked = spawnSync('dpkg-deb', ['-x', deb, '.'], { cwd: dir, encoding: 'utf8' });
    if (unpacked.status !== 0) return `dpkg-deb -x ${deb} failed: ${unpacked.stderr.trim()}`;
  }
  return { prometheus: join(bin, 'prometheus'), promtool: join(bin, 'promtool') };
}
