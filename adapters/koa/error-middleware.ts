import type { Context, Middleware, Next } from 'koa';
import { DossierError, DossierRetryableError, DossierValidationError, type Logger } from '../../lib/index.js';
import { bearerChallenge } from './auth.js';
import { HTTP_ERRORS, STORE_RETRY_AFTER_SECONDS, type HttpError } from './error-map.js';

/**
 * Which error body a path answers with: interface B's Laravel shape under /api/v1 (also when the router
 * is mounted under a prefix of the host's, as in /dossier/api/v1), else interface A's. The router matches
 * paths case-insensitively; the error body follows the same paths.
 */
export function isDocumentPath(path: string): boolean {
  return /\/api\/v1(?:\/|$)/i.test(path);
}

const DOCUMENT_MESSAGES: Record<number, string> = {
  401: 'Unauthenticated.',
  404: 'Resource not found.',
  405: 'Method not allowed.',
  413: 'The request body is too large.',
  415: 'The request body must be application/x-www-form-urlencoded or application/json.',
  500: 'Server Error.',
};

/**
 * Turns every failure below it, and every unmatched path, into the JSON error body of its interface.
 * A `DossierError` gets the status of its code; an HTTP error from a middleware (body too large,
 * unsupported type) keeps its status; anything else is a 500 with no stack trace, logged once.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) {
        respond(ctx, 404, 'not_found', `There is no ${ctx.method} ${ctx.path}.`);
      } else if (ctx.status === 405 || (ctx.method === 'OPTIONS' && !ctx.body)) {
        // The router answers OPTIONS itself with an empty 200; every answer here is JSON, so it is a 405 too.
        respond(ctx, 405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; use ${ctx.response.get('Allow')}.`);
      } else if (ctx.status === 501 && typeof ctx.body !== 'object') {
        respond(ctx, 501, 'not_implemented', `The method ${ctx.method} is not supported.`);
      }
    } catch (error) {
      if (error instanceof DossierError) {
        const { status } = answerCoreError(ctx, error, respond);
        if (status >= 500) logger.warn('request failed', { path: ctx.path, code: error.code, message: error.message });
        return;
      }
      // An HTTP error of a library below (body too large, unsupported type or encoding): its status
      // stands; its message only when it was meant for the client.
      const { status: httpStatus, expose } = error as { status?: unknown; expose?: unknown };
      if (typeof httpStatus === 'number' && httpStatus >= 400 && httpStatus < 500) {
        respond(ctx, httpStatus, 'bad_request', expose ? (error as Error).message : 'The request cannot be processed.');
        return;
      }
      logUnexpected(logger, ctx.path, error);
      respond(ctx, 500, 'internal_error', 'Something went wrong on our side.');
    }
  };
}

/** Logs a failure nobody expected, with the stack that its answer never carries. */
export function logUnexpected(logger: Logger, path: string, error: unknown): void {
  logger.error('unexpected error', { path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}

/**
 * Answers a core error with the status of its code (and `Retry-After` when it has one), its message,
 * and on a 422 the fields at fault, in the body that `respond` writes.
 */
export function answerCoreError(ctx: Context, error: DossierError, respond: typeof answerApiError): HttpError {
  const answer = HTTP_ERRORS[error.code];
  if (error instanceof DossierRetryableError) ctx.set('Retry-After', String(error.retryAfterSeconds));
  else if (answer.status === 503) ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
  respond(ctx, answer.status, answer.code, error.message, error instanceof DossierValidationError ? error.errors : undefined);
  return answer;
}

/** Answers with interface A's error body, and the bearer challenge on a 401. */
export function answerApiError(
  ctx: Context,
  status: number,
  code: string,
  message: string,
  errors?: Record<string, string[]>,
): void {
  ctx.status = status;
  if (status === 401) ctx.set('WWW-Authenticate', bearerChallenge(code));
  ctx.body = { status: 'error', code, message, ...(errors ? { errors } : {}) };
}

/** Answers with the error body of the path's interface: on interface B's paths, Laravel's shape instead of A's. */
function respond(ctx: Context, status: number, code: string, message: string, errors?: Record<string, string[]>): void {
  answerApiError(ctx, status, code, message, errors);
  if (isDocumentPath(ctx.path)) {
    ctx.body = { message: DOCUMENT_MESSAGES[status] ?? message, status, ...(errors ? { errors } : {}) };
  }
}
