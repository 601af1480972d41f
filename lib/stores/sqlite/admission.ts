import type Database from 'better-sqlite3';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import { GET_SQL, type SqlCounterStore } from '../sql/counters.js';
import { storeError } from '../shared/guard.js';
import { statementCache, type SqliteConnection } from './connection.js';
import { admitPerTurn } from '../shared/admit-per-turn.js';
import { admissionOf, type AdmissionPlan, type AdmissionStep } from '../shared/admission-plan.js';
import { countBatch, judgeBatch } from '../shared/admission-batch.js';
import { SECRET_SQL, storedKeyOfRow, type SqlKeyRecords } from '../sql/keys.js';
import { digestOfRecord } from '../../records/stored-key.js';

/**
 * Admission on SQLite in one synchronous `BEGIN IMMEDIATE` transaction of prepared statements: read the
 * key's row by the digest of the secret, judge it, raise the day's quota counter under the ceiling and the usage counter of the
 * kind. The write lock makes it atomic across every process sharing the file; nothing leaves the thread.
 *
 * Admissions asked during one turn of the event loop share one transaction (a group commit): a commit is
 * most of the cost of a write, and under load many requests arrive in the same turn. They run one after
 * the other inside it, so each sees the counts of the ones before, exactly as in separate transactions.
 */
export class SqliteAdmissionStore implements AdmissionStore {
  readonly admit: AdmissionStore['admit'];
  private step: ((plans: AdmissionPlan[]) => AdmissionStep[]) | undefined;

  /** @param keys whose rows it reads; @param counters whose tables it writes. */
  constructor(
    private readonly connection: SqliteConnection,
    private readonly counters: SqlCounterStore,
    private readonly keys: SqlKeyRecords,
    clock: Clock,
  ) {
    this.admit = admitPerTurn(clock, (plans) => this.send(plans));
  }

  /** Runs the admissions of one turn in one transaction. */
  private async send(plans: AdmissionPlan[]): Promise<Admission[]> {
    try {
      // Prepared on first use, once the counters' tables exist.
      if (this.step === undefined) {
        await Promise.all([this.counters.tablesExist(), this.keys.ready()]);
        this.step ??= await this.connection.run((db) => this.prepare(db));
      }
      const steps = this.step(plans);
      return plans.map((plan, index) => admissionOf(plan, steps[index]!));
    } catch (error) {
      throw storeError(error);
    }
  }

  private prepare(db: Database.Database): (plans: AdmissionPlan[]) => AdmissionStep[] {
    const statement = statementCache(db);
    const read = statement(SECRET_SQL);
    const get = statement(GET_SQL);
    const set = statement(
      `INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    );
    const add = statement(
      `INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET
         value = CASE WHEN dossier_counters.expires_at <= ? THEN excluded.value ELSE dossier_counters.value + excluded.value END,
         expires_at = excluded.expires_at`,
    );
    // Inside one transaction nothing else writes: a key asked for several times is read and judged
    // once, each quota counter read once and written once with its new value, each usage counter
    // raised once by the batch's total.
    const batch = (plans: AdmissionPlan[]): AdmissionStep[] => {
      const { verdicts } = judgeBatch(plans, (record) => {
        const row = read.get(digestOfRecord(record)) as Record<string, unknown> | undefined;
        return row === undefined ? undefined : storedKeyOfRow(row);
      });
      const counted = countBatch(plans, verdicts, (quota, plan) => {
        const current = get.get(quota, Math.floor(plan.now)) as { value: number } | undefined;
        return current?.value ?? 0;
      });
      for (const quota of counted.quotas) set.run(quota.name, quota.used, quota.expiresAt);
      for (const usage of counted.usages) add.run(usage.name, usage.added, usage.expiresAt, usage.now);
      return counted.steps;
    };
    const transaction = db.transaction(batch);
    return (plans) => this.connection.runAlone(() => transaction.immediate(plans));
  }
}
