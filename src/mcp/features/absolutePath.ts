// What counts as an absolute path in a request: "/…", or on Windows "C:\…",
// "C:/…" or "\\server\share…". One rule for the tools, the resource template
// and the prompt, and the pattern the tools' inputSchema shows the model.

/** The rule as JSON Schema `pattern` source (ECMA-262, with the u flag). */
export const ABSOLUTE_PATH_PATTERN = process.platform === 'win32' ? '^(?:[A-Za-z]:[\\\\/]|\\\\\\\\)' : '^/';

const absolutePath = new RegExp(ABSOLUTE_PATH_PATTERN, 'u');

export function isAbsolutePath(path: string): boolean {
  return absolutePath.test(path);
}
