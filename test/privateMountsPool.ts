// vitest.config.ts's pool: vitest's own 'forks' pool (one process per test
// file), with each process started in a mount namespace of its own, private
// propagation, before it runs a line (test/helpers/privateMounts.mjs; issue 27).
// So what a test file mounts (tmpfs, loop ext4, the FUSE fixture) is seen by
// no other test file, no other run and nothing else on the machine, and
// goes when the file's process does, however it ends: Ctrl-C, or vitest
// SIGKILLed, which takes its test processes with it (setpriv --pdeathsig).
//
// vitest 4 takes a custom pool as { name, createPoolWorker } (its
// PoolRunnerInitializer), and drives the PoolWorker it returns as it drives
// its own ForksPoolWorker. That one calls fork(), whose command is always
// node; this one spawns `unshare … setpriv … node` instead, with fork()'s IPC
// channel and serialization, on vitest's own worker entry (workers/forks.js).
// unshare and setpriv exec, so the process vitest talks to is node itself.
//
// Where no namespace can be made (not root, not Linux, no unshare(1)), the
// processes start as vitest's forks would, and the fork's environment says
// why: rootSkipReason (test/helpers/system.ts) checks that a test file owns
// its namespace, and the suites that mount skip, printing that reason.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';

import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from 'vitest/node';

import { inPrivateMounts, NO_PRIVATE_MOUNTS, privateMountsSkipReason } from './helpers/privateMounts.mjs';

/** As vitest's forks pool: SIGTERM first, SIGKILL if the process is still there after this. */
const SIGKILL_AFTER_MS = 500;

class PrivateMountsWorker implements PoolWorker {
  readonly name = 'privateMounts';
  readonly cacheFs = true;
  private child: ChildProcess | undefined;
  private readonly entrypoint: string;
  private readonly stdout: Writable;
  private readonly stderr: Writable;

  constructor(
    private readonly options: PoolOptions,
    private readonly noNamespaceReason: string | undefined,
  ) {
    this.entrypoint = resolve(options.distPath, 'workers/forks.js');
    this.stdout = options.project.vitest.logger.outputStream;
    this.stderr = options.project.vitest.logger.errorStream;
  }

  private get process(): ChildProcess {
    if (!this.child) throw new Error('privateMountsPool: the test process was stopped or never started');
    return this.child;
  }

  on(event: string, callback: (arg: unknown) => void): void {
    this.process.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.process.off(event, callback);
  }

  send(message: WorkerRequest): void {
    this.process.send(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const node = [process.execPath, ...this.options.execArgv, this.entrypoint];
    const [command, ...args] = this.noNamespaceReason === undefined ? inPrivateMounts(node) : node;
    const env = this.noNamespaceReason === undefined ? this.options.env : { ...this.options.env, [NO_PRIVATE_MOUNTS]: this.noNamespaceReason };
    const child = spawn(command!, args, { env, stdio: ['pipe', 'pipe', 'pipe', 'ipc'], serialization: 'advanced' });
    this.child = child;
    this.stdout.setMaxListeners(this.stdout.getMaxListeners() + 1);
    this.stderr.setMaxListeners(this.stderr.getMaxListeners() + 1);
    child.stdout!.pipe(this.stdout, { end: false });
    child.stderr!.pipe(this.stderr, { end: false });
  }

  async stop(): Promise<void> {
    const child = this.process;
    const exited = new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) done();
      else child.once('exit', () => done());
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), SIGKILL_AFTER_MS);
    child.kill();
    await exited;
    clearTimeout(timer);
    child.stdout!.unpipe(this.stdout);
    child.stderr!.unpipe(this.stderr);
    this.stdout.setMaxListeners(this.stdout.getMaxListeners() - 1);
    this.stderr.setMaxListeners(this.stderr.getMaxListeners() - 1);
    this.child = undefined;
  }
}

/**
 * The pool, for vitest.config.ts. Whether namespaces can be made is found
 * once, when the config loads (test/globalSetup.ts says it when they cannot).
 */
export function privateMountsPool(): PoolRunnerInitializer {
  const reason = privateMountsSkipReason();
  return { name: 'privateMounts', createPoolWorker: (options) => new PrivateMountsWorker(options, reason) };
}
