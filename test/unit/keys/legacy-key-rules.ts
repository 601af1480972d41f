/**
 * The hand-written key rules as they were before they moved into lib/schemas/keys.ts, kept only as the
 * oracle of key-rules-equivalence.test.ts: the schema-driven checks must answer every value as these did.
 */
import { DossierError, DossierValidationError } from '../../../lib/errors.js';
import type { ApiKey, KeyStatus, Scope } from '../../../lib/ports/key-store.js';

/** All scopes, in the order they are listed; a new key has all of them unless told otherwise. */
export const SCOPES: readonly Scope[] = ['lookup', 'documents'];

/** The longest grace period of a roll: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

/**
 * A key's name: 1 to 128 printable characters.
 * @throws DossierValidationError on `name`
 */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 128 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new DossierValidationError({ name: ['The name must be 1 to 128 printable characters.'] });
  }
  return name;
}

/**
 * A key's owner: 1 to 128 letters, digits or `. _ @ -`.
 * @throws DossierValidationError on `owner`
 */
export function checkOwner(owner: unknown): string {
  if (typeof owner !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(owner)) {
    throw new DossierValidationError({ owner: ['The owner must be 1 to 128 letters, digits or . _ @ -.'] });
  }
  return owner;
}

/**
 * One or more known scopes, each once.
 * @throws DossierValidationError on `scopes`
 */
export function checkScopes(scopes: unknown): Scope[] {
  const valid = Array.isArray(scopes) && scopes.length > 0 && scopes.every((scope) => SCOPES.includes(scope as Scope));
  if (!valid) throw new DossierValidationError({ scopes: [`The scopes must be one or more of ${SCOPES.join(', ')}.`] });
  return [...new Set(scopes as Scope[])];
}

/**
 * A daily limit from 1 to 10⁹, or `null` for the configured default.
 * @throws DossierValidationError on `daily_limit`
 */
export function checkLimit(limit: unknown): number | null {
  if (limit === null) return null;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1_000_000_000) {
    throw new DossierValidationError({ daily_limit: ['The daily limit must be a whole number from 1 to 1000000000.'] });
  }
  return limit;
}

/**
 * An expiry: `null` for never, else a `YYYY-MM-DD` date (midnight UTC) or an ISO 8601 instant with
 * its offset, after `now`; returned as an ISO 8601 UTC instant.
 * @throws DossierValidationError on `expires_at`
 */
export function checkExpiry(expiresAt: unknown, now: number): string | null {
  if (expiresAt === null) return null;
  const instant = typeof expiresAt === 'string' ? parseInstant(expiresAt) : undefined;
  if (instant === undefined) {
    throw new DossierValidationError({
      expires_at: ['The expiry must be a date (YYYY-MM-DD) or an ISO 8601 instant such as 2030-01-31T12:00:00Z.'],
    });
  }
  if (instant <= now) throw new DossierValidationError({ expires_at: ['The expiry must be in the future.'] });
  return new Date(instant).toISOString();
}

/**
 * A roll's grace period: whole seconds from 0 to 30 days.
 * @throws DossierValidationError on `grace_seconds`
 */
export function checkGraceSeconds(seconds: unknown): number {
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_GRACE_SECONDS) {
    throw new DossierValidationError({
      grace_seconds: [`The grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}.`],
    });
  }
  return seconds;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds of a strict ISO 8601 date or instant (no calendar rollover: 2030-02-30 is refused). */
function parseInstant(text: string): number | undefined {
  const match = DATE.exec(text) ?? INSTANT.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day)
    return undefined;
  if (match.length > 4 && (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6] ?? 0) > 59)) return undefined;
  const value = Date.parse(match.length > 4 ? text : `${text}T00:00:00Z`);
  return Number.isNaN(value) ? undefined : value;
}

/**
 * Where a key stands at `now` (ms since the epoch): `revoked` once revoked, else `expired` from its
 * `expiresAt` on, else `active`.
 */
export function keyStatusAt(key: ApiKey, now: number): KeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

/**
 * Refuses a key without `scope`.
 * @throws DossierError `ERR_AUTH_INSUFFICIENT_SCOPE`
 */
export function requireScope(key: ApiKey, scope: Scope): void {
  if (!key.scopes.includes(scope)) {
    throw new DossierError('ERR_AUTH_INSUFFICIENT_SCOPE', `This key does not have the "${scope}" scope.`);
  }
}
