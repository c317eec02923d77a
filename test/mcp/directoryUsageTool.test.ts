// directory_usage end to end, over stdio against the built server: its
// result valid for its outputSchema and for the official schema (the
// startServer fixture checks every line too), in both eras; a text of at
// most 16 KiB for a tree of 5,000 children walked 3 deep; --root by name and
// by real path; --walk-budget: "call again", then the answer from the kept
// walk, a partial answer saying so on its first line; the names of its two
// lists and its counts' nouns (issue 27); progress (on a slow FUSE mount),
// and cancellation mid-walk. Trees live on tmpfs mounts.
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, onTestFinished } from 'vitest';
import { it, type McpClient, modernMeta, type Result, type RpcResponse } from '../e2e/mcpClient.js';
import { buildCFixture, compilerSkipReason } from '../fixtures/cFixture.mjs';
import { MODERN_VERSION, type ProtocolVersion, validateDefinition } from '../helpers/mcpSchema.js';
import { announceSkip, fuseSkipReason, mountFuse, mountTmpfs, projectRoot, rootSkipReason, run, type TestMount } from '../helpers/system.js';
import { directoryUsage } from '../lib.js';
import { du, write } from '../scan/duOracle.js';

const TEXT_BUDGET = 16 * 1024;
const LEGACY = '2025-11-25';

const textOf = (result: Result | undefined): string => (result!.content as Array<{ text: string }>)[0]!.text;

/** A server in `era`, ready for tools/call: legacy after initialize, 2026-07-28 per request. */
async function serverIn(startServer: (options?: object) => McpClient, era: 'legacy' | 'modern', args: string[] = []) {
  const server = startServer({ args, ...(era === 'modern' && { version: MODERN_VERSION }) });
  if (era === 'legacy') await server.initialize(LEGACY);
  const call = (args: Record<string, unknown>, meta: Record<string, unknown> = {}, id?: number): Promise<RpcResponse> =>
    era === 'modern'
      ? server.modern('tools/call', { name: 'directory_usage', arguments: args }, meta, id)
      : server.request('tools/call', { name: 'directory_usage', arguments: args, ...(Object.keys(meta).length > 0 && { _meta: meta }) }, id);
  const list = () => (era === 'modern' ? server.modern('tools/list') : server.request('tools/list'));
  const version: ProtocolVersion = era === 'modern' ? MODERN_VERSION : LEGACY;
  return { server, call, list, version };
}

/** Threads of process `pid`: the native walk's own come and go with it. */
const threadsOf = (pid: number) => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** The server's threads once a first walk has come and gone (libuv's pool starts on first use and stays): the count a walk adds to. */
async function idleThreads(server: McpClient, walk: () => Promise<unknown>): Promise<number> {
  await walk();
  let count = threadsOf(server.pid);
  for (let same = 0; same < 5; same++) {
    await sleep(60);
    const now = threadsOf(server.pid);
    if (now !== count) same = -1;
    count = now;
  }
  return count;
}

describe('directory_usage, what the other tools say of it', () => {
  it('is named by the disk_report prompt and by disk_usage text', async ({ startServer }) => {
    const server = startServer();
    await server.initialize(LEGACY);
    for (const args of [{}, { path: '/' }]) {
      const prompt = await server.result('prompts/get', { name: 'disk_report', arguments: args });
      expect(prompt.messages[0].content.text).toContain('directory_usage');
    }
    const usage = await server.result('tools/call', { name: 'disk_usage', arguments: { path: '/' } });
    expect(textOf(usage)).toContain('directory_usage shows what fills it');
    const tools = await server.result('tools/list');
    expect(tools.tools.map((tool: { name: string }) => tool.name)).toContain('directory_usage');
  });
});

