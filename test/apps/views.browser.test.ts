// The two MCP Apps views in a real browser: Debian's chromium, driven by
// puppeteer-core, loads a test host page (hostPage.ts) that renders each
// view in a sandboxed iframe with the official host-side bridge (AppBridge),
// as a host does. The tool results are real: the official SDK client calls
// diskprobe over stdio, on a tree made here and on tmpfs mounts. Checked:
// areas in proportion to sizes (within 2%), the labels, a click that calls
// directory_usage through the host and redraws, the dark theme, and that no
// request leaves the page. Screenshots go to test-artifacts/.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { build } from 'esbuild';
import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { humanSize } from '../../dist/format/humanSize.js';
import {
  announceSkip,
  type FuseMount,
  fuseSkipReason,
  mountFuse,
  mountTmpfs,
  projectRoot,
  rootSkipReason,
  type TestMount,
  tempDir,
} from '../helpers/system.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((path) => existsSync(path));
const chromiumSkipReason =
  process.platform !== 'linux'
    ? `Debian's chromium drives these tests; this is ${process.platform}`
    : CHROMIUM === undefined
      ? 'no chromium (apt-get install chromium)'
      : undefined;
const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const ARTIFACTS = join(projectRoot, 'test-artifacts');
/** A python3 script: writes argv[2] bytes to argv[1], deletes it, says so, and holds it open. */
const HOLD_DELETED =
  "import os,sys,time\nf=open(sys.argv[1],'wb')\nf.write(os.urandom(int(sys.argv[2])))\nf.flush()\nos.unlink(sys.argv[1])\nprint('ready',flush=True)\ntime.sleep(600)\n";
/** How far a tile's share of the map may be from its share of the bytes. */
const AREA_TOLERANCE = 0.02;

type ToolResult = Record<string, unknown> & { structuredContent?: Record<string, unknown> };

