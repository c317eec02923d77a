// Command-line options read the way GNU programs read theirs: glibc's
// getopt_long, so that `diskprobe df` takes whatever a script hands GNU df.
// Options and operands in any order (unless POSIXLY_CORRECT is set), short
// options in clusters with attached values (-hBM, -tfoo), long options by
// any unambiguous prefix (--tot), --opt=value and --opt value, optional
// values only after "=" (--output[=LIST]), and "--" to end the options.
// The error messages are getopt's, word for word.

/** A long option: its name, whether it takes a value, and the key it reports. */
export interface LongOption {
  readonly name: string;
  readonly value: 'none' | 'required' | 'optional';
  /** What the option is reported as: its short letter, or a name of its own. */
  readonly key: string;
}

export interface GetoptSpec {
  /** Short options as getopt's optstring: a letter, followed by ':' when it takes a value ("aB:i"). */
  readonly short: string;
  readonly long: readonly LongOption[];
  /** Stop at the first operand, as getopt does under POSIXLY_CORRECT. */
  readonly inOrder: boolean;
}

/** One option as it was met: its key, its value, and how it was written (-B or --block-size), for messages. */
export interface GetoptOption {
  readonly key: string;
  readonly value: string | undefined;
  readonly named: string;
  /** Written as a long option. */
  readonly long: boolean;
}

/** The options in the order met, and the operands; `error` is getopt's message when it stopped at a bad option. */
export interface GetoptResult {
  readonly options: GetoptOption[];
  readonly operands: string[];
  readonly error: string | undefined;
}

function shortTakes(spec: GetoptSpec, letter: string): 'none' | 'required' | undefined {
  const at = letter === ':' ? -1 : spec.short.indexOf(letter);
  if (at < 0) return undefined;
  return spec.short[at + 1] === ':' ? 'required' : 'none';
}

/**
 * Reads `args` as getopt_long would, stopping at the first error. Messages
 * are getopt's without the program name ("unrecognized option '--foo'").
 */
export function getoptLong(args: readonly string[], spec: GetoptSpec): GetoptResult {
  const options: GetoptOption[] = [];
  const operands: string[] = [];
  const fail = (error: string): GetoptResult => ({ options, operands, error });
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (spec.inOrder) {
        operands.push(...args.slice(index));
        break;
      }
      operands.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const text = arg.slice(2);
      const equals = text.indexOf('=');
      const name = equals < 0 ? text : text.slice(0, equals);
      const exact = spec.long.find((option) => option.name === name);
      const candidates = exact ? [exact] : spec.long.filter((option) => option.name.startsWith(name));
      if (candidates.length === 0) return fail(`unrecognized option '--${text}'`);
      if (candidates.length > 1) {
        return fail(`option '--${text}' is ambiguous; possibilities:${candidates.map((option) => ` '--${option.name}'`).join('')}`);
      }
      const found = candidates[0]!;
      let value: string | undefined;
      if (equals >= 0) {
        if (found.value === 'none') return fail(`option '--${found.name}' doesn't allow an argument`);
        value = text.slice(equals + 1);
      } else if (found.value === 'required') {
        if (index + 1 >= args.length) return fail(`option '--${found.name}' requires an argument`);
        value = args[++index];
      }
      options.push({ key: found.key, value, named: `--${found.name}`, long: true });
      continue;
    }
    // A cluster of short options; one that takes a value takes the rest, or the next argument.
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at]!;
      const takes = shortTakes(spec, letter);
      if (takes === undefined) return fail(`invalid option -- '${letter}'`);
      if (takes === 'none') {
        options.push({ key: letter, value: undefined, named: `-${letter}`, long: false });
        continue;
      }
      let value = arg.slice(at + 1);
      if (value === '') {
        if (index + 1 >= args.length) return fail(`option requires an argument -- '${letter}'`);
        value = args[++index]!;
      }
      options.push({ key: letter, value, named: `-${letter}`, long: false });
      break;
    }
  }
  return { options, operands, error: undefined };
}
