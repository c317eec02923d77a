// A file name as GNU df quotes it in its messages (gnulib's quotef: the
// shell-escape style, colons quoted too), so a name with a newline or a
// terminal escape in it cannot break or forge a line: as it is when nothing
// in it needs quoting; else in single quotes (double where that avoids
// escaping a single quote), with control characters as $'\n' or $'\033'.
// The rules are shellQuote.ts's; a name here is text, as in a UTF-8 locale.

import { shellQuote } from './shellQuote.js';

export function quoteName(name: string): string {
  return shellQuote(Buffer.from(name, 'utf8'), { always: false, colon: true, utf8: true });
}
