import type { TObject, TSchema } from '@sinclair/typebox';
import { DossierError, DossierValidationError } from '../errors.js';
import { randomBytes } from 'node:crypto';
import type { ApiKey, KeyChanges, NewKey, Scope } from '../ports/key-store.js';
import { keyStatusAt, SECRET_PREFIX } from '../records/stored-key.js';
import { compiledSchema } from '../schemas/ajv.js';
import { hasNul, NUL_PHRASE, wellFormed } from '../schemas/text.js';
import {
  type AdminKeyCreate,
  AdminUsageQuery,
  EXPIRY_DATE,
  EXPIRY_INSTANT,
  GraceSeconds,
  KEY_DAILY_LIMIT_MAX,
  KEY_NAME_MAX,
  KEY_SCOPES,
  KeyDailyLimit,
  KeyExpiry,
  KeyName,
  KeyOwner,
  KeyScopes,
  MAX_GRACE_SECONDS,
} from '../schemas/keys.js';

/** All scopes, in the order they are listed; a new key has all of them unless told otherwise. */
export const SCOPES: readonly Scope[] = KEY_SCOPES;

// Each rule below is its field's schema in lib/schemas/keys.ts (the one the admin API's document shows),
// checked by ajv; the sentences are the key store's own, and what JSON Schema cannot say is written here.

/** True when `value` is what `schema` describes. */
function fits(schema: TSchema, value: unknown): boolean {
  return compiledSchema(schema)(value);
}

/** A key's field refused: `ERR_KEY_INVALID`, with `errors` by field. */
function invalidKey(errors: Record<string, string[]>): DossierValidationError {
  return new DossierValidationError('ERR_KEY_INVALID', errors);
}

/**
 * Refuses every field of `fields` whose text holds U+0000 (a string, or a string in a list), before any
 * rule reads it: text that no store keeps is a broken request, `ERR_KEY_INVALID_TEXT` (a 400 over HTTP,
 * docs/contract.md §12), not a bad value (`ERR_KEY_INVALID`, a 422). The one NUL rule of a key's fields,
 * for the admin API's bodies and the key store alike.
 * @throws DossierValidationError `ERR_KEY_INVALID_TEXT` naming each such field, as `fields` names it
 */
export function refuseNul(fields: Readonly<Record<string, unknown>>): void {
  const nul = Object.keys(fields).filter((field) =>
    [fields[field]].flat().some((text) => typeof text === 'string' && hasNul(text)),
  );
  if (nul.length > 0) {
    throw new DossierValidationError(
      'ERR_KEY_INVALID_TEXT',
      Object.fromEntries(nul.map((field) => [field, [`The ${field} ${NUL_PHRASE}.`]])),
    );
  }
}

/** `value`, when it is what `schema` describes. @throws DossierValidationError `ERR_KEY_INVALID` on `field`, with `message` */
function checked<T>(schema: TSchema, value: unknown, field: string, message: string): T {
  if (!fits(schema, value)) throw invalidKey({ [field]: [message] });
  return value as T;
}

/**
 * A key's name: {@link KeyName}, 1 to 128 printable characters (counted in UTF-16 units, as ever; no
 * control character: U+0000 is {@link refuseNul}'s before), a lone surrogate becoming U+FFFD as every
 * store keeps it.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `name`
 */
export function checkName(name: unknown): string {
  if (!fits(KeyName, name) || (name as string).length > KEY_NAME_MAX) {
    throw invalidKey({ name: ['The name must be 1 to 128 printable characters.'] });
  }
  return wellFormed(name as string);
}

/**
 * A key's owner: {@link KeyOwner}, 1 to 128 letters, digits or `. _ @ -`.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `owner`
 */
export function checkOwner(owner: unknown): string {
  return checked(KeyOwner, owner, 'owner', 'The owner must be 1 to 128 letters, digits or . _ @ -.');
}

/**
 * {@link KeyScopes}: one or more known scopes; one given twice counts once.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `scopes`
 */
