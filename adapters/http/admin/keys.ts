import { Type, type Static } from '@sinclair/typebox';
import type { ApiKey, Dossier } from '../../../lib/index.js';
import { KeyScope, listKeys, type KeyListQuery } from '../../../lib/internal.js';
import { Exact, IsoDate, Nullable } from '../schemas/shapes.js';

// A key on the wire (docs/contract.md §5), for the admin API, the panel and `dossier keys` alike: its schema
// and the one place where a key becomes it.

/** A key as the admin API shows it. */
export const AdminKey = Exact(
  {
    id: Type.String(),
    name: Type.String(),
    owner: Type.String(),
    scopes: Type.Array(KeyScope),
    daily_limit: Type.Integer(),
    created_at: IsoDate,
    revoked_at: Nullable(IsoDate),
    expires_at: Nullable(IsoDate),
    used_today: Type.Integer({ minimum: 0 }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
  },
  { title: 'AdminKey' },
);

/** A key with its plaintext secret, shown this once. */
export const AdminKeyWithSecret = Exact(
  { ...AdminKey.properties, key: Type.String({ description: 'the plaintext key, shown this once' }) },
  { title: 'AdminKeyWithSecret' },
);

/** A key as the admin API answers it and `dossier keys` prints it. */
export type KeyJson = Static<typeof AdminKey>;

/** A key with its status and today's use, in the wire form; `daily_limit` is the limit in force. */
export async function keyJson(dossier: Dossier, key: ApiKey): Promise<KeyJson> {
  const report = await dossier.metering.report(key);
  return {
    id: report.id,
    name: report.name,
    owner: report.owner,
    scopes: report.scopes,
    daily_limit: dossier.metering.limitOf(report),
    created_at: report.createdAt,
    revoked_at: report.revokedAt,
    expires_at: report.expiresAt,
    used_today: report.usedToday,
    status: report.status,
  };
}

/** The query of a page of keys (docs/contract.md §5). */
export const AdminKeyListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'keys in the page' })),
  cursor: Type.Optional(Type.String({ description: "where the page starts: the previous page's `meta.next_cursor`" })),
  search: Type.Optional(Type.String({ description: 'a case-insensitive substring of the name, the owner or the id' })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')])),
  scope: Type.Optional(KeyScope),
  owner: Type.Optional(Type.String({ description: 'the keys of this owner only' })),
});

/** The `meta` of a page: the exact count of what the filters keep, and the next page's cursor. */
export const PageMeta = Type.Object({
  total: Type.Integer({ minimum: 0, description: 'how many the filters keep: exact' }),
  next_cursor: Nullable(Type.String({ description: 'the cursor of the next page; null on the last' })),
});

/** The parameters of a page of keys in a query string, as {@link listKeys} takes them. */
export function keyListQuery(query: string): KeyListQuery {
  const params = new URLSearchParams(query);
  const value = (name: string): Record<string, string> => {
    const given = params.get(name);
    return given === null ? {} : { [name]: given };
  };
  return {
    ...value('limit'),
    ...value('cursor'),
    ...value('before'),
    ...value('search'),
    ...value('status'),
    ...value('scope'),
    ...value('owner'),
  };
}

/**
 * A page of the keys, newest first, in the wire form: today's use is read for the keys of the page only.
 * @throws DossierValidationError `ERR_KEY_INVALID` naming each bad parameter
 */
export async function pageJson(
  dossier: Dossier,
  query: KeyListQuery,
): Promise<{ data: KeyJson[]; meta: Static<typeof PageMeta>; previous_cursor: string | null }> {
  const page = await listKeys(dossier.keys, query, dossier.options.clock.now());
  return {
    data: await Promise.all(page.items.map((key) => keyJson(dossier, key))),
    meta: { total: page.total, next_cursor: page.nextCursor },
    previous_cursor: page.previousCursor,
  };
}