describe.skipIf(announceSkip('directory_usage end to end', rootSkipReason ?? compilerSkipReason()))('directory_usage end to end', () => {
  const mounts: TestMount[] = [];
  let small: string;
  let wide: string;
  let big: string;
  let pair: string;
  let lone: string;
  beforeAll(() => {
    const mount = mountTmpfs('size=256M,nr_inodes=400k');
    mounts.push(mount);
    small = join(mount.dir, 'small');
    mkdirSync(join(small, 'a', 'b'), { recursive: true });
    write(join(small, 'a', 'f'), 50_000);
    write(join(small, 'a', 'b', 'g'), 20_000);
    write(join(small, 'top'), 1_000);
    // Two subdirectories of one file each, and an empty directory: counts of 0, 1 and 2.
    pair = join(mount.dir, 'pair');
    mkdirSync(join(pair, 'x'), { recursive: true });
    mkdirSync(join(pair, 'y'));
    write(join(pair, 'x', 'f'), 30_000);
    write(join(pair, 'y', 'g'), 10_000);
    lone = join(mount.dir, 'lone');
    mkdirSync(lone);
    // 5,000 children; the 20 largest with 30 children of 30 each: far more lines than 16 KiB hold at depth 3.
    wide = join(mount.dir, 'wide');
    for (let i = 0; i < 5000; i++) {
      const child = join(wide, `child-with-a-long-name-${i}`);
      mkdirSync(child, { recursive: true });
      if (i >= 20) continue;
      write(join(child, 'weight'), 10_000 + i * 4096); // tmpfs directories take no blocks: this ranks them first
      for (let j = 0; j < 30; j++) for (let k = 0; k < 30; k++) mkdirSync(join(child, `sub-${j}`, `leaf-${k}`), { recursive: true });
    }
    // About 200,000 entries, for walks that take a while.
    big = join(mount.dir, 'big');
    mkdirSync(big);
    run(buildCFixture('mktree', join(projectRoot, 'test/.fixtures')), [big, '40', '50', '99']);
  });
  afterAll(() => {
    for (const mount of mounts.reverse()) mount.cleanup();
  });

  it.for(['legacy', 'modern'] as const)(
    'answers %s clients with structuredContent valid for its outputSchema and a result valid for the spec',
    async (era, { startServer }) => {
      const { call, list, version } = await serverIn(startServer, era);
      const tool = ((await list()).result!.tools as Array<{ name: string; outputSchema: object; annotations: object }>).find(
        (entry) => entry.name === 'directory_usage',
      )!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      const validate = new Ajv({ allErrors: true, strict: false }).compile(tool.outputSchema);
      for (const args of [{ path: small }, { path: small, depth: 3, top: 1, apparent: true, one_file_system: false, fresh: true }]) {
        const { result } = await call(args);
        expect(result!.isError).toBe(false);
        expect(validateDefinition(version, 'CallToolResult', result), JSON.stringify(args)).toEqual([]);
        expect(validate(result!.structuredContent), JSON.stringify(validate.errors)).toBe(true);
        expect(result!.structuredContent).toMatchObject({ path: small, files: 3, directories: 3 });
      }
      // top: 1 keeps the largest child and says what the rest add up to.
      const { result } = await call({ path: wide, top: 1 });
      expect(result!.structuredContent.children).toHaveLength(1);
      expect(result!.structuredContent.others).toMatchObject({ count: 4999 });
      expect(validate(result!.structuredContent), JSON.stringify(validate.errors)).toBe(true);
    },
  );

  it('keeps its text within 16 KiB for 5,000 children walked 3 deep, saying what it left out', async ({ startServer }) => {
    const { call } = await serverIn(startServer, 'legacy');
    const { result } = await call({ path: wide, depth: 3, top: 50 });
    const text = textOf(result);
    const structured = Buffer.byteLength(JSON.stringify(result!.structuredContent));
    console.log(`[directory_usage] wide tree: text ${Buffer.byteLength(text)} bytes, structuredContent ${structured} bytes`);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TEXT_BUDGET);
    // What did not fit is said, folded into each level's "N more directories" with their size.
    expect(text).toMatch(/\(\d[\d,]* more directories\)/);
    expect(text.split('\n')[0]).toMatch(/ 5,00\d directories|directories \(walk/);
    expect(result!.structuredContent.directories).toBe(1 + 5000 + 20 * 30 + 20 * 30 * 30);
    // At least the 4,950 past the top 50 are folded into the root's others, with their size.
    expect(result!.structuredContent.others.count).toBeGreaterThanOrEqual(4950);
    expect(result!.structuredContent.others.apparent).toBeGreaterThan(0);
  });

  // The text keeps to 16 KiB, but structuredContent carries every level's `top`
  // children whole: 3.3 MB for the tree above. list_mounts keeps both within its
  // budget (test/mcp/listMounts.test.ts); this tool does not say why it need not.
  it('keeps structuredContent within the same 16 KiB as its text', async ({ startServer }) => {
    const { call } = await serverIn(startServer, 'legacy');
    const { result } = await call({ path: wide, depth: 3, top: 50 });
    expect(Buffer.byteLength(JSON.stringify(result!.structuredContent))).toBeLessThanOrEqual(TEXT_BUDGET);
  });

  it('names its lists as every face does: largest subtrees in the text, directories holding the most beside them', async ({ startServer }) => {
    const { call, list } = await serverIn(startServer, 'legacy');
    const { result } = await call({ path: pair, top: 1 });
    const lines = textOf(result).split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${pair}: \\S+ on disk, \\S+ apparent, 2 files, 3 directories \\(walk [\\d.]+ s\\)\\.$`));
    expect(lines[1]).toBe(`Largest subtrees (on disk, share of ${pair}):`);
    // x's subtree is the largest; y is the one more past top: 1.
    expect(lines[2]).toMatch(/^ {2}\S+ {2}\d+% {2}x$/);
    expect(lines[3]).toMatch(/^ {2}\S+ {2}\d+% {2}\(1 more directory\)$/);
    // The directories holding the most, by their own files (du -S), in structuredContent under its new name only.
    const structured = result!.structuredContent;
    expect(structured).not.toHaveProperty('largestDirectories');
    expect(structured.directoriesHoldingMost).toEqual((await directoryUsage(pair, { top: 1, oneFileSystem: true })).directoriesHoldingMost);
    expect(structured.directoriesHoldingMost).toEqual([
      expect.objectContaining({ path: join(pair, 'x'), allocated: Number(du(['-S', '-s', '-B1'], join(pair, 'x')).values().next().value) }),
    ]);
    const tool = ((await list()).result!.tools as Array<{ name: string; outputSchema: { properties: Record<string, { description?: string }> } }>).find(
      (entry) => entry.name === 'directory_usage',
    )!;
    expect(tool.outputSchema.properties.directoriesHoldingMost!.description).toMatch(/^The directories holding the most: .*files directly in each/);
    expect(tool.outputSchema.properties.children!.description).toMatch(/^Its largest subtrees: /);
    expect(tool.outputSchema.properties).not.toHaveProperty('largestDirectories');
    // A count of 1 and of 0 take their nouns' numbers.
    expect(textOf((await call({ path: join(pair, 'x') })).result).split('\n')[0]).toContain(' apparent, 1 file, 1 directory (walk ');
    expect(textOf((await call({ path: lone })).result).split('\n')[0]).toContain(' apparent, 0 files, 1 directory (walk ');
  });

  it('refuses paths outside --root, by name, and by real path through a symlink', async ({ startServer }) => {
    const outward = join(small, 'a', 'outward');
    symlinkSync(wide, outward);
    const { call } = await serverIn(startServer, 'legacy', ['--root', join(small, 'a')]);
    expect((await call({ path: join(small, 'a', 'b') })).result).toMatchObject({ isError: false });
    for (const path of [wide, small, `${small}/a/../top`, outward]) {
      const { result } = await call({ path });
      expect(result, path).toEqual({
        content: [{ type: 'text', text: `EACCES: ${path}: outside the allowed roots (${join(small, 'a')}); ask about a path under one of them` }],
        isError: true,
      });
    }
  });

  /** A first call past a 1 ms budget, and the next once the walk has ended with no call waiting on it. */
  async function pastTheBudget(startServer: (options?: object) => McpClient) {
    const { server, call } = await serverIn(startServer, 'legacy', ['--walk-budget', '1']);
    const idle = await idleThreads(server, () => call({ path: small, fresh: true }));
    const first = (await call({ path: big, fresh: true })).result!;
    // The walk goes on: its threads are gone once it is done.
    const start = performance.now();
    while (threadsOf(server.pid) > idle && performance.now() - start < 20_000) await sleep(50);
    await sleep(100);
    const next = (await call({ path: big })).result!;
    return { call, first, next };
  }

  it('past --walk-budget, answers with what it has and "call again", then from the finished walk', async ({ startServer }) => {
    const { call, first, next } = await pastTheBudget(startServer);
    expect(first.structuredContent.complete).toBe(false);
    expect(first.structuredContent.unfinished.count).toBeGreaterThan(0);
    // Partial, said first (issue 27): a model that reads one line knows; the last line says what is left.
    const firstLines = textOf(first).split('\n');
    expect(firstLines[0]).toMatch(new RegExp(`^Partial: ${big}: \\S+ on disk found so far, .+; still walking, call again for the whole answer\\.$`));
    expect(firstLines.at(-1)).toMatch(/^Incomplete: still walking, [\d,]+ director(y|ies) to go \(.*…\): call again for the whole answer\.$/);
    expect(textOf(next).split('\n')[0]).toMatch(new RegExp(`^${big}: `));
    expect(next.structuredContent).toMatchObject({ complete: true, files: 40 * 50 * 99, directories: 40 * 50 + 40 + 1 });
    expect(next.structuredContent.scannedAt).toBe(first.structuredContent.scannedAt);
    expect(textOf(next)).not.toContain('call again');
    await sleep(5);
    const later = (await call({ path: join(big, '7') })).result!;
    expect(later.structuredContent).toMatchObject({ complete: true, scannedAt: first.structuredContent.scannedAt, directories: 51 });
    expect(later.structuredContent.ageMs).toBeGreaterThan(0);
  });

  // The kept walk's end is taken as the moment a call first finds it done
  // (src/scan/directoryUsage.ts: walkFinished() runs in the call that waits on
  // it), not when it ended: the first answer after a walk that ended with no
  // call waiting says ageMs 0, "a walk made for this call". (Its 10 minutes
  // are counted from then too.)
  it('says how long ago the walk ended, on the first call after it ended unobserved', async ({ startServer }) => {
    const { next } = await pastTheBudget(startServer);
    expect(next.structuredContent.complete).toBe(true);
    expect(next.structuredContent.ageMs).toBeGreaterThanOrEqual(100);
  });

  // The tree holds the `slow` FUSE mount (fusefix.c): its six requests take 150 ms each,
  // so the walk lasts about a second on any machine, several of the walk's 200 ms polls.
  it.skipIf(announceSkip('directory_usage progress (slow FUSE mount)', fuseSkipReason))(
    'sends increasing progress while it walks, none after its answer',
    async ({ startServer }) => {
      const tree = join(mounts[0]!.dir, 'slow');
      mkdirSync(join(tree, 'quick'), { recursive: true });
      write(join(tree, 'quick', 'f'), 5_000);
      const fuse = await mountFuse('slow', join(tree, 'fuse'));
      onTestFinished(() => fuse.cleanup());
      const { server, call } = await serverIn(startServer, 'legacy');
      const mark = server.mark;
      const started = performance.now();
      const response = await call({ path: tree, fresh: true, one_file_system: false }, { progressToken: 'walk' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(6 * 150);
      const answeredAt = server.mark;
      await sleep(500);
      const progress: any[] = server.since(mark).filter((message: any) => message.method === 'notifications/progress');
      const values = progress.map((message: any) => message.params.progress as number);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      // Progress 0 as the call starts, before the walk has anything to say (issue 27); then the walk's.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0].params).toEqual({ progressToken: 'walk', progress: 0 });
      for (const message of progress.slice(1) as any[])
        expect(message.params).toMatchObject({ progressToken: 'walk', message: expect.stringMatching(/^walked [\d,]+ entries/) });
      expect(server.since(answeredAt).filter((message: any) => message.method === 'notifications/progress')).toEqual([]);
      // fusefix.c's two files, and quick/f.
      expect(response.result!.structuredContent).toMatchObject({ complete: true, files: 3 });
    },
  );

  it.for(['legacy', 'modern'] as const)('stops a %s walk on notifications/cancelled: no answer, and it goes on serving', async (era, { startServer }) => {
    const { server, call } = await serverIn(startServer, era);
    const idle = await idleThreads(server, () => call({ path: small, fresh: true }));
    const id = server.newId();
    const mark = server.mark;
    void call({ path: big, fresh: true }, {}, id).catch(() => {}); // no response is coming
    await sleep(100);
    expect(threadsOf(server.pid), 'the walk runs').toBeGreaterThan(idle);
    server.notify('notifications/cancelled', { requestId: id, reason: 'changed my mind', ...(era === 'modern' && { _meta: modernMeta() }) });
    expect(await server.quietFor(1000)).toEqual([]);
    expect(server.since(mark).filter((message: any) => message.id === id)).toEqual([]);
    expect(threadsOf(server.pid), 'the walk stopped').toBeLessThanOrEqual(idle);
    expect((await call({ path: small })).result).toMatchObject({ isError: false, structuredContent: { path: small } });
  });
});
