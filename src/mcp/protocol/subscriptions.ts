// subscriptions/listen (basic/patterns/subscriptions.mdx, 2026-07-28): a
// request whose answer is a stream of change notifications, open until the
// client cancels it or the server shuts down.
//
// What changes here is the mount table: a disk or share mounted or
// unmounted. That changes disk://mounts and the resource list (one resource
// per mount), so a stream may carry resourcesListChanged and updates of
// disk://mounts. The tools and prompts never change: those filters are
// left out of the acknowledgment, as the spec says of types a server does
// not support.
import { RpcError } from '../../jsonrpc/errors.js';
import type { RequestId } from '../../jsonrpc/messages.js';
import { META, type Notification, type RequestScope } from './requestScope.js';

/** The filter as the server honours it: a subset of what the client asked for. */
interface Honored {
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

interface Subscription {
  readonly honored: Honored;
  readonly notify: (notification: Notification) => void;
  /** Ends the request with its graceful-close result. */
  readonly close: () => void;
}

/**
 * Streams open at once at most: each is a request in flight, and the transport holds input while too many are.
 * @internal exported for the tests
 */
export const MAX_SUBSCRIPTIONS = 64;

export class Subscriptions {
  private readonly open = new Map<RequestId, Subscription>();
  private stopWatching: (() => void) | undefined;

  /**
   * @param watch starts watching the mount table, so changes are seen without
   *   a probe; returns the function that stops it. Called while any stream is open.
   * @param mountsUri the resource that lists the mounts (disk://mounts): the one
   *   whose updates are delivered.
   */
  constructor(
    private readonly watch: () => () => void,
    private readonly mountsUri: string,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /**
   * Opens a stream: acknowledges the honoured filter first (the spec: before
   * any other message of the subscription), then resolves when the server
   * closes it, with the graceful-close result. A cancel removes it at once;
   * the dispatcher sends nothing for a cancelled request.
   */
  listen(params: Record<string, unknown>, scope: RequestScope, result: (meta: Record<string, unknown>) => unknown): Promise<unknown> {
    const honored = honoredFilter(params.notifications, this.mountsUri);
    if (this.open.size >= MAX_SUBSCRIPTIONS) {
      throw new RpcError(-32603, `Too many open subscriptions (${MAX_SUBSCRIPTIONS}): cancel one before opening another`);
    }
    const id = scope.id;
    const tag = { [META.subscriptionId]: id };
    const notify = (method: string, fields: Record<string, unknown> = {}): void => scope.notify({ method, params: { _meta: tag, ...fields } });
    // Watching before the acknowledgment: any change the client could make after it is seen.
    this.stopWatching ??= this.watch();
    notify('notifications/subscriptions/acknowledged', { notifications: honored });
    return new Promise((resolve) => {
      const end = (): void => {
        if (!this.open.delete(id)) return;
        if (this.open.size === 0) {
          this.stopWatching?.();
          this.stopWatching = undefined;
        }
      };
      this.open.set(id, {
        honored,
        notify: ({ method, params: fields }) => notify(method, fields),
        close: () => {
          end();
          resolve(result(tag));
        },
      });
      // Cancelled: nothing more goes out for it, and the dispatcher drops whatever it resolves with.
      scope.signal.addEventListener('abort', () => {
        end();
        resolve(undefined);
      });
    });
  }

  /** The mount table changed: tell every stream that asked. */
  mountsChanged(): void {
    for (const { honored, notify } of this.open.values()) {
      if (honored.resourcesListChanged) notify({ method: 'notifications/resources/list_changed', params: {} });
      if (honored.resourceSubscriptions?.includes(this.mountsUri)) notify({ method: 'notifications/resources/updated', params: { uri: this.mountsUri } });
    }
  }

  /** The server is shutting down: each stream ends with its graceful-close result (subscriptions.mdx, "Graceful Closure"). */
  closeAll(): void {
    for (const subscription of [...this.open.values()]) subscription.close();
  }
}

/** Checks the client's filter (SubscriptionFilter) and keeps what this server can deliver. */
function honoredFilter(filter: unknown, mountsUri: string): Honored {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw RpcError.invalidParams('params.notifications is required: the change notifications to receive, e.g. {"resourcesListChanged": true}');
  }
  const asked = filter as Record<string, unknown>;
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
    if (asked[key] !== undefined && typeof asked[key] !== 'boolean') throw RpcError.invalidParams(`params.notifications.${key} must be a boolean`);
  }
  const uris = asked.resourceSubscriptions;
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((uri) => typeof uri === 'string'))) {
    throw RpcError.invalidParams('params.notifications.resourceSubscriptions must be an array of resource URIs');
  }
  const honored: Honored = {};
  if (asked.resourcesListChanged === true) honored.resourcesListChanged = true;
  // Only disk://mounts changes by itself; a path's usage changes all the time, which no notification could keep up with.
  if (uris?.includes(mountsUri)) honored.resourceSubscriptions = [mountsUri];
  return honored;
}
