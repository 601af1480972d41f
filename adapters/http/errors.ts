import { DossierError, DossierRetryableError, DossierValidationError, type ErrorCode, type Logger } from '../../lib/index.js';
import type { Reply } from './reply.js';

/** How one core error is answered over HTTP. */
export interface HttpError {
  /** Status code. */
  status: number;
  /** Wire code of interface A's error body (docs/contract.md §2). */
  code: string;
}

/**
 * Every core error code and its HTTP answer. Exhaustive on purpose: a new code fails the type check
 * until it is given a status here.
 */
export const HTTP_ERRORS: Record<ErrorCode, HttpError> = {
  ERR_CONFIG_INVALID: { status: 500, code: 'internal_error' },
  ERR_AUTH_MISSING_KEY: { status: 401, code: 'missing_key' },
  ERR_AUTH_INVALID_KEY: { status: 401, code: 'invalid_key' },
  ERR_AUTH_INSUFFICIENT_SCOPE: { status: 403, code: 'insufficient_scope' },
  ERR_QUOTA_EXCEEDED: { status: 429, code: 'quota_exceeded' },
  ERR_LOOKUP_INVALID_DOMAIN: { status: 400, code: 'invalid_domain' },
  ERR_LOOKUP_INVALID_IP: { status: 400, code: 'invalid_ip' },
  ERR_LOOKUP_TARGET_NOT_ALLOWED: { status: 400, code: 'target_not_allowed' },
  ERR_BATCH_INVALID: { status: 400, code: 'invalid_request' },
  ERR_UPSTREAM_FAILED: { status: 502, code: 'upstream_error' },
  ERR_UPSTREAM_TIMEOUT: { status: 504, code: 'upstream_timeout' },
  ERR_STORE_UNAVAILABLE: { status: 503, code: 'service_unavailable' },
  ERR_NOT_IMPLEMENTED: { status: 501, code: 'not_implemented' },
  ERR_KEY_NOT_FOUND: { status: 404, code: 'not_found' },
  ERR_KEY_INVALID: { status: 422, code: 'invalid_request' },
  ERR_KEY_INVALID_TEXT: { status: 400, code: 'invalid_request' },
  ERR_KEY_INACTIVE: { status: 422, code: 'invalid_request' },
  ERR_DOCUMENT_NOT_FOUND: { status: 404, code: 'not_found' },
  ERR_DOCUMENT_INVALID: { status: 422, code: 'invalid_request' },
  ERR_GENERATOR_FAILED: { status: 502, code: 'generator_error' },
  ERR_GENERATOR_TIMEOUT: { status: 504, code: 'generator_timeout' },
  ERR_WATCH_INVALID: { status: 400, code: 'invalid_request' },
  ERR_WATCH_NOT_FOUND: { status: 404, code: 'not_found' },
};

/** Seconds a client should wait before retrying when the store is down. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * A request the contract refuses before any core rule sees it (a body too large, of a type no route
 * reads, or in an encoding it cannot undo), answered with `status` and interface A's `code`.
 */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Which error body a path answers with: interface B's Laravel shape under /api/v1 (also under a
 * mount's prefix, as in /dossier/api/v1), else interface A's. Paths match case-sensitively, as routes do.
 */
export function isDocumentPath(path: string): boolean {
  return /\/api\/v1(?:\/|$)/.test(path);
}

const DOCUMENT_MESSAGES: Record<number, string> = {
  401: 'Unauthenticated.',
  404: 'Resource not found.',
  405: 'Method not allowed.',
  413: 'The request body is too large.',
  415: 'The request body must be application/x-www-form-urlencoded or application/json.',
  500: 'Server Error.',
};

/** The `WWW-Authenticate` of a 401 answered with `code`: `error="invalid_token"` for a token that does not work. */
export function bearerChallenge(code: string): string {
  return code === 'invalid_key' ? 'Bearer realm="dossier", error="invalid_token"' : 'Bearer realm="dossier"';
}

/**
 * Answers with the error body of the path's interface (interface B's Laravel shape on /api/v1, else
 * interface A's), and the bearer challenge on a 401. Headers set before stay.
 */
export function answerFailure(
  reply: Reply,
  path: string,
  status: number,
  code: string,
  message: string,
  errors?: Record<string, string[]>,
): void {
  if (status === 401) reply.header('WWW-Authenticate', bearerChallenge(code));
  const body = isDocumentPath(path)
    ? { message: DOCUMENT_MESSAGES[status] ?? message, status, ...(errors ? { errors } : {}) }
    : { status: 'error', code, message, ...(errors ? { errors } : {}) };
  reply.json(body, status);
}

/**
 * Answers what a handler threw: a core error with the status of its code (and `Retry-After` when it
 * has one) and the fields at fault of a refused value; a {@link RequestError} with its own; anything else with a
 * 500 that says nothing of it, logged once with its stack. A 5xx of a core error is logged as a warning.
 */
export function answerError(reply: Reply, path: string, error: unknown, logger: Logger): void {
  if (error instanceof DossierError) {
    const answer = HTTP_ERRORS[error.code];
    if (error instanceof DossierRetryableError) reply.header('Retry-After', String(error.retryAfterSeconds));
    else if (answer.status === 503) reply.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    answerFailure(
      reply,
      path,
      answer.status,
      answer.code,
      error.message,
      error instanceof DossierValidationError ? error.errors : undefined,
    );
    if (answer.status >= 500) logger.warn('request failed', { path, code: error.code, message: error.message });
    return;
  }
  if (error instanceof RequestError) {
    answerFailure(reply, path, error.status, error.code, error.message);
    return;
  }
  logUnexpected(logger, path, error);
  answerFailure(reply, path, 500, 'internal_error', 'Something went wrong on our side.');
}

/** Logs a failure nobody expected, with the stack that its answer never carries. */
export function logUnexpected(logger: Logger, path: string, error: unknown): void {
  logger.error('unexpected error', { path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
