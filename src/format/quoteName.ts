// A file name as GNU df quotes it in its messages (gnulib's quotef: the
// shell-escape style, colons quoted too), so a name with a newline or a
// terminal escape in it cannot break or forge a line: as it is when nothing
// in it needs quoting; else in single quotes (double where that avoids
// escaping a single quote), with control characters as $'\n' or $'\033'.

/** Characters a shell would read specially, and ':' (quotef's colon). */
const SPECIAL = /[ !"$&'()*;<=>?[\\^`|:]/;
const CONTROL = /\p{Cc}/u;
const NAMED: Readonly<Record<string, string>> = { '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\v': 'v', '\f': 'f', '\r': 'r' };

function escapeControl(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return `\\${named}`;
  return [...Buffer.from(character)].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}

export function quoteName(name: string): string {
  if (name === '') return "''";
  const control = CONTROL.test(name);
  if (!control && !SPECIAL.test(name) && !/^[#~]/.test(name) && name !== '{' && name !== '}') return name;
  if (!control && name.includes("'") && !/[\\"$`!]/.test(name)) return `"${name}"`;
  let quoted = "'";
  let inControl = false; // inside a $'...' run of control characters
  for (const character of name) {
    const isControl = CONTROL.test(character);
    if (isControl !== inControl) quoted += isControl ? "'$'" : "''";
    inControl = isControl;
    if (isControl) quoted += escapeControl(character);
    else if (character === "'") quoted += "'\\''";
    else quoted += character;
  }
  // Ends inside $'...' (closed by this quote) or inside '...'.
  return `${quoted}'`;
}
