// Building the views' DOM: elements with attributes and children, text
// always as text (names on disk are never parsed as HTML).

type Child = Node | string | false | null | undefined;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string | number | boolean | undefined>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== false && child !== null && child !== undefined) element.append(child);
  return element;
}

/** The last part of a path, or the path itself for the root. */
export function baseName(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/[\\/]+$/, '') : path;
  const at = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return at >= 0 && at < trimmed.length - 1 ? trimmed.slice(at + 1) : trimmed;
}
