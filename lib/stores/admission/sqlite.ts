import type Database from 'better-sqlite3';
import type { StoredKey } from '../../keys/keyv-key-store.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import { GET_SQL, INCREMENT_SQL, type SqlCounterStore } from '../counters/sql.js';
import { storeError } from '../guard.js';
import { statementCache, type SqliteConnection } from '../sqlite/connection.js';
import { admissionOf, countersOf, judge, planAdmission, type AdmissionPlan, type AdmissionStep } from './plan.js';

/**
 * Admission on SQLite in one synchronous `BEGIN IMMEDIATE` transaction of prepared statements: read the
 * key's record, judge it, raise the day's quota counter under the ceiling and the usage counter of the
 * kind. The write lock makes it atomic across every process sharing the file; nothing leaves the thread.
 */
export class SqliteAdmissionStore implements AdmissionStore {
  private step: ((plan: AdmissionPlan) => AdmissionStep) | undefined;

  /** @param namespace the Keyv namespace of the key records; @param counters whose tables it writes. */
  constructor(
    private readonly connection: SqliteConnection,
    private readonly counters: SqlCounterStore,
    private readonly namespace: string,
    private readonly clock: Clock,
  ) {}

  async admit(secret: string, kind: LookupKind, defaultLimit: number): Promise<Admission> {
    const plan = planAdmission(secret, kind, defaultLimit, this.clock.now());
    if (plan === null) return { status: 'invalid' };
    try {
      // Prepared on first use, once the counters' tables exist.
      if (this.step === undefined) {
        await this.counters.tablesExist();
        this.step = await this.connection.run((db) => this.prepare(db));
      }
      const step = this.step;
      return admissionOf(plan, await this.connection.run(() => step(plan)));
    } catch (error) {
      throw storeError(error);
    }
  }

  private prepare(db: Database.Database): (plan: AdmissionPlan) => AdmissionStep {
    const statement = statementCache(db);
    const record = statement('SELECT value FROM keyv WHERE key = ?');
    const get = statement(GET_SQL);
    const increment = statement(INCREMENT_SQL);
    const transaction = db.transaction((plan: AdmissionPlan): AdmissionStep => {
      const row = record.get(`${this.namespace}:${plan.record}`) as { value: string } | undefined;
      const stored = row === undefined ? undefined : (JSON.parse(row.value) as { value: StoredKey }).value;
      const verdict = judge(plan, stored);
      if (verdict.state === 'invalid') return verdict;
      const now = Math.floor(plan.now);
      const names = countersOf(plan, verdict.record.id);
      if (verdict.state === 'no-scope') {
        const current = get.get(names.quota, now) as { value: number } | undefined;
        return { state: 'no-scope', record: verdict.record, used: current?.value ?? 0 };
      }
      const counted = increment.get(names.quota, plan.quotaExpiresAt, now, verdict.limit, now) as { value: number } | undefined;
      if (counted === undefined) return { state: 'exceeded', record: verdict.record, used: verdict.limit };
      increment.run(names.usage, plan.usageExpiresAt, now, Number.MAX_SAFE_INTEGER, now);
      return { state: 'counted', record: verdict.record, used: counted.value };
    });
    return (plan) => transaction.immediate(plan);
  }
}
