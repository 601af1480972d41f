import type { StoredKey } from '../../keys/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import type { SqlCounterStore, SqlQuery } from '../counters/sql.js';
import type { StoreGuard } from '../guard.js';
import { deserialize } from '../keyv/serialize.js';
import { admissionOf, planAdmission } from './plan.js';

/**
 * The whole admission as one statement (prepared once per connection): the key's record is read and
 * judged, then the day's quota counter is raised under the key's ceiling, and only if it was, the usage
 * counter of the kind. An `INSERT … ON CONFLICT DO UPDATE … WHERE` locks the counter's row and checks
 * the ceiling on its latest value, so concurrent statements from any number of processes stay exact.
 * The rule is `workingKey`'s (lib/keys/keyv-key-store.ts), written in SQL: not revoked, `expiresAt`
 * after now (ISO 8601 strings compare as their instants under the "C" collation), an old secret only
 * until its `graceUntil`; then the `lookup` scope.
 */
const ADMIT_SQL = `WITH k AS (
  SELECT value::jsonb -> 'value' AS v FROM keyv WHERE key = $1
), ok AS (
  SELECT v ->> 'id' AS id, COALESCE((v ->> 'dailyLimit')::bigint, $2::bigint) AS lim, (v -> 'scopes') ? 'lookup' AS scoped
  FROM k
  WHERE v ->> 'revokedAt' IS NULL
    AND (v ->> 'expiresAt' IS NULL OR (v ->> 'expiresAt') COLLATE "C" > $3::text COLLATE "C")
    AND (v ->> 'graceUntil' IS NULL OR (v ->> 'graceUntil')::numeric > $4::bigint)
), q AS (
  INSERT INTO dossier_counters (name, value, expires_at)
  SELECT 'quota:' || id || ':' || $5::text, 1, $6::bigint FROM ok WHERE scoped
  ON CONFLICT (name) DO UPDATE SET
    value = CASE WHEN dossier_counters.expires_at <= $4::bigint THEN 1 ELSE dossier_counters.value + 1 END,
    expires_at = excluded.expires_at
  WHERE dossier_counters.value < (SELECT lim FROM ok) OR dossier_counters.expires_at <= $4::bigint
  RETURNING value
), u AS (
  INSERT INTO dossier_counters (name, value, expires_at)
  SELECT 'usage:' || ok.id || ':' || $5::text || ':' || $7::text, 1, $8::bigint FROM ok, q
  ON CONFLICT (name) DO UPDATE SET
    value = CASE WHEN dossier_counters.expires_at <= $4::bigint THEN 1 ELSE dossier_counters.value + 1 END,
    expires_at = excluded.expires_at
  RETURNING value
)
SELECT (SELECT v::text FROM k) AS record,
  (SELECT scoped FROM ok) AS scoped,
  (SELECT value FROM q) AS counted,
  (SELECT c.value FROM dossier_counters c, ok
     WHERE c.name = 'quota:' || ok.id || ':' || $5::text AND (c.expires_at IS NULL OR c.expires_at > $4::bigint)) AS used,
  (SELECT count(*) FROM u) AS usage_rows`;

interface AdmitRow {
  record: string | null;
  scoped: boolean | null;
  counted: string | number | null;
  used: string | number | null;
}

/** Admission on PostgreSQL in one statement: one round trip per lookup. */
export class PostgresAdmissionStore implements AdmissionStore {
  /** @param namespace the Keyv namespace of the key records; @param counters whose tables it writes. */
  constructor(
    private readonly query: SqlQuery,
    private readonly counters: SqlCounterStore,
    private readonly guard: StoreGuard,
    private readonly namespace: string,
    private readonly clock: Clock,
  ) {}

  async admit(secret: string, kind: LookupKind, defaultLimit: number): Promise<Admission> {
    const plan = planAdmission(secret, kind, defaultLimit, this.clock.now());
    if (plan === null) return { status: 'invalid' };
    await this.counters.tablesExist();
    const now = Math.floor(plan.now);
    const parameters = [
      `${this.namespace}:${plan.record}`,
      defaultLimit,
      plan.nowIso,
      now,
      String(plan.day),
      plan.quotaExpiresAt,
      kind,
      plan.usageExpiresAt,
    ];
    const [row] = (await this.guard.run(() => this.query(ADMIT_SQL, parameters))) as AdmitRow[];
    if (row === undefined || row.record === null || row.scoped === null) return { status: 'invalid' };
    const record = deserialize<StoredKey>(row.record);
    if (!row.scoped) return admissionOf(plan, { state: 'no-scope', record, used: Number(row.used ?? 0) });
    if (row.counted === null) {
      const limit = record.dailyLimit ?? defaultLimit;
      return admissionOf(plan, { state: 'exceeded', record, used: limit });
    }
    return admissionOf(plan, { state: 'counted', record, used: Number(row.counted) });
  }
}
