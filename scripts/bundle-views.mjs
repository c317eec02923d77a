// `npm run compile:views`: the MCP Apps views (views/*.ts, views/view.css)
// as one self-contained HTML page each, dist/views/<name>.html, which the
// server serves as ui://diskprobe/<name> (src/apps/appViews.ts). Everything
// is inline: a host's default Content-Security-Policy for a view allows no
// network (apps.mdx, "Host Behavior"), and a view needs none. Each page must
// stay within VIEW_BUDGET bytes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'views');
/** Bytes a page may weigh (issue 19: at most 60 KB a view). */
const VIEW_BUDGET = 60_000;

const VIEWS = [
  { name: 'directory-usage', entry: 'views/directoryUsage.ts', title: 'What fills a directory' },
  { name: 'mounts', entry: 'views/mounts.ts', title: 'How full each mount is' },
  { name: 'explain', entry: 'views/explain.ts', title: 'Why df and du disagree' },
];

const css = readFileSync(join(root, 'views', 'view.css'), 'utf8');
mkdirSync(out, { recursive: true });
for (const view of VIEWS) {
  let script;
  try {
    const result = await build({
      entryPoints: [join(root, view.entry)],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'warning',
    });
    script = result.outputFiles[0].text;
  } catch (error) {
    console.error(`compile:views: bundling ${view.entry} failed (${error.message.split('\n')[0]})`);
    process.exit(1);
  }
  const minifiedCss = (await build({ stdin: { contents: css, loader: 'css' }, write: false, minify: true, logLevel: 'warning' })).outputFiles[0].text;
  // Inline, "</" would end the element early; "<\/" reads the same to a script or a style sheet.
  const inline = (text) => text.replaceAll('</', '<\\/');
  const html =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${view.title}</title><style>${inline(minifiedCss)}</style></head>` +
    `<body><main id="app" aria-live="polite"><p class="notice" role="status">Waiting for the result…</p></main>` +
    `<script type="module">${inline(script)}</script></body></html>\n`;
  const bytes = Buffer.byteLength(html);
  if (bytes > VIEW_BUDGET) {
    console.error(`compile:views: ${view.name}.html is ${bytes} bytes, past the budget of ${VIEW_BUDGET}`);
    process.exit(1);
  }
  writeFileSync(join(out, `${view.name}.html`), html);
}
