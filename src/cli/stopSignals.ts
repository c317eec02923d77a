// SIGTERM and SIGINT, from the first statement the command runs to its last.
//
// Imported by the command's entry (diskprobe.ts), so its handlers are in
// place before Node has even read the rest of the command: a host that
// starts the server and stops it at once (a health check, a restart) must
// see exit 0, not death by the signal. One module, one state: the entry and
// the command import the same chunk (scripts/bundle-cli.mjs). What no JS can
// cover is Node's own start-up before it: Node resets every signal's
// disposition and the signal mask when it starts (ResetSignalHandlers in
// node.cc), so an inherited SIG_IGN or blocked mask cannot carry a process
// through it either (docs/mcp-server.md, "Stopping").
//
// The handlers are never removed from a server: a signal that comes while it
// winds down, after its listeners have run, would otherwise get Node's
// default action and kill it with status 143 (issue 17). Node's signal
// handles are unreferenced, so they never keep a finished process alive.
// Commands that are not servers give the signals back (releaseStopSignals).

export type StopSignal = 'SIGTERM' | 'SIGINT';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGTERM', 'SIGINT'];

let received: StopSignal | undefined;
const listeners = new Set<(signal: StopSignal) => void>();

function onSignal(signal: StopSignal): void {
  if (received !== undefined) return; // a second signal changes nothing: the first is being answered
  received = signal;
  for (const listener of listeners) listener(signal);
}

for (const signal of STOP_SIGNALS) process.on(signal, onSignal);

if (process.env.DISKPROBE_DEBUG_SIGNALS === '1') {
  // For test/e2e/stopAnyTime.test.ts: a run killed by a signal before this
  // line was killed in Node's start-up, not by a gap in ours.
  process.stderr.write(`diskprobe: stop signals handled from ${performance.now().toFixed(1)} ms\n`);
}

/**
 * Calls `listener` once when SIGTERM or SIGINT arrives, or at once if one
 * already has (during start-up, before the server could listen). Returns a
 * function that stops listening; the signals stay handled either way.
 */
export function onStopSignal(listener: (signal: StopSignal) => void): () => void {
  if (received !== undefined) {
    listener(received);
    return () => {};
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Resolves with the first SIGTERM or SIGINT (at once if one has come already). */
export function stopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => onStopSignal(resolve));
}

/**
 * Ends a server with `status` once what it wrote to stdout and stderr has
 * been taken by the OS. By process.exit, not by letting the event loop run
 * dry: then Node's teardown closes its signal handles, and a signal in the
 * milliseconds of teardown left would get the default action (exit 143).
 * process.exit leaves the handlers in place to the last.
 */
export async function exitServer(status: number): Promise<never> {
  const written = (stream: NodeJS.WriteStream): Promise<void> =>
    new Promise((resolve) => {
      // A write of nothing calls back once every earlier write has been handed over (or has failed).
      if (stream.destroyed || !stream.writable) resolve();
      else stream.write('', () => resolve());
    });
  await Promise.all([written(process.stdout), written(process.stderr)]);
  process.exit(status);
}

/**
 * For commands that are not servers (df, metrics once, help): the signals
 * get their default action back, so ^C ends a slow `diskprobe df` as it ends
 * GNU df; one that came already is raised again, now with that action.
 */
export function releaseStopSignals(): void {
  for (const signal of STOP_SIGNALS) process.removeListener(signal, onSignal);
  listeners.clear();
  if (received !== undefined) process.kill(process.pid, received);
}
