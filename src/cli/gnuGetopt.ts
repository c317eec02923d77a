// Command-line options read the way GNU programs read theirs: glibc's
// getopt_long, so that `diskprobe df` and `diskprobe du` take whatever a script
// hands GNU df and du.
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
  /**
   * Long options of diskprobe's own, beside a GNU tool's: matched exactly, or
   * by a prefix that matches none of `long`, so that every abbreviation the
   * GNU tool takes means what it means there, and is ambiguous where it is.
   */
  readonly ownLong?: readonly LongOption[];
  /** Stop at the first operand, as getopt does under POSIXLY_CORRECT. */
  readonly inOrder: boolean;
}

/** One option as it was met: its key, its value, and how it was written (-B or --block-size), for messages. */
interface GetoptOption {
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

/** The long options `name` may mean: an exact name wins; else every one it begins (the GNU tool's own first). */
function longCandidates(spec: GetoptSpec, name: string): readonly LongOption[] {
  const own = spec.ownLong ?? [];
  const exact = spec.long.find((option) => option.name === name) ?? own.find((option) => option.name === name);
  if (exact) return [exact];
  const prefixed = spec.long.filter((option) => option.name.startsWith(name));
  return prefixed.length > 0 ? prefixed : own.filter((option) => option.name.startsWith(name));
}

/** What getopt_long returns, one call at a time: an option, or the message of a bad one ('?'). */
export type GetoptEvent = { readonly option: GetoptOption } | { readonly error: string };

/**
 * Reads all of `args` as successive getopt_long calls would: the options and
 * the errors in the order met (a program that goes on after '?', as du does,
 * sees each), and the operands. Messages are getopt's without the program
 * name ("unrecognized option '--foo'").
 */
export function getoptEvents(args: readonly string[], spec: GetoptSpec): { events: GetoptEvent[]; operands: string[] } {
  const events: GetoptEvent[] = [];
  const operands: string[] = [];
  const option = (found: GetoptOption): number => events.push({ option: found });
  const error = (message: string): number => events.push({ error: message });
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
      const candidates = longCandidates(spec, equals < 0 ? text : text.slice(0, equals));
      if (candidates.length === 0) {
        error(`unrecognized option '--${text}'`);
        continue;
      }
      if (candidates.length > 1) {
        error(`option '--${text}' is ambiguous; possibilities:${candidates.map((candidate) => ` '--${candidate.name}'`).join('')}`);
        continue;
      }
      const found = candidates[0]!;
      let value: string | undefined;
      if (equals >= 0) {
        if (found.value === 'none') {
          error(`option '--${found.name}' doesn't allow an argument`);
          continue;
        }
        value = text.slice(equals + 1);
      } else if (found.value === 'required') {
        if (index + 1 >= args.length) {
          error(`option '--${found.name}' requires an argument`);
          continue;
        }
        value = args[++index];
      }
      option({ key: found.key, value, named: `--${found.name}`, long: true });
      continue;
    }
    // A cluster of short options; one that takes a value takes the rest, or the next argument.
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at]!;
      const takes = shortTakes(spec, letter);
      if (takes === undefined) {
        error(`invalid option -- '${letter}'`);
        continue;
      }
      if (takes === 'none') {
        option({ key: letter, value: undefined, named: `-${letter}`, long: false });
        continue;
      }
      let value = arg.slice(at + 1);
      if (value === '') {
        if (index + 1 >= args.length) {
          error(`option requires an argument -- '${letter}'`);
          break;
        }
        value = args[++index]!;
      }
      option({ key: letter, value, named: `-${letter}`, long: false });
      break;
    }
  }
  return { events, operands };
}

/**
 * Reads `args` as getopt_long would, stopping at the first error, as a
 * program that exits on '?' does (df). Messages are getopt's without the
 * program name ("unrecognized option '--foo'").
 */
export function getoptLong(args: readonly string[], spec: GetoptSpec): GetoptResult {
  const { events, operands } = getoptEvents(args, spec);
  const options: GetoptOption[] = [];
  for (const event of events) {
    if ('error' in event) return { options, operands, error: event.error };
    options.push(event.option);
  }
  return { options, operands, error: undefined };
}
