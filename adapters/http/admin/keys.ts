import { Type, type Static } from '@sinclair/typebox';
import type { ApiKey, Dossier } from '../../../lib/index.js';
import { KeyScope } from '../../../lib/internal.js';
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

/** Every key, newest first, in the wire form. */
export async function listJson(dossier: Dossier): Promise<KeyJson[]> {
  const keys = await dossier.keys.list();
  return Promise.all(keys.reverse().map((key) => keyJson(dossier, key)));
}
