// The whole server process, fuzzed: under each legacy protocol version, a
// real `node dist/bin/diskprobe.js` gets the handshake, then at least 20,000
// mutated frames of both eras (and one line of more than 12 MB) written in
// chunks cut at random points, then a ping and a 2026-07-28 server/discover;
// and the same with no handshake, as a 2026-07-28 client would, its frames
// mostly that era's. Invariants: the process never dies and exits 0 at EOF;
// stdout is nothing but complete lines of JSON; every request is answered
// exactly once (a cancelled one at most once), no notification is answered,
// garbage gets its id-null error, a 2026-07-28 request gets the answer the
// rules decide; each subscriptions/listen is acknowledged first and answered
// only at EOF, with its graceful close, unless cancelled; the last ping and
// discover are answered. And once more with SIGTERM in the middle: whole
// lines, nothing answered twice, exit 0.
// FUZZ_FRAMES=N raises the frames per process for a longer hunt.
import { spawn } from 'node:child_process';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { LEGACY_VERSIONS } from '../../dist/mcp/protocol/versions.js';
import { serverPath } from '../e2e/mcpClient.js';
import { type FuzzFrame, frame, hugeLine, modernFrame } from './frames.js';
import { HANDSHAKE_ID, Ids } from './ids.js';
import { modelFrames, Owed } from './model.js';
import { hugeModernLines } from './modernFrames.js';
import { goodMeta } from './modernMeta.js';
import { compare, Said } from './said.js';
import { replay, seed } from './seed.js';

/** Frames per process; FUZZ_FRAMES raises it for a longer hunt. */
const FRAMES = Math.max(20_000, Number(process.env.FUZZ_FRAMES ?? 0));
/** The server's default --max-message-bytes (4 MiB). */
const CAP = 4 * 1024 * 1024;
/** More than 12 MB, per the issue: three times the cap. */
const HUGE = 12 * 1024 * 1024 + 1;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One value drawn from `arbitrary`, the same for the same seed and salt. */
const draw = <T>(arbitrary: fc.Arbitrary<T>, salt: number): T => fc.sample(arbitrary, { seed: seed + salt, numRuns: 1 })[0]!;

/** Chunk sizes: single bytes (splitting characters and CRLFs), small reads, pipe-sized ones. */
const chunkSizes = fc.array(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 600 }), fc.integer({ min: 600, max: 65_536 })), {
  minLength: 100,
  maxLength: 100,
});

const INIT_ANSWER = `"id":${JSON.stringify(HANDSHAKE_ID)},"result"`;
const PROBE_ANSWER = '"id":"probe","result"';
const PING_ANSWER = '{"jsonrpc":"2.0","id":"final-ping","result":{}}';
const DISCOVER_ANSWER = '{"jsonrpc":"2.0","id":"final-discover","result":{';
/** What every stream ends with: a newline (ending any frame left open), then a ping and a server/discover as a 2026-07-28 client sends it. */
const FINAL = `\n{"jsonrpc":"2.0","id":"final-ping","method":"ping"}\n{"jsonrpc":"2.0","id":"final-discover","method":"server/discover","params":{"_meta":${goodMeta()}}}\n`;

/** A legacy version, whose session the handshake opens; or none, for a 2026-07-28 client's stream. */
type Era = (typeof LEGACY_VERSIONS)[number] | 'modern';

interface Run {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly pingAnswered: boolean;
  readonly discoverAnswered: boolean;
}

/**
 * Spawns the server, does the handshake (for `modern`, a server/discover
 * probe instead), writes `input` in chunks of `sizes`, pings and discovers,
 * ends stdin. With
 * `sigtermAfter`, stops writing after that many chunks instead and sends
 * SIGTERM: no ping, no EOF.
 */
