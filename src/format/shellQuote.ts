// A file name as GNU tools quote it in their messages, from its raw bytes:
// gnulib's quotearg in its shell-escape styles (quotearg.c,
// quotearg_buffer_restyled), which coreutils uses through quotef() (quoted
// only where needed, ':' too: df's "diskprobe: /x: reason") and quoteaf()
// (always quoted: du's "cannot read directory 'x'"). A name with a newline
// or a terminal escape in it cannot break or forge a line: what is not
// printable goes inside $'...' as \n, \t... or three octal digits per byte.
// What is printable depends on the locale, as in gnulib: in a UTF-8 one, a
// valid multibyte character that iswprint() accepts is kept as it is; in
// the C locale, every byte above 0x7f is escaped.

export interface ShellQuoteOptions {
  /** Quote even a name that needs none (quoteaf); otherwise only where needed (quotef). */
  readonly always: boolean;
  /** ':' alone makes a name need quoting (quotef's quote_these_too). */
  readonly colon: boolean;
  /** The locale is a UTF-8 one (see localeIsUtf8 in quoteArgument.ts). */
  readonly utf8: boolean;
}

/** The escapes quotearg writes as a letter; every other control byte is octal. */
const LETTER_ESCAPES: Readonly<Record<number, string>> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };

/** Characters a shell reads specially (quotearg's shell special list), and '?' and '\\': each makes the name need quotes. */
const SHELL_SPECIAL = new Set([...'!"$&()*;<=>[^`|? \\\'']);

/** ASCII that quotearg lets through in double quotes, when a single quote makes it try them ("it's"). */
const DOUBLE_QUOTE_SAFE = /[%+,\-./0-9:A-Z\]_a-z@ ']/;

/** Code points glibc's iswprint() refuses in a UTF-8 locale: controls, line and paragraph separators, surrogates, unassigned. */
const NOT_PRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\p{Cn}]/u;

/** One character of the name: its text, whether it must be escaped (and how), and what it means to the quoting. */
interface Unit {
  /** The text to write as is; or, for an escaped unit, the escape after the backslash(es). */
  readonly text: string;
  readonly escaped: boolean;
  /** Makes a name need quotes under quotef. */
  readonly special: boolean;
  /** May stand inside double quotes (quotearg's c_and_shell_quote_compat). */
  readonly doubleQuoteSafe: boolean;
}

const octal = (byte: number): string => `\\${byte.toString(8).padStart(3, '0')}`;

/** The length of the valid UTF-8 sequence at `at` (mbrtowc's rules: no overlong form, no surrogate, at most U+10FFFF), or 0. */
function utf8Length(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  const length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? (lead <= 0xef ? 3 : 0) : lead >= 0xc2 && lead <= 0xdf ? 2 : 0;
  if (length === 0 || at + length > bytes.length) return 0;
  for (let i = 1; i < length; i++) if ((bytes[at + i]! & 0xc0) !== 0x80) return 0;
  const second = bytes[at + 1]!;
  if (lead === 0xe0 && second < 0xa0) return 0; // overlong
  if (lead === 0xed && second >= 0xa0) return 0; // surrogate
  if (lead === 0xf0 && second < 0x90) return 0; // overlong
  if (lead === 0xf4 && second >= 0x90) return 0; // past U+10FFFF
  return length;
}

/** The name's characters, as quotearg takes them one by one. */
function unitsOf(bytes: Uint8Array, options: ShellQuoteOptions): Unit[] {
  const units: Unit[] = [];
  const single = bytes.length === 1;
  for (let at = 0; at < bytes.length; ) {
    const byte = bytes[at]!;
    if (byte < 0x80) {
      const character = String.fromCharCode(byte);
      at++;
      const letter = LETTER_ESCAPES[byte];
      if (letter !== undefined) {
        units.push({ text: `\\${letter}`, escaped: true, special: true, doubleQuoteSafe: false });
      } else if (byte < 0x20 || byte === 0x7f) {
        units.push({ text: octal(byte), escaped: true, special: true, doubleQuoteSafe: false });
      } else {
        // '#' and '~' matter at the start only, '{' and '}' alone only: there they are shell syntax and may stand in double quotes.
        const positional = ((character === '#' || character === '~') && at === 1) || ((character === '{' || character === '}') && single);
        const special = positional || SHELL_SPECIAL.has(character) || (options.colon && character === ':');
        units.push({ text: character, escaped: false, special, doubleQuoteSafe: positional || DOUBLE_QUOTE_SAFE.test(character) });
      }
      continue;
    }
    const length = options.utf8 ? utf8Length(bytes, at) : 0;
    if (length === 0) {
      // Not a character here: the byte alone, in octal.
      units.push({ text: octal(byte), escaped: true, special: true, doubleQuoteSafe: false });
      at++;
      continue;
    }
    const character = Buffer.from(bytes.subarray(at, at + length)).toString('utf8');
    if (NOT_PRINTABLE.test(character)) {
      units.push({ text: [...bytes.subarray(at, at + length)].map(octal).join(''), escaped: true, special: true, doubleQuoteSafe: false });
    } else {
      units.push({ text: character, escaped: false, special: false, doubleQuoteSafe: true });
    }
    at += length;
  }
  return units;
}

/** `name` (raw bytes) quoted as quotef (`always` false) or quoteaf (`always` true) quotes it. */
export function shellQuote(name: Uint8Array, options: ShellQuoteOptions): string {
  const units = unitsOf(name, options);
  if (!options.always && units.length > 0 && !units.some((unit) => unit.special)) return units.map((unit) => unit.text).join('');
  // An apostrophe in an otherwise harmless name reads better in double quotes: "it's".
  if (units.some((unit) => unit.text === "'") && units.every((unit) => unit.doubleQuoteSafe)) return `"${units.map((unit) => unit.text).join('')}"`;
  let quoted = "'";
  let inEscapes = false; // inside a $'...' run
  for (const unit of units) {
    if (unit.escaped) {
      if (!inEscapes) quoted += "'$'";
      inEscapes = true;
      quoted += unit.text;
      continue;
    }
    if (unit.text === "'") {
      // Closes whichever quotes are open, an escaped quote, and single quotes again.
      quoted += "'\\''";
      inEscapes = false;
      continue;
    }
    if (inEscapes) quoted += "''";
    inEscapes = false;
    quoted += unit.text;
  }
  // Ends inside $'...' (closed by this quote) or inside '...'.
  return `${quoted}'`;
}
