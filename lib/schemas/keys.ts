import { Type, type Static } from '@sinclair/typebox';
import { USAGE_DAYS_KEPT } from '../ports/quota-store.js';

/**
 * The fields of a key as the admin API and the key store take them, declared once with TypeBox:
 * `lib/keys/key-rules.ts` checks each value against these very objects (so the key store and the admin
 * API apply the same rules), and the OpenAPI document builds the admin API's bodies from them. What JSON
 * Schema cannot say stays in key-rules.ts: a date that exists in the calendar, an expiry in the future,
 * a name's length in UTF-16 units (it always counted so; `maxLength` counts characters, so it is the
 * looser of the two), duplicate scopes folded into one.
 */

/** The scopes a key may have, in the order they are listed. */
export const KEY_SCOPES = ['lookup', 'documents'] as const;
/** The longest name, in UTF-16 units. */
export const KEY_NAME_MAX = 128;
/** The highest daily limit. */
export const KEY_DAILY_LIMIT_MAX = 1_000_000_000;
/** The longest grace period of a roll: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

/** A `YYYY-MM-DD` expiry (midnight UTC); its groups are year, month and day. */
export const EXPIRY_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** An ISO 8601 instant with its offset; its groups are year, month, day, hours, minutes, seconds. */
export const EXPIRY_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A key's name: 1 to 128 printable characters, not all blank. */
export const KeyName = Type.String({
  minLength: 1,
  maxLength: KEY_NAME_MAX,
  // No control character, and not only blanks (what String.prototype.trim removes is what \s matches).
  pattern: '^(?!\\s+$)[^\\u0000-\\u001f\\u007f]*$',
  description: '1 to 128 printable characters',
});

/** A key's owner: 1 to 128 letters, digits or `. _ @ -`. */
export const KeyOwner = Type.String({ pattern: '^[A-Za-z0-9._@-]{1,128}$', description: 'letters, digits or . _ @ -' });

/** One scope. */
export const KeyScope = Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope)));

/** One or more scopes (a scope given twice counts once). */
export const KeyScopes = Type.Array(KeyScope, { minItems: 1 });

/** A daily limit, or `null` for the configured default. */
export const KeyDailyLimit = Type.Union([Type.Integer({ minimum: 1, maximum: KEY_DAILY_LIMIT_MAX }), Type.Null()], {
  description: 'null for the configured default',
});

/** An expiry: a date or an instant (which must be in the future), or `null` for never. */
export const KeyExpiry = Type.Union(
  [
    Type.String({
      pattern: `${EXPIRY_DATE.source}|${EXPIRY_INSTANT.source}`,
      description: 'YYYY-MM-DD (midnight UTC) or an ISO 8601 instant with its offset, in the future',
    }),
    Type.Null(),
  ],
  { description: 'null for never' },
);

/** A roll's grace period, in whole seconds. */
export const GraceSeconds = Type.Integer({ minimum: 0, maximum: MAX_GRACE_SECONDS });

/** `POST /admin/api/keys` body (the server also reads `null` for `owner` or `scopes` as not given). */
export const AdminKeyCreate = Type.Object(
  {
    name: KeyName,
    owner: Type.Optional(KeyOwner),
    scopes: Type.Optional(KeyScopes),
    daily_limit: Type.Optional(KeyDailyLimit),
    expires_at: Type.Optional(KeyExpiry),
  },
  { additionalProperties: false, title: 'AdminKeyCreate' },
);
export type AdminKeyCreate = Static<typeof AdminKeyCreate>;

/** `PATCH /admin/api/keys/{id}` body: what a new key takes but its owner, each field optional. */
export const AdminKeyUpdate = Type.Partial(Type.Omit(AdminKeyCreate, ['owner']), {
  additionalProperties: false,
  title: 'AdminKeyUpdate',
});
export type AdminKeyUpdate = Static<typeof AdminKeyUpdate>;

/** `POST /admin/api/keys/{id}/roll` body. */
export const AdminKeyRoll = Type.Object(
  { grace_seconds: Type.Optional(GraceSeconds) },
  { additionalProperties: false, title: 'AdminKeyRoll' },
);

/** Days of usage `GET /admin/api/keys/{id}/usage` reports without `days`. */
export const DEFAULT_USAGE_DAYS = 30;

/** The query of `GET /admin/api/keys/{id}/usage`. */
export const AdminUsageQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: USAGE_DAYS_KEPT, default: DEFAULT_USAGE_DAYS, description: 'UTC days, today included' }),
  ),
});
