import { randomBytes } from 'node:crypto';
import type { Logger } from '../../lib/index.js';

/** What every log line a request causes carries. */
export interface RequestContext {
  /** The request's id (`X-Request-Id`). */
  request_id: string;
  /** The id (never the secret) of the key that authenticated, once one did. */
  key_id?: string;
  /** On a request to `/mcp`: the JSON-RPC method it carried, and the tool it called, for its log line. */
  mcp?: { method: string; tool?: string };
}

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

/**
 * `logger` for the lines one request causes, here and in the core (handed to it with the call): each
 * carries the request's `request_id`, and its `key_id` once a key authenticated. The context goes with
 * the call, explicitly: an `AsyncLocalStorage` would tax every promise of the process (on Node 20).
 */
export function requestLogger(logger: Logger, context: RequestContext): Logger {
  const fields = (own: Record<string, unknown> | undefined): Record<string, unknown> =>
    context.key_id === undefined
      ? { request_id: context.request_id, ...own }
      : { request_id: context.request_id, key_id: context.key_id, ...own };
  return {
    info: (message, own) => logger.info(message, fields(own)),
    warn: (message, own) => logger.warn(message, fields(own)),
    error: (message, own) => logger.error(message, fields(own)),
  };
}