describe.skipIf(announceSkip('MCP Apps views in chromium', chromiumSkipReason))('the MCP Apps views, rendered by a host in chromium', () => {
  let browser: Browser;
  let client: Client;
  let hostScript: string;

  beforeAll(async () => {
    hostScript = (
      await build({
        entryPoints: [join(projectRoot, 'test/apps/hostPage.ts')],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        logLevel: 'warning',
      })
    ).outputFiles[0]!.text;
    browser = await puppeteer.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'] });
    client = new Client({ name: 'diskprobe-view-test', version: '1.0.0' }, { capabilities: { extensions: UI } as never });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(projectRoot, 'dist/bin/diskprobe.js')], stderr: 'pipe' }));
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await browser?.close();
  });

  /** A fresh host page; `external` collects every request that tried to leave it (each refused). */
  async function hostPage(): Promise<{ page: Page; external: string[] }> {
    const page = await browser.newPage();
    await page.setViewport({ width: 900, height: 800, deviceScaleFactor: 1 });
    const external: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url === 'about:blank' || url === 'about:srcdoc' || url.startsWith('data:')) void request.continue();
      else {
        external.push(url);
        void request.abort();
      }
    });
    await page.exposeFunction('callServerTool', async (params: { name: string; arguments?: Record<string, unknown> }) => client.callTool(params));
    await page.setContent(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script type="module">${hostScript}</script></body></html>`);
    await page.waitForFunction(() => typeof window.renderView === 'function');
    return { page, external };
  }

  async function render(page: Page, uri: string, input: Record<string, unknown>, result: ToolResult, theme: 'light' | 'dark' = 'light'): Promise<Frame> {
    const read = await client.readResource({ uri });
    const html = (read.contents[0] as { text: string }).text;
    await page.evaluate((render) => window.renderView(render), { html, input, result, theme, width: 800 });
    const frame = page.frames().find((candidate) => candidate.parentFrame() === page.mainFrame());
    if (frame === undefined) throw new Error('the view has no frame');
    return frame;
  }

  async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    return result;
  }

  describe('directory usage: a treemap', () => {
    let root: string;
    beforeAll(() => {
      root = join(tempDir('diskprobe-view-'), 'tree');
      const sizes: Record<string, number> = { 'alpha/one': 3_000_000, 'alpha/two/deep': 1_000_000, beta: 2_000_000, gamma: 900_000, delta: 400_000 };
      for (const [path, bytes] of Object.entries(sizes)) {
        const dir = join(root, path);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'data'), Buffer.alloc(bytes, 7));
      }
      writeFileSync(join(root, 'own.bin'), Buffer.alloc(300_000, 1));
    });

    /** The tiles as drawn: their kind, label, size and area. */
    async function tiles(frame: Frame): Promise<Array<{ kind: string; label: string; text: string; size: number; area: number; path: string | null }>> {
      await frame.waitForSelector('.treemap .tile');
      return frame.$$eval('.treemap .tile', (elements) =>
        elements.map((element) => {
          const box = element.getBoundingClientRect();
          return {
            kind: element.getAttribute('data-kind')!,
            label: element.getAttribute('aria-label')!,
            text: element.textContent!,
            size: Number(element.getAttribute('data-size')),
            area: box.width * box.height,
            path: element.getAttribute('data-path'),
          };
        }),
      );
    }

    it('draws each subdirectory with an area in proportion to its bytes, labelled with its name and size', async () => {
      const { page, external } = await hostPage();
      const input = { path: root, depth: 1, top: 10 };
      const result = await call('directory_usage', input);
      const frame = await render(page, 'ui://diskprobe/directory-usage', input, result);
      const drawn = await tiles(frame);
      const children = (result.structuredContent!.children as Array<{ name: string; path: string; allocated: number }>).map((child) => child.name);
      expect(drawn.filter((tile) => tile.kind === 'directory').map((tile) => tile.label.split(':')[0])).toEqual(children);
      expect(drawn.some((tile) => tile.kind === 'files')).toBe(true);
      const totalSize = drawn.reduce((sum, tile) => sum + tile.size, 0);
      const totalArea = drawn.reduce((sum, tile) => sum + tile.area, 0);
      for (const tile of drawn) {
        expect(tile.area / totalArea / (tile.size / totalSize), tile.label).toBeGreaterThan(1 - AREA_TOLERANCE);
        expect(tile.area / totalArea / (tile.size / totalSize), tile.label).toBeLessThan(1 + AREA_TOLERANCE);
        expect(tile.text).toContain(humanSize(tile.size));
      }
      const breadcrumb = await frame.$eval('nav[aria-label="Path"]', (nav) => nav.textContent);
      expect(breadcrumb).toContain('tree');
      // Counts with their nouns' numbers (issue 27): six files, eight directories; beta holds one file.
      expect(await frame.$eval('.summary', (summary) => summary.textContent)).toContain(' · 6 files · 8 directories');
      expect(drawn.find((tile) => tile.path === join(root, 'beta'))!.label).toContain(', 1 file,');
      await (await page.$('iframe'))!.screenshot({ path: join(ARTIFACTS, 'directory-usage.png') });
      expect(external).toEqual([]);
      await page.close();
    });

    it('drills down on a click: calls directory_usage through the host for that directory, and redraws from its answer', async () => {
      const { page, external } = await hostPage();
      const input = { path: root, depth: 1, top: 10 };
      const frame = await render(page, 'ui://diskprobe/directory-usage', input, await call('directory_usage', input));
      await frame.click(`.tile[data-path="${join(root, 'alpha')}"]`);
      await frame.waitForSelector('nav [aria-current="page"]');
      await frame.waitForFunction((name) => document.querySelector('nav [aria-current="page"]')?.textContent === name, {}, 'alpha');
      expect(await page.evaluate(() => window.toolCalls)).toEqual([{ name: 'directory_usage', arguments: { ...input, path: join(root, 'alpha') } }]);
      const drawn = await tiles(frame);
      expect(drawn.filter((tile) => tile.kind === 'directory').map((tile) => tile.path)).toEqual(['one', 'two'].map((name) => join(root, 'alpha', name)));
      // And back up, by the keyboard: the breadcrumb's first step.
      await frame.focus(`button.crumb[data-path="${root}"]`);
      await page.keyboard.press('Enter');
      await frame.waitForFunction((name) => document.querySelector('nav [aria-current="page"]')?.textContent === name, {}, 'tree');
      expect(external).toEqual([]);
      await page.close();
    });

    it('marks what a walk has not finished or could not read, and moves between tiles with the arrow keys', async () => {
      const { page } = await hostPage();
      const input = { path: root, depth: 1, top: 10 };
      const real = await call('directory_usage', input);
      // A real answer, as a walk cut short by its budget and an unreadable entry would leave it
      // (as root, nothing here is unreadable, and this tree walks in milliseconds).
      const usage = real.structuredContent as { children: Array<Record<string, unknown>> } & Record<string, unknown>;
      const cut = {
        ...real,
        structuredContent: {
          ...usage,
          complete: false,
          unfinished: { count: 3, first: [join(root, 'beta')] },
          errors: { count: 1, first: [{ path: join(root, 'gamma', 'secret'), code: 'EACCES', message: 'permission denied' }] },
          children: usage.children.map((child) => (child.name === 'beta' ? { ...child, complete: false } : child)),
        },
      };
      const frame = await render(page, 'ui://diskprobe/directory-usage', input, cut);
      await frame.waitForSelector('.tile');
      expect(await frame.$eval(`.tile[data-path="${join(root, 'beta')}"]`, (tile) => [tile.className, tile.getAttribute('aria-label')])).toEqual([
        expect.stringContaining('incomplete'),
        expect.stringContaining('not fully listed'),
      ]);
      expect(await frame.$eval('.notice.incomplete', (notice) => notice.textContent)).toContain('3 directories not listed yet');
      expect(await frame.$eval('.notice.unreadable', (notice) => notice.textContent)).toContain('1 entry could not be read');
      // The keyboard: Tab reaches the map, the arrows walk its tiles in size order.
      const order = await frame.$$eval('button.tile', (tiles) => tiles.map((tile) => tile.getAttribute('data-path')));
      await frame.focus('button.tile');
      await page.keyboard.press('ArrowRight');
      expect(await frame.evaluate(() => document.activeElement?.getAttribute('data-path'))).toBe(order[1]);
      await page.keyboard.press('ArrowLeft');
      expect(await frame.evaluate(() => document.activeElement?.getAttribute('data-path'))).toBe(order[0]);
      await page.close();
    });

    it("takes the host's dark theme, at start and when it changes", async () => {
      const { page } = await hostPage();
      const input = { path: root, depth: 1 };
      const frame = await render(page, 'ui://diskprobe/directory-usage', input, await call('directory_usage', input), 'dark');
      await frame.waitForSelector('.tile');
      const background = () => frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(await background()).toBe('rgb(24, 24, 27)');
      expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await (await page.$('iframe'))!.screenshot({ path: join(ARTIFACTS, 'directory-usage-dark.png') });
      await page.evaluate(() => window.setTheme('light'));
      await frame.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      expect(await background()).toBe('rgb(250, 250, 250)');
      await page.close();
    });
  });

  describe.skipIf(announceSkip('the mounts view on tmpfs mounts', rootSkipReason))('mounts: a bar of fullness each', () => {
    const mounts: TestMount[] = [];
    let base: string;
    let dead: FuseMount | undefined;
    beforeAll(async () => {
      base = tempDir('diskprobe-mounts-view-');
      for (const [name, fill] of [
        ['full', 0.9],
        ['half', 0.5],
        ['little', 0.1],
      ] as const) {
        const mount = mountTmpfs('size=8M', join(base, name));
        mounts.push(mount);
        writeFileSync(join(mount.dir, 'fill'), Buffer.alloc(Math.floor(8 * 2 ** 20 * fill), 1));
      }
      mounts.push(mountTmpfs('size=4M,ro', join(base, 'readonly')));
      // A device named other than its type: the one tmpfs here whose device is shown.
      mounts.push(mountTmpfs('size=4M', join(base, 'named'), 'scratch-disk'));
      // Full of small files: its inodes run out long before its bytes.
      const crowded = mountTmpfs('size=8M,nr_inodes=100', join(base, 'crowded'));
      mounts.push(crowded);
      for (let i = 0; i < 80; i++) writeFileSync(join(crowded.dir, `f${i}`), '');
      if (fuseSkipReason === undefined) dead = await mountFuse('hang', join(base, 'stuck'));
    }, 60_000);
    afterAll(() => {
      dead?.cleanup();
      for (const mount of mounts.reverse()) mount.cleanup();
    });

    it('draws the mounts in the order the tool sorted them, each bar as full as the mount, read-only and stuck ones marked, inodes where tighter', async () => {
      const { page, external } = await hostPage();
      const input = { mount_prefix: base, all: true };
      const result = await call('list_mounts', input);
      const frame = await render(page, 'ui://diskprobe/mounts', input, result);
      await frame.waitForSelector('.mount');
      const rows = await frame.$$eval('.mount', (elements) =>
        elements.map((element) => {
          const meter = element.querySelector('.meter');
          const fill = element.querySelector('.meter .fill');
          return {
            mountPoint: element.getAttribute('data-mount-point')!,
            usedPercent: Number(element.getAttribute('data-used-percent') ?? 'NaN'),
            share: meter && fill ? fill.getBoundingClientRect().width / meter.getBoundingClientRect().width : null,
            text: element.textContent!,
            valueText: meter?.getAttribute('aria-valuetext') ?? null,
            device: element.querySelector('.device')?.textContent ?? null,
          };
        }),
      );
      const listed = (result.structuredContent!.mounts as Array<{ mountPoint: string }>).map((mount) => mount.mountPoint);
      expect(rows.map((row) => row.mountPoint)).toEqual(listed);
      for (const row of rows.filter((each) => each.share !== null)) {
        expect(Math.abs(row.share! - row.usedPercent / 100), row.mountPoint).toBeLessThan(AREA_TOLERANCE);
        expect(row.valueText).toContain(`${Math.ceil(row.usedPercent)}% used`);
      }
      expect(rows.find((row) => row.mountPoint.endsWith('/readonly'))!.text).toContain('read-only');
      // The device only where it is not the type again: "tmpfs" on tmpfs is not shown twice.
      const tmpfsRows = rows.filter((row) => row.mountPoint !== dead?.dir);
      expect(tmpfsRows.filter((row) => row.device !== null).map((row) => [row.mountPoint, row.device])).toEqual([[join(base, 'named'), 'scratch-disk']]);
      // Inodes where they are the tighter limit, and only there.
      expect(rows.find((row) => row.mountPoint.endsWith('/crowded'))!.text).toMatch(/8\d% of inodes used · 8\d of 100 inodes/);
      expect(rows.filter((row) => row.text.includes('of inodes used')).map((row) => row.mountPoint)).toEqual([join(base, 'crowded')]);
      if (dead !== undefined) expect(rows.find((row) => row.mountPoint === dead!.dir)!.text).toContain('not responding');
      await (await page.$('iframe'))!.screenshot({ path: join(ARTIFACTS, 'mounts.png') });
      expect(external).toEqual([]);
      await page.close();
    });
  });

  describe.skipIf(announceSkip('the explain view on a tmpfs', rootSkipReason))("explain: df's Used as one stacked bar", () => {
    const mounts: TestMount[] = [];
    let disk: string;
    let holder: ChildProcess | undefined;
    beforeAll(async () => {
      const mount = mountTmpfs('size=64M');
      mounts.push(mount);
      disk = mount.dir;
      writeFileSync(join(disk, 'visible.bin'), Buffer.alloc(6 * 2 ** 20, 1));
      mkdirSync(join(disk, 'covered'));
      writeFileSync(join(disk, 'covered', 'under.bin'), Buffer.alloc(2 * 2 ** 20, 2));
      mounts.push(mountTmpfs('size=4M', join(disk, 'covered')));
      // A process that holds a deleted 4 MiB file open.
      holder = spawn('python3', ['-c', HOLD_DELETED, join(disk, 'held.log'), String(4 * 2 ** 20)], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise((resolve) => holder!.stdout!.once('data', resolve));
    }, 60_000);
    afterAll(() => {
      holder?.kill('SIGKILL');
      for (const mount of mounts.reverse()) mount.cleanup();
    });

    it('draws each part as wide as its share of Used, names them, and lists the advice', async () => {
      const { page, external } = await hostPage();
      const input = { path: disk };
      const result = await call('explain_disk_usage', input);
      const frame = await render(page, 'ui://diskprobe/explain', input, result);
      await frame.waitForSelector('.stacked .segment');
      const { segments, total } = await frame.$eval('.stacked', (bar) => ({
        total: bar.getBoundingClientRect().width,
        segments: [...bar.querySelectorAll('.segment')].map((segment) => ({
          part: segment.getAttribute('data-part')!,
          bytes: Number(segment.getAttribute('data-bytes')),
          width: segment.getBoundingClientRect().width,
        })),
      }));
      const used = result.structuredContent!.used as number;
      expect(segments.map((segment) => segment.part)).toEqual(['visible', 'deleted', 'hidden']);
      for (const segment of segments) expect(Math.abs(segment.width / total - segment.bytes / used), segment.part).toBeLessThan(AREA_TOLERANCE);
      expect(segments.find((segment) => segment.part === 'deleted')!.bytes).toBe(4 * 2 ** 20);
      const legend = await frame.$$eval('.legend .part', (items) => items.map((item) => item.textContent!));
      expect(legend).toHaveLength(4);
      expect(legend[1]).toMatch(/^deleted, still open 4\.0M · \d+\.\d%$/);
      const advice = await frame.$$eval('.advice li', (items) => items.map((item) => item.textContent!));
      expect(advice[0]).toContain(`held.log, deleted, still open in python3 (pid ${holder!.pid})`);
      await (await page.$('iframe'))!.screenshot({ path: join(ARTIFACTS, 'explain.png') });
      expect(external).toEqual([]);
      await page.close();
    });
  });
});