async function runServer(era: Era, input: Buffer, sizes: number[], sigtermAfter?: number): Promise<{ run: Run; written: Buffer[] }> {
  const child = spawn(process.execPath, [serverPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  // Lines we wait for are found in the chunk they arrive in (with the last
  // chunk's tail, in case one straddles two reads), not in all of stdout.
  const arrived = new Set<string>();
  const awaited = new Map<string, () => void>();
  let tail = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out.push(chunk);
    const window = tail + chunk.toString('latin1');
    for (const text of [INIT_ANSWER, PROBE_ANSWER, PING_ANSWER, DISCOVER_ANSWER]) {
      if (!arrived.has(text) && window.includes(text)) {
        arrived.add(text);
        awaited.get(text)?.();
      }
    }
    tail = window.slice(-256);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.on('error', () => {}); // a dead server shows in the exit status, not as EPIPE here
  let alive = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      alive = false;
      resolve({ code, signal });
    }),
  );
  /** Resolves true when `text` arrives, false if the server exits first or `ms` pass. */
  const waitFor = (text: string, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (arrived.has(text)) return resolve(true);
      const timer = setTimeout(() => resolve(false), ms);
      awaited.set(text, () => {
        clearTimeout(timer);
        resolve(true);
      });
      void exited.then(() => setImmediate(() => resolve(false))); // after the last 'data', which comes before 'close'
    });
  const write = async (bytes: Buffer): Promise<void> => {
    if (!alive || child.stdin.write(bytes)) return;
    await new Promise<void>((resolve) => {
      const go = (): void => {
        child.stdin.off('drain', go).off('close', go);
        resolve();
      };
      child.stdin.on('drain', go).on('close', go);
    });
  };

  const written: Buffer[] = [];
  if (era !== 'modern') {
    const initialize = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: HANDSHAKE_ID, method: 'initialize', params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } })}\n`,
    );
    written.push(initialize);
    await write(initialize);
    expect(await waitFor(INIT_ANSWER, 10_000), `no answer to initialize${stderr ? `; stderr: ${stderr}` : ''}`).toBe(true);
    const initialized = Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    written.push(initialized);
    await write(initialized);
  } else {
    // The probe a dual-era client sends first (stdio.mdx, "Backward Compatibility"); its answer also
    // says the server is up, which matters for SIGTERM: in Node's own start-up, before the command's first statement, a signal kills it.
    const probe = Buffer.from(`{"jsonrpc":"2.0","id":"probe","method":"server/discover","params":{"_meta":${goodMeta()}}}\n`);
    written.push(probe);
    await write(probe);
    expect(await waitFor(PROBE_ANSWER, 10_000), `no answer to server/discover${stderr ? `; stderr: ${stderr}` : ''}`).toBe(true);
  }

  // The fuzz input, then the final requests, all cut the same way.
  const body = Buffer.concat([input, Buffer.from(FINAL)]);
  let at = 0;
  for (let i = 0; at < body.length && alive && i !== sigtermAfter; i++) {
    const size = sizes[i % sizes.length]!;
    await write(body.subarray(at, at + size));
    at += size;
  }
  written.push(body.subarray(0, at));
  let pingAnswered = false;
  let discoverAnswered = false;
  if (sigtermAfter === undefined) {
    pingAnswered = await waitFor(PING_ANSWER, 120_000);
    discoverAnswered = await waitFor(DISCOVER_ANSWER, 10_000);
    child.stdin.end();
  } else {
    child.kill('SIGTERM');
  }
  const timeout = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const { code, signal } = await exited;
  clearTimeout(timeout);
  return { run: { stdout: Buffer.concat(out), stderr, code, signal, pingAnswered, discoverAnswered }, written };
}

/** Reads stdout strictly: complete lines only, each UTF-8 JSON; tallies them. */
function readStdout(stdout: Buffer, batches: boolean): Said {
  const said = new Said();
  if (stdout.length > 0 && stdout[stdout.length - 1] !== 0x0a) said.problems.push('stdout does not end with a newline: its last line is incomplete');
  let start = 0;
  for (let end = stdout.indexOf(0x0a); end >= 0; start = end + 1, end = stdout.indexOf(0x0a, start)) {
    let text: string;
    let value: unknown;
    try {
      text = strictUtf8.decode(stdout.subarray(start, end));
    } catch {
      said.problems.push(`line at byte ${start} is not UTF-8`);
      continue;
    }
    try {
      value = JSON.parse(text);
    } catch {
      said.problems.push(`not JSON: ${text.slice(0, 300)}`);
      continue;
    }
    said.line(value, text, batches);
  }
  return said;
}

/**
 * What the server owes for everything written (the handshake, if any, and
 * the flood) and for EOF; `cutShort`: SIGTERM, so it may not have read it all.
 */
function owedFor(written: readonly Buffer[], cutShort = false): Owed {
  const owed = new Owed();
  for (const part of written) for (const line of modelFrames(part, CAP)) owed.frame(line);
  owed.end(cutShort);
  return owed;
}

/** The problems a run shows besides what compare() finds: how the process ended, and what stderr says. */
function processProblems(run: Run): string[] {
  const problems: string[] = [];
  if (run.code !== 0 || run.signal !== null) problems.push(`the server exited with ${JSON.stringify({ code: run.code, signal: run.signal })}`);
  // A bug shows on stderr even when the client got its -32603; so would an unhandled rejection the process survived.
  if (/internal error|unhandled|RangeError|TypeError/i.test(run.stderr)) problems.push(`stderr reports a bug: ${run.stderr.slice(0, 2000)}`);
  return problems;
}

const ERAS: readonly Era[] = [...LEGACY_VERSIONS, 'modern'];

describe('the server process under fuzzing', () => {
  const runs = ERAS.map((era, index) => [era === 'modern' ? '2026-07-28 (no handshake)' : era, era, index] as const);
  it.each(runs)('survives fuzzing under %s and answers as the model says', async (_title, era, index) => {
    const salt = 100 * (index + 1);
    const mix: fc.Arbitrary<FuzzFrame> = era === 'modern' ? modernFrame : frame;
    const builds = draw(fc.array(mix, { minLength: FRAMES, maxLength: FRAMES }), salt);
    const hugeAt = draw(fc.nat(FRAMES), salt + 1);
    const sizes = draw(chunkSizes, salt + 2);
    const ids = new Ids([HANDSHAKE_ID]);
    const parts = builds.map((build) => build(ids));
    parts.splice(hugeAt, 0, hugeLine(HUGE, 'huge'), ...hugeModernLines(ids));
    const input = Buffer.concat(parts);

    const started = Date.now();
    const { run, written } = await runServer(era, input, sizes);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);

    const owed = owedFor(written);
    const said = readStdout(run.stdout, owed.batchesSeen);

    const requests = [...owed.byId.values()].reduce((sum, n) => sum + n, 0);
    const codes = [...said.codes]
      .sort(([a], [b]) => a - b)
      .map(([code, n]) => `${code}×${n}`)
      .join(' ');
    const streams = [...owed.acks.values()].reduce((sum, asked) => sum + asked.length, 0);
    console.log(
      `${era}: ${FRAMES} frames, ${(input.length / 1e6).toFixed(1)} MB in ${seconds} s; ${requests} answers owed by id (${owed.expected.size} decided by the rules), ${owed.nulls} with id null, ${owed.cancelled.size} ids cancelled, ${streams} streams opened; errors ${codes}`,
    );

    const problems = [...processProblems(run), ...compare(owed, said)];
    if (!run.pingAnswered) problems.unshift('the final ping was not answered');
    if (!run.discoverAnswered) problems.unshift('the final server/discover was not answered');
    expect(problems.slice(0, 30), `${replay}\n${era}; stderr: ${run.stderr.slice(-2000)}`).toEqual([]);
  });

  it('on SIGTERM in the middle of it all, answers what it read at most once each, writes whole lines, and exits 0', async () => {
    const salt = 900;
    const era = draw(fc.constantFrom<Era>(...ERAS), salt);
    const builds = draw(fc.array(era === 'modern' ? modernFrame : frame, { minLength: 5000, maxLength: 5000 }), salt + 1);
    const sizes = draw(chunkSizes, salt + 2);
    const ids = new Ids([HANDSHAKE_ID]);
    const input = Buffer.concat(builds.map((build) => build(ids)));
    // Somewhere in the first hundred or so chunks: mid-line, mid-batch, with requests in flight.
    const after = draw(fc.integer({ min: 1, max: 120 }), salt + 3);
    const { run, written } = await runServer(era, input, sizes, after);

    // What the client sends after SIGTERM is never read, so fewer answers are fine; more, or twice, are not.
    const owed = owedFor(written, true);
    const said = readStdout(run.stdout, owed.batchesSeen);
    const problems = [...processProblems(run), ...compare(owed, said, true)];
    console.log(`SIGTERM under ${era} after ${after} chunks (${written.at(-1)!.length} bytes): ${said.byId.size} ids answered, ${said.nulls} with id null`);
    expect(problems.slice(0, 30), `${replay}\n${era}; stderr: ${run.stderr.slice(-2000)}`).toEqual([]);
  });
});
