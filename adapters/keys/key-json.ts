import type { ApiKey, Dossier } from '../../lib/index.js';

/** A key as the admin API answers it and `dossier keys` prints it (CONTRACT.md §5). */
export type KeyJson = Awaited<ReturnType<typeof keyJson>>;

/** A key with its status and today's use, in the wire form; `daily_limit` is the limit in force. */
export async function keyJson(dossier: Dossier, key: ApiKey) {
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
