// CommonJS callers: require('diskprobe') loads the ES module (require(esm),
// Node >= 20.19), which it can only while no module of the library awaits at
// its top level.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { projectRoot } from '../helpers/system.js';

describe('require("diskprobe") from CommonJS', () => {
  it.each(['native', 'statfs'])('loads the library with the %s backend, without a warning', (backend) => {
    const script = `
      const diskprobe = require(${JSON.stringify(projectRoot)});
      const usage = diskprobe.diskUsageSync('/', { timeout: 5000 });
      console.log([diskprobe.backend, typeof diskprobe.diskUsage, typeof diskprobe.listMounts, usage.mountPoint].join(' '));
    `;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, DISKPROBE_BACKEND: backend } });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(`${backend} function function /`);
  });
});
