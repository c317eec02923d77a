// The ids the frames carry: fresh ones, so each answer can be told apart;
// earlier ones, for cancels; and, now and then, one a finished request had.

export type RequestId = string | number;

/** The id of the handshake's initialize, which the tests send before any frame. */
export const HANDSHAKE_ID = 'init';

/** Hands out ids no other frame uses, so each answer can be told apart. */
export class Ids {
  private next = 1;
  private readonly issued: RequestId[] = [];
  /** The ids of subscriptions/listen requests no cancel has named yet. */
  private readonly listening: RequestId[] = [];

  private readonly finished: RequestId[];

  /**
   * @param finished ids of requests answered before these frames (the
   *   handshake's initialize): a client may use them again, since an id
   *   need only differ from those of requests it has had no response for
   *   (basic/index.mdx, "Requests"); until it cancels a stream of that id,
   *   which never gets one, so the id is never free again.
   */
  constructor(finished: readonly RequestId[] = []) {
    this.finished = [...finished];
  }

  fresh(asString: boolean): RequestId {
    const n = this.next++;
    const id = asString ? `r${n}` : n;
    this.issued.push(id);
    return id;
  }

  /** An id for a subscriptions/listen, which cancelListen may name later: fresh, or (`reuse`) a finished request's. */
  listen(asString: boolean, reuse = false): RequestId {
    const id = reuse && this.finished.length > 0 ? this.finished[0]! : this.fresh(asString);
    this.listening.push(id);
    return id;
  }

  /** An id issued earlier (to cancel a request that may still be running), or a fresh one. */
  earlier(pick: number): RequestId {
    return this.issued.length === 0 ? this.fresh(false) : this.issued[pick % this.issued.length]!;
  }

  /** A subscriptions/listen no cancel has named yet (then it has been), else any earlier id. */
  cancelListen(pick: number): RequestId {
    if (this.listening.length === 0) return this.earlier(pick);
    const id = this.listening.splice(pick % this.listening.length, 1)[0]!;
    const at = this.finished.indexOf(id);
    if (at >= 0) this.finished.splice(at, 1);
    return id;
  }
}
