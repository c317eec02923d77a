// serve --prometheus checks what it can before serving: a file named on the
// command line that cannot be used stops the server at start-up, exit 2,
// with a message naming the flag and the file, rather than failing every
// tool call later.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { projectRoot, tempDir } from '../helpers/system.js';

const bin = join(projectRoot, 'dist/bin/diskprobe.js');

function serve(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string; stdout: string } {
  return spawnSync(process.execPath, [bin, 'serve', ...args], {
    input: '',
    encoding: 'utf8',
    env: { ...process.env, DISKPROBE_PROMETHEUS_URL: '', ...env },
    timeout: 10_000,
  });
}

describe('serve --prometheus at start-up', () => {
  const dir = tempDir('diskprobe-fleet-start-');

  for (const http of [[], ['--http', '127.0.0.1:0']]) {
    const how = http.length === 0 ? 'stdio' : 'HTTP';
    it(`refuses an unreadable CA bundle or one without a certificate (${how})`, () => {
      const missing = join(dir, 'missing.pem');
      const refused = serve([...http, '--prometheus', 'https://p:9090', '--prometheus-ca', missing]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`diskprobe: cannot read --prometheus-ca ${missing}: ENOENT`);
      const notPem = join(dir, 'not.pem');
      writeFileSync(notPem, 'hello\n');
      const empty = serve([...http, '--prometheus', 'https://p:9090', '--prometheus-ca', notPem]);
      expect(empty.status).toBe(2);
      expect(empty.stderr).toContain(`--prometheus-ca ${notPem} holds no PEM certificate`);
    });

    it(`refuses a token file it cannot read (${how})`, () => {
      const missing = join(dir, 'missing-token');
      const refused = serve([...http, '--prometheus', 'http://p:9090', '--prometheus-token-file', missing]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`diskprobe: cannot read --prometheus-token-file ${missing}: ENOENT`);
      expect(refused.stdout).toBe('');
    });
  }

  it('takes DISKPROBE_PROMETHEUS_URL, and says what is wrong with it', () => {
    const bad = serve([], { DISKPROBE_PROMETHEUS_URL: 'prometheus:9090' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('DISKPROBE_PROMETHEUS_URL needs an http or https URL');
  });
});
