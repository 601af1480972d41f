import type { Context, Middleware, Next } from 'koa';
import { DossierError, type Logger } from '../../lib/index.js';
import { answerError, answerFailure, Reply } from '../http/index.js';

/**
 * JSON errors for routes of your own in a Koa app, as Dossier answers its own: every failure below it,
 * and every unmatched path, becomes the JSON error body of its interface. A `DossierError` gets the
 * status of its code; an HTTP error of a library (body too large, unsupported type) keeps its status;
 * anything else is a 500 with no stack trace, logged once. Dossier's own router needs none of it.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    const reply = new Reply();
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) {
        answerFailure(reply, ctx.path, 404, 'not_found', `There is no ${ctx.method} ${ctx.path}.`);
      } else if (ctx.status === 405 || (ctx.method === 'OPTIONS' && !ctx.body)) {
        const message = `${ctx.method} is not allowed on ${ctx.path}; use ${ctx.response.get('Allow')}.`;
        answerFailure(reply, ctx.path, 405, 'method_not_allowed', message);
      } else if (ctx.status === 501 && typeof ctx.body !== 'object') {
        answerFailure(reply, ctx.path, 501, 'not_implemented', `The method ${ctx.method} is not supported.`);
      } else {
        return;
      }
    } catch (error) {
      // An HTTP error of a library below (body too large, unsupported type or encoding): its status
      // stands; its message only when it was meant for the client.
      const { status, expose } = error as { status?: unknown; expose?: unknown };
      if (!(error instanceof DossierError) && typeof status === 'number' && status >= 400 && status < 500) {
        answerFailure(
          reply,
          ctx.path,
          status,
          'bad_request',
          expose ? (error as Error).message : 'The request cannot be processed.',
        );
      } else {
        answerError(reply, ctx.path, error, logger);
      }
    }
    ctx.status = reply.status;
    for (const [name, value] of reply.headers()) ctx.set(name, String(value));
    ctx.body = reply.body;
  };
}
