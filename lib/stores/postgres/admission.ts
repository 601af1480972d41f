import { digestOfRecord, type StoredKey } from '../../records/stored-key.js';
import type { SqlKeyRecords } from '../sql/keys.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { SqlCounterStore, SqlQuery } from '../sql/counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';
import { storeError } from '../shared/guard.js';
import type { StoreGuard } from '../shared/guard.js';
import { admitPerTurn } from '../shared/admit-per-turn.js';
import { admissionOf, scriptedSteps, type AdmissionPlan } from '../shared/admission-plan.js';

/**
 * The admissions of a batch as one function call, which PostgreSQL runs as one statement in one
 * transaction: one round trip and one commit for every admission asked during one turn of the event
 * loop. First each distinct key is read (without a lock) by the digest of its secret and judged by `workingKey`'s rule
 * (lib/records/stored-key.ts) in SQL: not revoked, `expiresAt` after now (ISO 8601 strings compare as
 * their instants under the "C" collation), an old secret only until its `graceUntil`, the `lookup`
 * scope. Then the admissions that count are grouped by key (the two secrets of a rolled key share its
 * quota) and each key's day counter is raised once, keys taken in the order of their ids, so that any
 * two batches lock counters in the same order and never wait on each other in a circle. A lone
 * admission is one upsert (`INSERT … ON CONFLICT DO UPDATE … WHERE` locks the row and checks the ceiling
 * on its latest value); several lock the row (made first if missing), are granted in the order asked
 * while they fit under the ceiling, and the sum is written once: a hot key costs one row update per
 * batch, not one per lookup. Calls from any number of processes stay exact, the row lock ordering them.
 * The usage counter of each kind is raised by what was granted of it. Answers one row per admission:
 * its index (1-based), the record, 0 invalid, 1 no scope, 2 exceeded, 3 counted, and the day's count.
 *
 * The transaction commits without waiting for its WAL to reach the disk (`synchronous_commit = off`,
 * for this transaction only): a crash of the database server, or a failover to a replica, may forget
 * the last fraction of a second of counting, never leave a counter inconsistent; keys and documents
 * keep the server's setting. The wait for the disk, under the row lock of a hot key, held one key to a
 * few thousand lookups a second.
 */
const ADMIT_FUNCTION = `CREATE OR REPLACE FUNCTION dossier_admit(
  records text[], kinds text[], default_limits bigint[], now_iso text, now_ms bigint, day text,
  quota_expiry bigint, usage_expiry bigint
) RETURNS TABLE (ord int, rec text, st int, used bigint) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  n int := cardinality(records);
  recs text[] := array_fill(NULL::text, ARRAY[n]);
  ids text[] := array_fill(NULL::text, ARRAY[n]);
  scoped boolean[] := array_fill(false, ARRAY[n]);
  lims bigint[] := array_fill(NULL::bigint, ARRAY[n]);
  r record;
  g record;
  u record;
  v jsonb;
  t text;
  i int;
  qname text;
  cnt bigint;
  start bigint;
  cur bigint;
  cur_expiry bigint;
  newv bigint;
  counted int[];
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  FOR r IN SELECT records[s.i] AS record, array_agg(s.i) AS ords FROM generate_subscripts(records, 1) AS s(i) GROUP BY 1 LOOP
    v := NULL;
    SELECT k.record::jsonb || CASE WHEN s.grace_until IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('graceUntil', s.grace_until) END INTO v
      FROM dossier_key_secrets s JOIN dossier_keys k ON k.id = s.key_id WHERE s.digest = r.record;
    CONTINUE WHEN v IS NULL OR (v ->> 'id') IS NULL OR (v ->> 'revokedAt') IS NOT NULL
      OR ((v ->> 'expiresAt') IS NOT NULL AND (v ->> 'expiresAt') COLLATE "C" <= now_iso COLLATE "C")
      OR ((v ->> 'graceUntil') IS NOT NULL AND (v ->> 'graceUntil')::numeric <= now_ms);
    t := v::text;
    FOREACH i IN ARRAY r.ords LOOP
      recs[i] := t;
      ids[i] := v ->> 'id';
      scoped[i] := COALESCE((v -> 'scopes') ? 'lookup', false);
      lims[i] := COALESCE((v ->> 'dailyLimit')::bigint, default_limits[i]);
    END LOOP;
  END LOOP;

  FOR i IN 1 .. n LOOP
    CONTINUE WHEN scoped[i];
    ord := i; rec := recs[i]; st := 0; used := 0;
    IF rec IS NOT NULL THEN
      SELECT c.value INTO used FROM dossier_counters c
        WHERE c.name = 'quota:' || ids[i] || ':' || day AND (c.expires_at IS NULL OR c.expires_at > now_ms);
      st := 1; used := COALESCE(used, 0);
    END IF;
    RETURN NEXT;
  END LOOP;

  FOR g IN SELECT ids[s.i] AS id, array_agg(s.i ORDER BY s.i) AS ords FROM generate_subscripts(records, 1) AS s(i)
      WHERE scoped[s.i] GROUP BY 1 ORDER BY 1 LOOP
    qname := 'quota:' || g.id || ':' || day;
    counted := '{}';
    IF cardinality(g.ords) = 1 THEN
      i := g.ords[1];
      newv := NULL;
      INSERT INTO dossier_counters AS c (name, value, expires_at) VALUES (qname, 1, quota_expiry)
        ON CONFLICT (name) DO UPDATE SET
          value = CASE WHEN c.expires_at <= now_ms THEN 1 ELSE c.value + 1 END,
          expires_at = excluded.expires_at
        WHERE c.value < lims[i] OR c.expires_at <= now_ms
        RETURNING c.value INTO newv;
      ord := i; rec := recs[i];
      IF newv IS NULL THEN
        st := 2; used := lims[i];
      ELSE
        st := 3; used := newv; counted := ARRAY[i];
      END IF;
      RETURN NEXT;
    ELSE
      LOOP
        SELECT c.value, c.expires_at INTO cur, cur_expiry FROM dossier_counters c WHERE c.name = qname FOR UPDATE;
        EXIT WHEN FOUND;
        -- A new day's counter at 0, or the one another session has just made: then lock and read it.
        INSERT INTO dossier_counters (name, value, expires_at) VALUES (qname, 0, quota_expiry) ON CONFLICT (name) DO NOTHING;
      END LOOP;
      start := CASE WHEN cur_expiry <= now_ms THEN 0 ELSE cur END;
      cnt := start;
      FOREACH i IN ARRAY g.ords LOOP
        ord := i; rec := recs[i];
        IF cnt < lims[i] THEN
          cnt := cnt + 1; st := 3; used := cnt; counted := counted || i;
        ELSE
          st := 2; used := lims[i];
        END IF;
        RETURN NEXT;
      END LOOP;
      IF cnt > start THEN
        UPDATE dossier_counters SET value = cnt, expires_at = quota_expiry WHERE name = qname;
      END IF;
    END IF;
    FOR u IN SELECT kinds[o] AS kind, count(*) AS added FROM unnest(counted) AS o GROUP BY 1 ORDER BY 1 LOOP
      INSERT INTO dossier_counters AS c (name, value, expires_at)
        VALUES ('usage:' || g.id || ':' || day || ':' || u.kind, u.added, usage_expiry)
        ON CONFLICT (name) DO UPDATE SET
          value = CASE WHEN c.expires_at <= now_ms THEN excluded.value ELSE c.value + excluded.value END,
          expires_at = excluded.expires_at;
    END LOOP;
  END LOOP;
END
$fn$`;

