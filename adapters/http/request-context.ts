import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** What every log line a request causes carries. */
export interface RequestContext {
  /** The request's id (`X-Request-Id`). */
  request_id: string;
  /** The id (never the secret) of the key that authenticated, once one did. */
  key_id?: string;
}

/** The context of the request being served, for the log lines written while it is. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A random prefix per process, so that ids stay unique across the processes of one deployment. */
const ID_PREFIX = `${randomBytes(6).toString('hex')}-`;
let sequence = 0;

/**
 * The client's `X-Request-Id` when it is 1–128 characters of `[A-Za-z0-9._:-]`, else a new one: this
 * process's random prefix and a counter (unique without drawing random bytes on every request).
 */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && VALID_ID.test(header) ? header : ID_PREFIX + (++sequence).toString(36);
}

/** Records the authenticated key's id in the current request's context (no-op outside a request). */
export function noteKeyId(keyId: string): void {
  const context = requestContext.getStore();
  if (context !== undefined) context.key_id = keyId;
}