export function checkScopes(scopes: unknown): Scope[] {
  const known = checked<Scope[]>(KeyScopes, scopes, 'scopes', `The scopes must be one or more of ${SCOPES.join(', ')}.`);
  return [...new Set(known)];
}

/**
 * {@link KeyDailyLimit}: a daily limit from 1 to 10⁹, or `null` for the configured default.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `dailyLimit`
 */
export function checkLimit(limit: unknown): number | null {
  return checked(KeyDailyLimit, limit, 'dailyLimit', `The daily limit must be a whole number from 1 to ${KEY_DAILY_LIMIT_MAX}.`);
}

/**
 * {@link KeyExpiry}: `null` for never, else a `YYYY-MM-DD` date (midnight UTC) or an ISO 8601 instant
 * with its offset, that exists in the calendar and is after `now`; returned as an ISO 8601 UTC instant.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `expiresAt`
 */
export function checkExpiry(expiresAt: unknown, now: number): string | null {
  if (expiresAt === null) return null;
  const instant = fits(KeyExpiry, expiresAt) ? parseInstant(expiresAt as string) : undefined;
  if (instant === undefined) {
    throw invalidKey({
      expiresAt: ['The expiry must be a date (YYYY-MM-DD) or an ISO 8601 instant such as 2030-01-31T12:00:00Z.'],
    });
  }
  if (instant <= now) throw invalidKey({ expiresAt: ['The expiry must be in the future.'] });
  return new Date(instant).toISOString();
}

/**
 * {@link GraceSeconds}: a roll's grace period, whole seconds from 0 to 30 days.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `graceSeconds`
 */
export function checkGraceSeconds(seconds: unknown): number {
  const message = `The grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}.`;
  return checked(GraceSeconds, seconds, 'graceSeconds', message);
}

/** The rule of each field of a key body, by its name in the schemas. */
const FIELD_RULES: Readonly<Record<string, (value: unknown, now: number) => unknown>> = {
  name: checkName,
  owner: checkOwner,
  scopes: checkScopes,
  daily_limit: checkLimit,
  expires_at: checkExpiry,
  grace_seconds: checkGraceSeconds,
};

/**
 * Checks a key body (the admin API's {@link AdminKeyCreate}, `AdminKeyUpdate` or `AdminKeyRoll`): the
 * fields it takes are the schema's, a required one is always checked, an optional one when sent (and
 * not `null`, for those in `nullIsAbsent`), each with its rule above; a field the schema does not name
 * is refused. Every failure is reported at once, so that a client sees all its mistakes in one answer;
 * a field holding U+0000 is refused before, alone ({@link refuseNul}).
 * @throws DossierValidationError `ERR_KEY_INVALID_TEXT` naming each field holding U+0000; `ERR_KEY_INVALID`
 *   with every failing field, in the schema's order, then the unknown ones
 */
export function checkKeyBody(
  schema: TObject,
  body: Record<string, unknown>,
  now: number,
  nullIsAbsent: readonly string[] = [],
): void {
  const fields = Object.keys(schema.properties);
  refuseNul(Object.fromEntries(fields.filter((field) => Object.hasOwn(body, field)).map((field) => [field, body[field]])));
  const required = new Set(schema.required ?? []);
  // No prototype: an unknown field named `__proto__` must land in the errors, not replace their prototype.
  const errors: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const field of fields) {
    const value = Object.hasOwn(body, field) ? body[field] : undefined;
    if (!required.has(field) && (value === undefined || (value === null && nullIsAbsent.includes(field)))) continue;
    const rule = FIELD_RULES[field];
    if (rule === undefined) throw new Error(`No rule for the key field "${field}".`);
    try {
      rule(value, now);
    } catch (error) {
      if (!(error instanceof DossierValidationError)) throw error;
      // The rule names the field as the library does (`dailyLimit`); the body names it as the wire does.
      errors[field] = Object.values(error.errors).flat();
    }
  }
  const takes = `Unknown field; this request takes ${fields.join(', ') || 'no field'}.`;
  for (const field of Object.keys(body)) if (!fields.includes(field)) errors[field] = [takes];
  if (Object.keys(errors).length > 0) throw invalidKey(errors);
}