const ADMIT_SQL = 'SELECT ord, rec, st, used FROM dossier_admit($1::text[], $2::text[], $3::bigint[], $4, $5, $6, $7, $8)';

interface AdmitRow {
  ord: number;
  rec: string | null;
  st: number;
  used: string | number | null;
}

/**
 * Admission on PostgreSQL: one function call, so one round trip and one commit, for every admission
 * asked during one turn of the event loop. Calls of successive turns run side by side on the pool
 * (measured: waiting for one call to end before sending the next is no faster).
 */
export class PostgresAdmissionStore implements AdmissionStore {
  readonly admit: AdmissionStore['admit'];
  /** The tables and the function, made once. */
  private readonly ready = new SetUpOnce(async () => {
    await Promise.all([this.counters.tablesExist(), this.keys.ready()]);
    await createFunction(this.query, ADMIT_FUNCTION);
  });

  /** @param keys whose rows it reads; @param counters whose tables it writes. */
  constructor(
    private readonly query: SqlQuery,
    private readonly counters: SqlCounterStore,
    private readonly keys: SqlKeyRecords,
    private readonly guard: StoreGuard,
    clock: Clock,
  ) {
    this.admit = admitPerTurn(clock, (plans) => this.send(plans));
  }

  /** Sends the admissions of one turn in one function call. */
  private async send(batch: AdmissionPlan[]): Promise<Admission[]> {
    // One day and one time for the batch: it runs as one step (the first plan's, a few µs apart).
    const first = batch[0]!;
    let rows: AdmitRow[];
    try {
      if (!this.ready.done) await this.ready.run();
      rows = (await this.guard.run(() =>
        this.query(ADMIT_SQL, [
          batch.map((plan) => digestOfRecord(plan.record)),
          batch.map((plan) => plan.kind),
          batch.map((plan) => plan.defaultLimit),
          first.nowIso,
          Math.floor(first.now),
          String(first.day),
          first.quotaExpiresAt,
          first.usageExpiresAt,
        ]),
      )) as AdmitRow[];
    } catch (error) {
      throw storeError(error);
    }
    const byIndex = new Map(rows.map((row) => [Number(row.ord), row]));
    const step = scriptedSteps((rec) => JSON.parse(rec) as StoredKey);
    return batch.map((plan, index): Admission => {
      const row = byIndex.get(index + 1);
      return admissionOf({ ...plan, day: first.day }, step(row?.st ?? 0, row?.rec, Number(row?.used ?? 0)));
    });
  }
}

/** `CREATE OR REPLACE FUNCTION`, safe when several sessions run it at once (one may lose the race on the catalog). */
async function createFunction(query: SqlQuery, definition: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await query(definition, []);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code !== 'XX000' && code !== '23505') || attempt >= 5) throw error;
    }
  }
}
