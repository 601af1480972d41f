import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { type DocumentStreamEvent, DossierError, type Logger } from '../../lib/index.js';
import { HTTP_ERRORS } from './error-map.js';
import { logUnexpected } from './error-middleware.js';

/** True when the `Accept` header asks for `text/event-stream` (with a q-value above 0). */
export function acceptsEventStream(accept: string): boolean {
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Answers a streamed creation as Server-Sent Events (CONTRACT.md §9). `start` is called with a signal
 * that aborts when the client goes away; an error it throws (validation) propagates before anything
 * is written, to be answered as JSON like any other. Then: `200`, `text/event-stream`, headers
 * flushed, one `event: delta` per piece, the `event: document` at the end, or an `event: error` with
 * `{"message","status"}` when the generation fails after the headers went out. Resolves when the
 * stream is over.
 */
export async function respondWithEventStream(
  ctx: Context,
  start: (signal: AbortSignal) => Promise<AsyncIterable<DocumentStreamEvent>>,
  logger: Logger,
): Promise<void> {
  const res = ctx.res;
  const client = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) client.abort(new Error('The client closed the connection.'));
  };
  res.once('close', onClose);
  try {
    const events = await start(client.signal);
    ctx.status = 200;
    // The answer is written here, event by event; Koa must not write a body of its own.
    ctx.respond = false;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    try {
      for await (const event of events) {
        if (event.type === 'delta') await send(res, 'delta', { text: event.text });
        else await send(res, 'document', event.document);
      }
    } catch (error) {
      // A client that went away hears nothing more; the generation stopped because of it.
      if (!client.signal.aborted) await send(res, 'error', streamError(error, ctx.path, logger));
    }
    res.end();
  } finally {
    res.off('close', onClose);
  }
}

/** The `error` event's data for what the generation threw; logged like a 5xx answer. */
function streamError(error: unknown, path: string, logger: Logger): { message: string; status: number } {
  if (error instanceof DossierError) {
    const { status } = HTTP_ERRORS[error.code];
    if (status >= 500) logger.warn('stream failed', { path, code: error.code, message: error.message });
    return { message: error.message, status };
  }
  logUnexpected(logger, path, error);
  return { message: 'Server Error.', status: 500 };
}

/** Writes one event, waiting while the client reads slower than the events come; nothing once it is gone. */
async function send(res: ServerResponse, event: string, data: unknown): Promise<void> {
  if (res.destroyed || res.writableEnded) return;
  if (res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
