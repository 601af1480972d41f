import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { StoredKey } from '../../records/stored-key.js';
import { admissionOf, type AdmissionPlan } from '../shared/admission-plan.js';
import { countBatch, judgeBatch } from '../shared/admission-batch.js';
import { SECRETS_SQL, storedKeyOfRow, type SqlKeyRecords } from '../sql/keys.js';
import { digestOfRecord } from '../../records/stored-key.js';
import { admitPerTurn } from '../shared/admit-per-turn.js';
import { storeError } from '../shared/guard.js';
import type { SqlCounterStore } from '../sql/counters.js';
import type { MysqlConnection } from './connection.js';

/**
 * Admission on MySQL or MariaDB: the admissions asked meanwhile in one transaction. The key records are
 * read (without a lock) and judged; the quota counters of the working keys are made where missing and
 * locked, in the order of their names (so that two batches never wait on each other in a circle), and
 * read; the batch is counted (as on SQLite: {@link countBatch}) and the counters written, and the
 * transaction commits. Exact across processes, the locks ordering them; a batch that misses its deadline
 * commits nothing (see {@link MysqlConnection}), the deadline counting from its first admission.
 *
 * A process runs one such transaction at a time, the admissions asked while it runs going together in
 * the next: a hot key's counter stays locked over several round trips of a transaction, and many small
 * ones would queue on it one after the other (1500 lookups at once over two servers on one loaded
 * machine passed their deadline so).
 */
export class MysqlAdmissionStore implements AdmissionStore {
  readonly admit: AdmissionStore['admit'];

  /** @param keys whose rows it reads; @param counters whose tables it writes. */
  constructor(
    private readonly connection: MysqlConnection,
    private readonly counters: SqlCounterStore,
    private readonly keys: SqlKeyRecords,
    clock: Clock,
  ) {
    this.admit = admitPerTurn(clock, (plans, since) => this.send(plans, since), { serial: true });
  }

  private async send(asked: AdmissionPlan[], since: number): Promise<Admission[]> {
    // One day and one time for the batch: it runs as one step (the first plan's, moments apart).
    const first = asked[0]!;
    const plans = asked.map((plan) => ({ ...first, record: plan.record, kind: plan.kind, defaultLimit: plan.defaultLimit }));
    try {
      await Promise.all([this.counters.tablesExist(), this.keys.ready()]);
      return await this.connection.transaction(async (run) => {
        const digests = [...new Set(plans.map((plan) => digestOfRecord(plan.record)))];
        const rows = (await run(SECRETS_SQL, [digests])) as Record<string, unknown>[];
        const records = new Map<string, StoredKey>(rows.map((row) => [String(row.digest), storedKeyOfRow(row)]));
        const { verdicts, quotas } = judgeBatch(plans, (record) => records.get(digestOfRecord(record)));
        const locked = new Map<string, { value: number; expires_at: number | null }>();
        if (quotas.length > 0) {
          const sorted = [...quotas].sort();
          const expiry = first.quotaExpiresAt;
          const [, counters] = (await run(
            `INSERT INTO dossier_counters (name, value, expires_at) VALUES ? ON DUPLICATE KEY UPDATE name = name;
             SELECT name, value, expires_at FROM dossier_counters WHERE name IN (?)`,
            [sorted.map((name) => [name, 0, expiry]), sorted],
          )) as [unknown, { name: string; value: number; expires_at: number | null }[]];
          for (const { name, ...counter } of counters) locked.set(name, counter);
        }
        const counted = countBatch(plans, verdicts, (quota, plan) => {
          const counter = locked.get(quota);
          return counter === undefined || (counter.expires_at !== null && counter.expires_at <= plan.now) ? 0 : counter.value;
        });
        const writes: string[] = [];
        const values: unknown[] = [];
        if (counted.quotas.length > 0) {
          writes.push(
            'INSERT INTO dossier_counters (name, value, expires_at) VALUES ? ON DUPLICATE KEY UPDATE value = VALUES(value), expires_at = VALUES(expires_at)',
          );
          values.push(counted.quotas.map(({ name, used, expiresAt }) => [name, used, expiresAt]));
        }
        for (const usage of counted.usages) {
          // `value` first, while `expires_at` still holds the counter's old expiry.
          writes.push(
            `INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE
               value = IF(expires_at <= ?, VALUES(value), value + VALUES(value)), expires_at = VALUES(expires_at)`,
          );
          values.push(usage.name, usage.added, usage.expiresAt, usage.now);
        }
        if (writes.length > 0) await run(writes.join(';\n'), values);
        return plans.map((plan, index) => admissionOf(plan, counted.steps[index]!));
      }, since);
    } catch (error) {
      throw storeError(error);
    }
  }
}
