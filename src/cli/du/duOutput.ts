// Where `diskprobe du`'s lines and messages go: stdout in blocks of 64 KiB
// (du -a of a large tree is millions of lines), flushed before anything goes
// to stderr so that `2>&1` interleaves them as du's unbuffered stderr and
// line-flushed stdout do; and, when stderr is a terminal, a progress line
// rewritten in place while a walk runs, erased before anything else is
// written.
import { counted } from '../../format/counted.js';
import { HUMAN_1024, humanReadable } from '../../format/humanReadable.js';
import { shellQuote } from '../../format/shellQuote.js';

export interface DuOutput {
  readonly stdout: { write(chunk: string | Uint8Array): unknown };
  readonly stderr: { write(chunk: string | Uint8Array): unknown; readonly isTTY?: boolean };
}

const BLOCK = 64 * 1024;
/** Erases the progress line: back to the start of the line, clear to its end. */
const ERASE = '\r\x1b[K';

export class DuWriter {
  private block = Buffer.allocUnsafe(BLOCK);
  private used = 0;
  private progressShown = false;
  /** Anything was said on stderr (but progress): the exit status is 1. */
  complained = false;

  constructor(
    private readonly output: DuOutput,
    /** The size as du prints it, from bytes. */
    private readonly sizeText: (bytes: bigint) => string,
    /** What ends a line: "\n", or NUL for -0. */
    private readonly end: number,
    /** Quotes a path in a message as du does (quoteaf). */
    private readonly quote: (path: Uint8Array) => string,
  ) {}

  /** A line: the size, a tab, the path as raw bytes, the end. */
  line(bytes: bigint, path: Uint8Array): void {
    const size = this.sizeText(bytes);
    const length = size.length + 1 + path.length + 1;
    if (this.used + length > this.block.length) {
      this.flush();
      if (length > this.block.length) this.block = Buffer.allocUnsafe(length);
    }
    this.used += this.block.write(size, this.used, 'latin1');
    this.block[this.used++] = 0x09;
    this.block.set(path, this.used);
    this.used += path.length;
    this.block[this.used++] = this.end;
  }

  /** Text or bytes as they are, on stdout (--top's and --json's). */
  text(text: string | Uint8Array): void {
    this.flush();
    this.output.stdout.write(text);
  }

  /** "diskprobe: <what> '<path>': <reason>", as du words its complaints. */
  complain(what: string, path: Uint8Array, reason: string): void {
    this.message(`${what} ${this.quote(path)}: ${reason}`);
  }

  /** A line of its own on stderr, after "diskprobe: ". */
  message(text: string): void {
    this.complained = true;
    this.flush();
    this.output.stderr.write(`diskprobe: ${text}\n`);
  }

  /** Writes what is held. */
  flush(): void {
    this.eraseProgress();
    if (this.used === 0) return;
    // A copy: the stream may hold on to it while this block is reused.
    this.output.stdout.write(Buffer.from(this.block.subarray(0, this.used)));
    this.used = 0;
  }

  /** Rewrites the progress line (only on a terminal): entries met and their bytes, so far. */
  progress(entries: number, allocated: number): void {
    if (this.output.stderr.isTTY !== true) return;
    const bytes = humanReadable(BigInt(Math.max(0, Math.trunc(allocated))), HUMAN_1024, 1n, 1n, 64);
    this.output.stderr.write(`${ERASE}diskprobe du: ${counted(entries, 'entry', 'entries')}, ${bytes}`);
    this.progressShown = true;
  }

  eraseProgress(): void {
    if (!this.progressShown) return;
    this.output.stderr.write(ERASE);
    this.progressShown = false;
  }
}

/** du's quoteaf(): always quoted, shell-escaped, as the locale allows. */
export function quoteAlways(utf8: boolean): (path: Uint8Array) => string {
  return (path) => shellQuote(path, { always: true, colon: false, utf8 });
}

/** Sizes as du prints them: human_readable(bytes, options, 1, blockSize), with a fast way for plain block counts. */
export function duSizeText(humanOptions: number, blockSize: bigint, precision: number): (bytes: bigint) => string {
  if (humanOptions === 0 && blockSize === 1n) return (bytes) => bytes.toString();
  // Without a letter or autoscaling, human_readable rounds up to whole blocks.
  if (humanOptions === 0) return (bytes) => ((bytes + blockSize - 1n) / blockSize).toString();
  return (bytes) => humanReadable(bytes, humanOptions, 1n, blockSize, precision);
}