const USAGE_DAYS = AdminUsageQuery.properties.days;

/**
 * `?days=N` of a key's usage (every value the query string holds for it): {@link AdminUsageQuery}'s
 * bounds and default; the number written with one to three digits.
 * @throws DossierValidationError `ERR_KEY_INVALID` on `days`
 */
export function checkUsageDays(values: readonly string[]): number {
  if (values.length === 0) return USAGE_DAYS.default as number;
  const [value] = values;
  const days = values.length === 1 && value !== undefined && /^\d{1,3}$/.test(value) ? Number(value) : undefined;
  return checked(USAGE_DAYS, days, 'days', `days must be one whole number from ${USAGE_DAYS.minimum} to ${USAGE_DAYS.maximum}.`);
}

/** Milliseconds of a date or instant the schema took, when it exists (no rollover: 2030-02-30 is refused). */
function parseInstant(text: string): number | undefined {
  const match = EXPIRY_DATE.exec(text) ?? EXPIRY_INSTANT.exec(text);
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
 * Refuses a key without `scope`.
 * @throws DossierError `ERR_AUTH_INSUFFICIENT_SCOPE`
 */
export function requireScope(key: ApiKey, scope: Scope): void {
  if (!key.scopes.includes(scope)) {
    throw new DossierError('ERR_AUTH_INSUFFICIENT_SCOPE', `This key does not have the "${scope}" scope.`);
  }
}

/**
 * A new key from what it is made of, each field checked, with a new random id (and owner when none is given).
 * @throws DossierValidationError `ERR_KEY_INVALID_TEXT` naming each field holding U+0000; `ERR_KEY_INVALID` naming the first bad field
 */
export function newKey(input: NewKey, now: number): ApiKey {
  refuseNul({ ...input });
  return {
    id: `key_${randomBytes(8).toString('hex')}`,
    name: checkName(input.name),
    owner: input.owner === undefined ? `acct_${randomBytes(8).toString('hex')}` : checkOwner(input.owner),
    scopes: checkScopes(input.scopes ?? [...SCOPES]),
    dailyLimit: checkLimit(input.dailyLimit ?? null),
    createdAt: new Date(now).toISOString(),
    revokedAt: null,
    expiresAt: checkExpiry(input.expiresAt ?? null, now),
  };
}

/**
 * The fields of {@link KeyChanges} that are given, each checked.
 * @throws DossierValidationError `ERR_KEY_INVALID_TEXT` naming each field holding U+0000; `ERR_KEY_INVALID`
 */
export function checkChanges(changes: KeyChanges, now: number): Partial<ApiKey> {
  refuseNul({ ...changes });
  const checked: Partial<ApiKey> = {};
  if (changes.name !== undefined) checked.name = checkName(changes.name);
  if (changes.scopes !== undefined) checked.scopes = checkScopes(changes.scopes);
  if (changes.dailyLimit !== undefined) checked.dailyLimit = checkLimit(changes.dailyLimit);
  if (changes.expiresAt !== undefined) checked.expiresAt = checkExpiry(changes.expiresAt, now);
  return checked;
}

/** A new secret: {@link SECRET_PREFIX} and 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Refuses to roll a key that no longer works: a new secret for it would not work either.
 * @throws DossierValidationError `ERR_KEY_INACTIVE`
 */
export function checkRollable(key: ApiKey, now: number): void {
  const status = keyStatusAt(key, now);
  if (status !== 'active') {
    throw new DossierValidationError('ERR_KEY_INACTIVE', {
      id: [`The key is ${status}, so it cannot be rolled; create a new key instead.`],
    });
  }
}

/** The key `id` could not be found. */
export function keyNotFound(id: string): DossierError {
  return new DossierError('ERR_KEY_NOT_FOUND', `There is no key with id "${id}".`);
}
