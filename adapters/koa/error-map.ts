import type { ErrorCode } from '../../lib/index.js';

/** How one core error is answered over HTTP. */
export interface HttpError {
  /** Status code. */
  status: number;
  /** Wire code of interface A's error body (CONTRACT.md §2). */
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
