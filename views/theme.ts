// The host's look in a view (apps.mdx, "Theming"): its style variables
// (--color-background-primary and the rest) set on the document, its fonts,
// and light or dark. The views' CSS falls back to its own colours for any
// variable a host leaves out, in either theme.
import type { HostContext } from './hostBridge.js';

export function applyHostContext(context: HostContext): void {
  const root = document.documentElement;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith('--') && value) root.style.setProperty(name, value);
  }
  if (context.theme === 'light' || context.theme === 'dark') {
    root.dataset.theme = context.theme;
  }
  const fonts = context.styles?.css?.fonts;
  if (fonts && !document.getElementById('host-fonts')) {
    const style = document.createElement('style');
    style.id = 'host-fonts';
    style.textContent = fonts;
    document.head.append(style);
  }
  if (context.locale) root.lang = context.locale;
}
