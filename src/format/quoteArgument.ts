// An argument quoted as GNU df quotes one in its messages ("field 'foo'
// unknown"): gnulib's quote(), whose locale_quoting_style puts the text in
// the locale's quotation marks and backslash-escapes what could break the
// line. In a UTF-8 locale: ‘foo’, with the text kept but for backslashes and
// control characters; otherwise 'foo', with ' escaped too and every byte
// outside printable ASCII in octal.

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\x07': 'a', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '\v': 'v' };

function octal(character: string): string {
  return [...Buffer.from(character)].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}

/** `text` as quote() prints it in a UTF-8 locale (`utf8`) or in the C locale. */
export function quoteArgument(text: string, utf8: boolean): string {
  let quoted = '';
  for (const character of text) {
    const code = character.codePointAt(0)!;
    const named = NAMED_ESCAPES[character];
    if (character === '\\') quoted += '\\\\';
    else if (named !== undefined) quoted += `\\${named}`;
    else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) quoted += octal(character);
    else if (!utf8 && character === "'") quoted += "\\'";
    else if (!utf8 && code >= 0x80) quoted += octal(character);
    else quoted += character;
  }
  return utf8 ? `\u2018${quoted}\u2019` : `'${quoted}'`;
}

/**
 * Whether the locale the environment names is a UTF-8 one (LC_ALL, then
 * LC_CTYPE, then LANG, as setlocale reads them): where GNU tools quote with
 * ‘ and ’.
 */
export function localeIsUtf8(env: Readonly<Record<string, string | undefined>>): boolean {
  const name = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return /\.utf-?8(?:@|$)/i.test(name);
}
