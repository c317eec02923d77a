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
 * `diskprobe df`'s command line refused as GNU df refuses it: df's messages,
 * each on its line after "diskprobe: ", then (for most) df's pointer to the
 * help, with df's exit status, 1.
 */
export class DfUsageError extends UsageError {
  override readonly name = 'DfUsageError';
  override readonly status = 1;

  constructor(
    readonly lines: readonly string[],
    /** Followed by "Try 'diskprobe df --help' …", as df's usage(EXIT_FAILURE) adds it. */
    readonly tryHelp: boolean,
  ) {
    super(lines.join('\n'));
  }

  override report(): string {
    const text = this.lines.map((line) => `diskprobe: ${line}\n`).join('');
    return this.tryHelp ? `${text}Try 'diskprobe df --help' for more information.\n` : text;
  }
}
