import type { QuotaState } from './ports/quota-store.js';

/**
 * Every failure the core reports is a {@link DossierError}. Callers switch on `code`; adapters map each
 * code to their own wire form through an exhaustive `Record<ErrorCode, …>`, so adding a code here fails
 * the type check until every adapter knows what to answer.
 */
export const ERROR_CODES = [
  'ERR_CONFIG_INVALID',
  'ERR_AUTH_MISSING_KEY',
  'ERR_AUTH_INVALID_KEY',
  'ERR_AUTH_INSUFFICIENT_SCOPE',
  'ERR_QUOTA_EXCEEDED',
  'ERR_LOOKUP_INVALID_DOMAIN',
  'ERR_LOOKUP_INVALID_IP',
  'ERR_LOOKUP_TARGET_NOT_ALLOWED',
  'ERR_BATCH_INVALID',
  'ERR_UPSTREAM_FAILED',
  'ERR_UPSTREAM_TIMEOUT',
  'ERR_STORE_UNAVAILABLE',
  'ERR_NOT_IMPLEMENTED',
  'ERR_KEY_NOT_FOUND',
  'ERR_KEY_INVALID',
  'ERR_KEY_INVALID_TEXT',
  'ERR_KEY_INACTIVE',
  'ERR_DOCUMENT_NOT_FOUND',
  'ERR_DOCUMENT_INVALID',
  'ERR_GENERATOR_FAILED',
  'ERR_GENERATOR_TIMEOUT',
  'ERR_WATCH_INVALID',
  'ERR_WATCH_NOT_FOUND',
] as const;

/** A machine-readable error code of the core. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one error class of the core: a stable `code`, a sentence for a person, and the `cause`. */
export class DossierError extends Error {
  override readonly name: string = 'DossierError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A request that was well-formed but broke the rules: `errors` maps each field to its problems, and
 * `code` names the domain whose rules it broke (`ERR_DOCUMENT_INVALID`, `ERR_KEY_INVALID`,
 * `ERR_WATCH_INVALID`, …).
 */
export class DossierValidationError extends DossierError {
  override readonly name = 'DossierValidationError';

  constructor(
    code: ErrorCode,
    readonly errors: Record<string, string[]>,
    message = Object.values(errors).flat()[0] ?? 'The given data was invalid.',
  ) {
    super(code, message);
  }
}

/** A failure that is worth retrying after `retryAfterSeconds` (quota spent, store down). */
export class DossierRetryableError extends DossierError {
  override readonly name: string = 'DossierRetryableError';

  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** A lookup refused because its key has used its daily quota: `quota` says where the key stands. */
export class DossierQuotaError extends DossierRetryableError {
  override readonly name = 'DossierQuotaError';

  constructor(
    message: string,
    retryAfterSeconds: number,
    readonly quota: QuotaState,
  ) {
    super('ERR_QUOTA_EXCEEDED', message, retryAfterSeconds);
  }
}

/** True when `error` is a {@link DossierError} with one of the given codes (or any code if none given). */
export function isDossierError(error: unknown, ...codes: ErrorCode[]): error is DossierError {
  return error instanceof DossierError && (codes.length === 0 || codes.includes(error.code));
}
