import { describe, expect, it } from 'vitest';

import { Dispatcher, type DispatcherHandlers } from '../../dist/jsonrpc/dispatcher.js';
import { RpcError } from '../../dist/jsonrpc/errors.js';
import type { RequestSignal } from '../../dist/jsonrpc/requestSignal.js';
import { announceSkip, posixPathsSkipReason } from '../helpers/system.js';

function setup(overrides: Partial<DispatcherHandlers> = {}) {
  const sent: unknown[] = [];
  const bugs: string[] = [];
  const notifications: string[] = [];
  const handlers: DispatcherHandlers = {
    request: (method, params) => {
      if (method === 'echo') return params ?? {};
      if (method === 'slow') return new Promise((resolve) => setTimeout(() => resolve({ slow: true }), 20));
      if (method === 'bad') throw RpcError.invalidParams('bad thing');
      if (method === 'bug') throw new Error('secret detail');
      throw RpcError.methodNotFound(method);
    },
    notification: (method) => void notifications.push(method),
    acceptsBatch: () => false,
    internalError: (error) => void bugs.push(String(error)),
    ...overrides,
  };
  const dispatcher = new Dispatcher(handlers, (message) => void sent.push(message));
  const settle = async (): Promise<void> => {
    await dispatcher.idle();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { dispatcher, sent, bugs, notifications, settle };
}

describe('Dispatcher', () => {
  it('answers a request once, echoing its id exactly, and never a notification', async () => {
    const { dispatcher, sent, notifications, settle } = setup();
    dispatcher.handleLine('{"jsonrpc":"2.0","id":"abc","method":"echo","params":{"x":1}}');
    dispatcher.handleLine('{"jsonrpc":"2.0","id":0,"method":"echo"}');
    dispatcher.handleLine('{"jsonrpc":"2.0","method":"note"}');
    dispatcher.handleLine('{"jsonrpc":"2.0","method":"bad"}');
    await settle();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 'abc', result: { x: 1 } },
      { jsonrpc: '2.0', id: 0, result: {} },
    ]);
    expect(notifications).toEqual(['note', 'bad']);
  });

  it.each([
    ['not JSON', '{"jsonrpc":', null, -32700],
    ['a bare scalar', '42', null, -32600],
    ['a missing jsonrpc', '{"id":1,"method":"echo"}', 1, -32600],
    ['a wrong jsonrpc', '{"jsonrpc":"1.0","id":"a","method":"echo"}', 'a', -32600],
    ['a method that is not a string', '{"jsonrpc":"2.0","id":2,"method":7}', 2, -32600],
    ['a float id', '{"jsonrpc":"2.0","id":1.5,"method":"echo"}', null, -32600],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"echo"}', null, -32600],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"echo"}', null, -32600],
    ['scalar params', '{"jsonrpc":"2.0","id":3,"method":"echo","params":5}', 3, -32600],
    ['an unknown method', '{"jsonrpc":"2.0","id":4,"method":"nope"}', 4, -32601],
    ['a handler refusing params', '{"jsonrpc":"2.0","id":5,"method":"bad"}', 5, -32602],
  ])('answers %s with the right code and id', async (_, line, id, code) => {
    const { dispatcher, sent, settle } = setup();
    dispatcher.handleLine(line);
    await settle();
    expect(sent).toEqual([{ jsonrpc: '2.0', id, error: expect.objectContaining({ code, message: expect.any(String) }) }]);
  });

  it('refuses a message nested more than 1000 levels deep with -32600 and its id, and takes one at the limit (found by fuzzing)', async () => {
    // JSON.stringify overflows the stack at about 4,000 levels: a handler quoting such a value in an error message threw.
    const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const { dispatcher, sent, bugs, notifications, settle } = setup();
    dispatcher.handleLine(`{"jsonrpc":"2.0","id":"limit","method":"echo","params":${nested(999)}}`); // the message: 1000 deep
    dispatcher.handleLine(`{"jsonrpc":"2.0","id":"over","method":"echo","params":${nested(1000)}}`);
    dispatcher.handleLine(`{"jsonrpc":"2.0","id":"deep","method":"echo","params":[${'['.repeat(5000)}${']'.repeat(5000)}]}`);
    dispatcher.handleLine(`{"jsonrpc":"2.0","method":"note","params":${nested(5000)}}`);
    await settle();
    const refused = (id: string | null) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: 'Invalid Request: the message nests more than 1000 levels deep' },
    });
    expect(sent).toHaveLength(4);
    expect(sent).toEqual(
      expect.arrayContaining([{ jsonrpc: '2.0', id: 'limit', result: JSON.parse(nested(999)) }, refused('over'), refused('deep'), refused(null)]),
    );
    expect(notifications).toEqual([]);
    expect(bugs).toEqual([]);
  });

  it('hides a bug behind -32603 and reports the details', async () => {
    const { dispatcher, sent, bugs, settle } = setup();
    dispatcher.handleLine('{"jsonrpc":"2.0","id":9,"method":"bug"}');
    await settle();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'Internal error' } }]);
    expect(bugs.join()).toContain('secret detail');
  });

  it('refuses batches unless told otherwise, and empty ones always', async () => {
    const { dispatcher, sent, settle } = setup();
    dispatcher.handleLine('[{"jsonrpc":"2.0","id":1,"method":"echo"}]');
    await settle();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }]);

    const batching = setup({ acceptsBatch: () => true });
    batching.dispatcher.handleLine('[]');
    batching.dispatcher.handleLine(
      '[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"note"},{"bad":1},{"jsonrpc":"2.0","id":2,"method":"slow"}]',
    );
    batching.dispatcher.handleLine('[{"jsonrpc":"2.0","method":"note"}]');
    await batching.settle();
    expect(batching.sent).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
        { jsonrpc: '2.0', id: 2, result: { slow: true } },
      ],
    ]);
  });

  it('sends nothing for a cancelled request, and aborts its signal', async () => {
    let seen: RequestSignal | undefined;
    const { dispatcher, sent, settle } = setup({
      request: (_method, _params, context) => {
        seen = context.signal;
        return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve('late')));
      },
    });
    dispatcher.handleLine('{"jsonrpc":"2.0","id":"c","method":"wait"}');
    dispatcher.cancel('c', 'user pressed stop');
    dispatcher.cancel('unknown');
    await settle();
    expect(seen?.aborted).toBe(true);
    expect(sent).toEqual([]);
  });

  it('refuses an id already in flight', async () => {
    const { dispatcher, sent, settle } = setup();
    dispatcher.handleLine('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    dispatcher.handleLine('{"jsonrpc":"2.0","id":1,"method":"echo"}');
    await settle();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32600, message: expect.stringContaining('already in use') }) },
      { jsonrpc: '2.0', id: 1, result: { slow: true } },
    ]);
  });

  it('resolves idle() only after the last response is sent', async () => {
    const { dispatcher, sent } = setup();
    dispatcher.handleLine('{"jsonrpc":"2.0","id":1,"method":"slow"}');
    dispatcher.handleLine('{"jsonrpc":"2.0","id":2,"method":"echo"}');
    await dispatcher.idle();
    expect(sent).toHaveLength(2);
  });

  it('resolves idle() only after answers still on their way are sent, not just when no handler runs (found by fuzzing)', async () => {
    // No request in flight, yet each of these answers is a few microtasks away when idle() is called:
    // a transport that flushed and ended its output then would lose them.
    const { dispatcher, sent } = setup({ acceptsBatch: () => true });
    dispatcher.handleLine('{"bad":1}');
    dispatcher.handleLine('[{"jsonrpc":"2.0","method":"note"},7]');
    await dispatcher.idle();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
      [{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }],
    ]);
    // And at once when nothing is owed.
    dispatcher.handleLine('{"jsonrpc":"2.0","method":"note"}');
    await dispatcher.idle();
  });

  it('ignores responses: this server asks nothing', async () => {
    const { dispatcher, sent, settle } = setup();
    dispatcher.handleLine('{"jsonrpc":"2.0","id":1,"result":{}}');
    await settle();
    expect(sent).toEqual([]);
  });

  it('answers the cap and encoding problems the framing reports', () => {
    const { dispatcher, sent } = setup();
    dispatcher.handleOversized(5000, 1000);
    dispatcher.handleBadEncoding();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: message of 5000 bytes exceeds the limit of 1000 bytes' } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid UTF-8' } },
    ]);
  });
});

describe.skipIf(announceSkip('RequestSignal with a probe of /', posixPathsSkipReason))('RequestSignal', () => {
  it('behaves as an AbortSignal does for the probe: aborts once, tells listeners once, and the probe accepts it', async () => {
    const { RequestSignal } = await import('../../dist/jsonrpc/requestSignal.js');
    const { diskUsage } = await import('../../dist/index.js');
    const signal = new RequestSignal();
    const heard: string[] = [];
    const removed = (): void => void heard.push('removed');
    signal.addEventListener('abort', () => heard.push('first'));
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    const pending = diskUsage('/', { signal });
    signal.abort(new Error('stop'));
    signal.abort(new Error('again'));
    expect(heard).toEqual(['first']);
    expect(signal.reason).toEqual(new Error('stop'));
    expect(() => signal.throwIfAborted()).toThrow('stop');
    await pending.then(
      (usage) => expect(usage.path).toBe('/'),
      (error: Error) => expect(error.name).toBe('AbortError'),
    );
    await expect(diskUsage('/', { signal })).rejects.toMatchObject({ name: 'AbortError', cause: new Error('stop') });
  });
});
