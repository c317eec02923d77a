// A command line that cannot be run, and what the command says about it.

/** A command line that cannot be run: one line on stderr pointing to --help, exit status 2. */
export class UsageError extends Error {
  override readonly name: string = 'UsageError';
  /** The exit status. */
  readonly status: number = 2;

  /** What goes to stderr. */
  report(): string {
    return `diskprobe: ${this.message}. Run 'diskprobe --help' for usage.\n`;
  }
}

/**
 * A command line refused as the GNU tool a command mirrors refuses it (df,
 * du): its messages, each on its line after "diskprobe: ", then (for most)
 * its pointer to the help, with its exit status, 1.
 */
class GnuUsageError extends UsageError {
  override readonly name: string = 'GnuUsageError';
  override readonly status = 1;

  constructor(
    /** The diskprobe command, named in the pointer to its help. */
    readonly command: 'df' | 'du',
    readonly lines: readonly string[],
    /** Followed by "Try 'diskprobe <command> --help' …", as the tool's usage(EXIT_FAILURE) adds it. */
    readonly tryHelp: boolean,
  ) {
    super(lines.join('\n'));
  }

  override report(): string {
    const text = this.lines.map((line) => `diskprobe: ${line}\n`).join('');
    return this.tryHelp ? `${text}Try 'diskprobe ${this.command} --help' for more information.\n` : text;
  }
}

/** `diskprobe df`'s command line refused as GNU df refuses it. */
export class DfUsageError extends GnuUsageError {
  override readonly name = 'DfUsageError';

  constructor(lines: readonly string[], tryHelp: boolean) {
    super('df', lines, tryHelp);
  }
}

/** `diskprobe du`'s command line refused as GNU du refuses it. */
export class DuUsageError extends GnuUsageError {
  override readonly name = 'DuUsageError';

  constructor(lines: readonly string[], tryHelp: boolean) {
    super('du', lines, tryHelp);
  }
}
