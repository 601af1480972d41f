import type { StoredKey } from '../../keys/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { SqlCounterStore, SqlQuery } from '../counters/sql.js';
import { storeError } from '../guard.js';
import { createTable } from '../keyv/postgres-store.js';
import type { StoreGuard } from '../guard.js';
import { deserialize } from '../keyv/serialize.js';
import { admitPerTurn } from './per-turn.js';
import { admissionOf, type AdmissionPlan } from './plan.js';

/**
 * The admissions of a batch as one function call, which PostgreSQL runs as one statement in one
 * transaction: one round trip and one commit for every admission asked during one turn of the event
 * loop (a commit waits for the WAL to reach the disk, about a millisecond: one per lookup held a single
 * key below a thousand lookups a second). For each admission, in order: the key's record is read and
 * judged by `workingKey`'s rule (lib/keys/stored-key.ts) in SQL (not revoked, `expiresAt` after now:
 * ISO 8601 strings compare as their instants under the "C" collation; an old secret only until its
 * `graceUntil`; the `lookup` scope), then the day's quota counter is raised under the key's ceiling
 * (`INSERT … ON CONFLICT DO UPDATE … WHERE` locks the row and checks the ceiling on its latest value,
 * so concurrent calls from any number of processes stay exact), and only if it was, the usage counter
 * of the kind. Admissions are taken in the order of their records (the same key's in the order they
 * were asked), so that two batches lock rows in the same order and never wait on each other in a
 * circle. Answers one row per admission: its index (1-based), the record, 0 invalid, 1 no scope,
 * 2 exceeded, 3 counted, and the day's count.
 */
const ADMIT_FUNCTION = `CREATE OR REPLACE FUNCTION dossier_admit(
  records text[], kinds text[], default_limits bigint[], now_iso text, now_ms bigint, day text,
  quota_expiry bigint, usage_expiry bigint
) RETURNS TABLE (ord int, rec text, st int, used bigint) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v jsonb;
  lim bigint;
  kid text;
  qname text;
  newv bigint;
BEGIN
  FOR ord IN SELECT s.i FROM generate_subscripts(records, 1) AS s(i) ORDER BY records[s.i], s.i LOOP
    rec := NULL; st := 0; used := 0; v := NULL;
    SELECT k.value::jsonb -> 'value' INTO v FROM keyv k WHERE k.key = records[ord];
    IF v IS NULL OR (v ->> 'revokedAt') IS NOT NULL
      OR ((v ->> 'expiresAt') IS NOT NULL AND (v ->> 'expiresAt') COLLATE "C" <= now_iso COLLATE "C")
      OR ((v ->> 'graceUntil') IS NOT NULL AND (v ->> 'graceUntil')::numeric <= now_ms) THEN
      RETURN NEXT;
      CONTINUE;
    END IF;
    rec := v::text;
    kid := v ->> 'id';
    lim := COALESCE((v ->> 'dailyLimit')::bigint, default_limits[ord]);
    qname := 'quota:' || kid || ':' || day;
    IF NOT COALESCE((v -> 'scopes') ? 'lookup', false) THEN
      SELECT c.value INTO used FROM dossier_counters c
        WHERE c.name = qname AND (c.expires_at IS NULL OR c.expires_at > now_ms);
      st := 1; used := COALESCE(used, 0);
      RETURN NEXT;
      CONTINUE;
    END IF;
    newv := NULL;
    INSERT INTO dossier_counters AS c (name, value, expires_at) VALUES (qname, 1, quota_expiry)
      ON CONFLICT (name) DO UPDATE SET
        value = CASE WHEN c.expires_at <= now_ms THEN 1 ELSE c.value + 1 END,
        expires_at = excluded.expires_at
      WHERE c.value < lim OR c.expires_at <= now_ms
      RETURNING c.value INTO newv;
    IF newv IS NULL THEN
      st := 2; used := lim;
      RETURN NEXT;
      CONTINUE;
    END IF;
    INSERT INTO dossier_counters AS c (name, value, expires_at)
      VALUES ('usage:' || kid || ':' || day || ':' || kinds[ord], 1, usage_expiry)
      ON CONFLICT (name) DO UPDATE SET
        value = CASE WHEN c.expires_at <= now_ms THEN 1 ELSE c.value + 1 END,
        expires_at = excluded.expires_at;
    st := 3; used := newv;
    RETURN NEXT;
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
 * (measured: waiting for one call to end before sending the next is slower, each then waiting for
 * the previous one's commit).
 */
export class PostgresAdmissionStore implements AdmissionStore {
  readonly admit: AdmissionStore['admit'];
  private ready: Promise<unknown> | true | undefined;

  /** @param namespace the Keyv namespace of the key records; @param counters whose tables it writes. */
  constructor(
    private readonly query: SqlQuery,
    private readonly counters: SqlCounterStore,
    private readonly guard: StoreGuard,
    private readonly namespace: string,
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
      if (this.ready !== true) await this.prepared();
      rows = (await this.guard.run(() =>
        this.query(ADMIT_SQL, [
          batch.map((plan) => `${this.namespace}:${plan.record}`),
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
    return batch.map((plan, index): Admission => {
      const row = byIndex.get(index + 1);
      if (row === undefined || row.st === 0 || row.rec === null) return { status: 'invalid' };
      const record = deserialize<StoredKey>(row.rec);
      const state = row.st === 1 ? 'no-scope' : row.st === 2 ? 'exceeded' : 'counted';
      return admissionOf({ ...plan, day: first.day }, { state, record, used: Number(row.used ?? 0) });
    });
  }

  /** The tables and the function, made once; a failed attempt is forgotten, so that a database back up is used again. */
  private prepared(): Promise<unknown> {
    this.ready ??= (async () => {
      await this.counters.tablesExist();
      await createTable(this.query, 'keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
      await createFunction(this.query, ADMIT_FUNCTION);
    })().then(
      () => (this.ready = true),
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready === true ? Promise.resolve() : this.ready;
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
