// explain_disk_usage end to end, over stdio against the built server, and
// `diskprobe explain`: on a tmpfs holding a visible file, a deleted 80 MiB
// file that a real process keeps open, and 2 MiB in a directory another
// tmpfs covers. Its result valid for its outputSchema and for the spec in
// both eras, its text leading with the deleted file and within 16 KiB,
// progress 0 first, --root refusing a file system that is not wholly inside
// the roots; directory_usage and disk_usage pointing to it when df's Used
// is far above what the walk finds; the CLI's table, --json and exit codes.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { it, type McpClient, type RpcResponse } from '../e2e/mcpClient.js';
import { MODERN_VERSION, type ProtocolVersion, validateDefinition } from '../helpers/mcpSchema.js';
import { announceSkip, mountTmpfs, projectRoot, rootSkipReason, type TestMount } from '../helpers/system.js';
import { write } from '../scan/duOracle.js';

const LEGACY = '2025-11-25';
const MiB = 2 ** 20;
const CLI = join(projectRoot, 'dist/bin/diskprobe.js');

const textOf = (response: RpcResponse): string => (response.result!.content as Array<{ text: string }>)[0]!.text;

/** A python3 process that writes `bytes` to `path`, deletes it and holds it open until killed; resolves once it has. */
async function holdDeleted(path: string, bytes: number): Promise<ChildProcess> {
  const script = `import os,sys,time\nf=open(sys.argv[1],'wb')\nf.write(os.urandom(${bytes}))\nf.flush()\nos.fsync(f.fileno())\nos.unlink(sys.argv[1])\nprint('ready',f.fileno(),flush=True)\ntime.sleep(600)\n`;
  const child = spawn('python3', ['-c', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited ${code} before it was ready`)));
  });
  return child;
}

async function serverIn(startServer: (options?: object) => McpClient, era: 'legacy' | 'modern', args: string[] = []) {
  const server = startServer({ args, ...(era === 'modern' && { version: MODERN_VERSION }) });
  if (era === 'legacy') await server.initialize(LEGACY);
  const call = (name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<RpcResponse> =>
    era === 'modern'
      ? server.modern('tools/call', { name, arguments: args }, meta)
      : server.request('tools/call', { name, arguments: args, ...(Object.keys(meta).length > 0 && { _meta: meta }) });
  const list = () => (era === 'modern' ? server.modern('tools/list') : server.request('tools/list'));
  const version: ProtocolVersion = era === 'modern' ? MODERN_VERSION : LEGACY;
  return { server, call, list, version };
}

describe.skipIf(announceSkip('explain_disk_usage and diskprobe explain', rootSkipReason))('explain_disk_usage and diskprobe explain', () => {
  const mounts: TestMount[] = [];
  let disk: string;
  let holder: ChildProcess;
  beforeAll(async () => {
    const mount = mountTmpfs('size=256m');
    mounts.push(mount);
    disk = mount.dir;
    write(join(disk, 'visible.bin'), 4 * MiB);
    mkdirSync(join(disk, 'covered'));
    write(join(disk, 'covered', 'under.bin'), 2 * MiB);
    mounts.push(mountTmpfs('size=16m', join(disk, 'covered')));
    holder = await holdDeleted(join(disk, 'held.log'), 80 * MiB);
  });
  afterAll(() => {
    holder?.kill('SIGKILL');
    for (const mount of mounts.reverse()) mount.cleanup();
  });

  it.for(['legacy', 'modern'] as const)(
    'answers %s clients with the held file first, valid for its outputSchema and the spec',
    async (era, { startServer }) => {
      const { call, list, version } = await serverIn(startServer, era);
      const tool = ((await list()).result!.tools as Array<{ name: string; outputSchema: object; annotations: object }>).find(
        (entry) => entry.name === 'explain_disk_usage',
      )!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      const response = await call('explain_disk_usage', { path: disk });
      expect(response.result!.isError).toBe(false);
      expect(validateDefinition(version, 'CallToolResult', response.result)).toEqual([]);
      const validate = new Ajv({ allErrors: true, strict: false }).compile(tool.outputSchema);
      const structured = response.result!.structuredContent;
      expect(validate(structured), JSON.stringify(validate.errors)).toBe(true);
      expect(structured).toMatchObject({ mountPoint: disk, fsType: 'tmpfs', complete: true, unseen: [] });
      expect(structured.deletedOpen.bytes).toBe(80 * MiB);
      expect(structured.deletedOpen.files).toEqual([
        expect.objectContaining({
          path: join(disk, 'held.log'),
          bytes: 80 * MiB,
          heldBy: 'open',
          holders: [expect.objectContaining({ pid: holder.pid, command: 'python3' })],
        }),
      ]);
      expect(structured.hidden.mounts).toEqual([expect.objectContaining({ mountPoint: join(disk, 'covered'), bytes: 2 * MiB, files: 1 })]);
      // The parts sum to df's Used, and on tmpfs nothing is left over.
      expect(structured.visible + structured.deletedOpen.bytes + structured.hidden.bytes + structured.unexplained).toBe(structured.used);
      expect(Math.abs(structured.unexplained)).toBeLessThan(structured.used / 100);
      const text = textOf(response);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16 * 1024);
      expect(text.split('\n')[0]).toBe(
        `80M of the ${Math.ceil(structured.used / MiB)}M used on ${disk} is held by deleted files that 1 process still has open.`,
      );
      expect(text).toContain(`: > /proc/${holder.pid}/fd/`);
    },
  );

  it('reports progress 0 as it starts', async ({ startServer }) => {
    const { server, call } = await serverIn(startServer, 'legacy');
    const mark = server.mark;
    await call('explain_disk_usage', { path: disk }, { progressToken: 'explain' });
    await sleep(100);
    const progress: any[] = server.since(mark).filter((message: any) => message.method === 'notifications/progress');
    expect(progress[0]?.params).toEqual({ progressToken: 'explain', progress: 0 });
  });

  it('refuses, under --root, a file system that lies partly outside the roots', async ({ startServer }) => {
    mkdirSync(join(disk, 'allowed'), { recursive: true });
    const { call } = await serverIn(startServer, 'legacy', ['--root', join(disk, 'allowed')]);
    const response = await call('explain_disk_usage', { path: join(disk, 'allowed') });
    expect(response.result!.isError).toBe(true);
    expect(textOf(response)).toMatch(/^EACCES: explain_disk_usage walks the whole file system holding .*, from .*, which is outside the allowed roots/);
    const outside = await call('explain_disk_usage', { path: '/' });
    expect(textOf(outside)).toMatch(/^EACCES: \/: outside the allowed roots/);
  });

  it('is named by directory_usage and disk_usage when df counts far more than the walk finds', async ({ startServer }) => {
    const { call } = await serverIn(startServer, 'legacy');
    const walked = await call('directory_usage', { path: disk, fresh: true });
    expect(textOf(walked)).toMatch(/df counts \S+ used on .*, \S+ more than the files a walk finds there: explain_disk_usage says where the rest is/);
    const usage = await call('disk_usage', { path: disk });
    expect(textOf(usage)).toContain('explain_disk_usage says where the rest is');
    // Where the walk finds it all, neither says a word of it.
    const small = join(disk, 'covered');
    expect(textOf(await call('directory_usage', { path: small }))).not.toContain('explain_disk_usage');
    expect(textOf(await call('disk_usage', { path: small }))).not.toContain('explain_disk_usage');
  });

  it('prints a table that sums to Used, exact --json, and exits 0, 1 or 2 as it says', () => {
    const table = spawnSync(process.execPath, [CLI, 'explain', disk], { encoding: 'utf8' });
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^80M of the \S+ used on .* is held by deleted files that 1 process still has open\.\n/);
    for (const row of ['visible files', 'deleted, still open', 'hidden under mounts', 'unexplained', 'used', 'available']) {
      expect(table.stdout).toMatch(new RegExp(`^  ${row} +\\S+`, 'm'));
    }
    const json = spawnSync(process.execPath, [CLI, 'explain', '--json', disk], { encoding: 'utf8' });
    expect(json.status).toBe(0);
    const answer = JSON.parse(json.stdout);
    expect(answer.deletedOpen.bytes).toBe(80 * MiB);
    expect(answer.visible + answer.deletedOpen.bytes + answer.hidden.bytes + answer.unexplained).toBe(answer.used);
    const twice = spawnSync(process.execPath, [CLI, 'explain', disk, disk], { encoding: 'utf8' });
    expect(twice.status).toBe(2);
    expect(twice.stderr).toBe(`diskprobe: explain takes one path, not 2 ('${disk}' is one too many). Run 'diskprobe --help' for usage.\n`);
    const missing = spawnSync(process.execPath, [CLI, 'explain', join(disk, 'nowhere')], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^diskprobe: explain: ENOENT: /);
    // As nobody: other users' processes are not readable, and hidden files need CAP_SYS_ADMIN: exit 1, with the table.
    const nobody = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, CLI, 'explain', disk], { encoding: 'utf8' });
    expect(nobody.status, nobody.stderr).toBe(1);
    expect(nobody.stdout).toMatch(/^ {2}hidden under mounts +unseen/m);
    expect(nobody.stdout).toContain('CAP_SYS_ADMIN');
  });
});
