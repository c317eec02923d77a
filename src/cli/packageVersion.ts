import { readFileSync } from 'node:fs';

/** The version in diskprobe's package.json: dist/cli/ → the package root, where npm puts it. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
