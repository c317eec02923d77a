// A request's body, read within --max-message-bytes and decoded as UTF-8.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { RpcError } from '../../jsonrpc/errors.js';
import { refuse, transportError } from './httpErrors.js';

/** The body as text, or undefined after refusing it (too long: 413; not UTF-8: 400; cut short: no answer). */
export function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<string | undefined> {
  const tooLong = (bytes: string): void => {
    refuse(res, 413, transportError(`the body of ${bytes} bytes exceeds the limit of ${limit} bytes (--max-message-bytes)`), null, { connection: 'close' });
    req.resume();
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    tooLong(String(declared));
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        tooLong(`more than ${limit}`);
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      try {
        resolve(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, size)));
      } catch {
        refuse(res, 400, RpcError.parseError('the body is not valid UTF-8'));
        resolve(undefined);
      }
    });
    req.on('error', () => resolve(undefined)); // cut short: nobody to answer
    req.on('aborted', () => resolve(undefined));
  });
}
