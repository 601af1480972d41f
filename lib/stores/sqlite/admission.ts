import type Database from 'better-sqlite3';
import type { StoredKey } from '../../records/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import { GET_SQL, type SqlCounterStore } from '../sql/counters.js';
import { storeError } from '../shared/guard.js';
import { deserialize } from '../shared/serialize.js';
import { statementCache, type SqliteConnection } from './connection.js';
import { admitPerTurn } from '../shared/admit-per-turn.js';
import {
  admissionOf,
  countersOf,
  judge,
  type AdmissionPlan,
  type AdmissionStep,
  type Verdict,
} from '../shared/admission-plan.js';

/**
 * Admission on SQLite in one synchronous `BEGIN IMMEDIATE` transaction of prepared statements: read the
 * key's record, judge it, raise the day's quota counter under the ceiling and the usage counter of the
 * kind. The write lock makes it atomic across every process sharing the file; nothing leaves the thread.
 *
 * Admissions asked during one turn of the event loop share one transaction (a group commit): a commit is
 * most of the cost of a write, and under load many requests arrive in the same turn. They run one after
 * the other inside it, so each sees the counts of the ones before, exactly as in separate transactions.
 */
export class SqliteAdmissionStore implements AdmissionStore {
  readonly admit: AdmissionStore['admit'];
  private step: ((plans: AdmissionPlan[]) => AdmissionStep[]) | undefined;

  /** @param namespace the Keyv namespace of the key records; @param counters whose tables it writes. */
  constructor(
    private readonly connection: SqliteConnection,
    private readonly counters: SqlCounterStore,
    private readonly namespace: string,
    clock: Clock,
  ) {
    this.admit = admitPerTurn(clock, (plans) => this.send(plans));
  }

  /** Runs the admissions of one turn in one transaction. */
  private async send(plans: AdmissionPlan[]): Promise<Admission[]> {
    try {
      // Prepared on first use, once the counters' tables exist.
      if (this.step === undefined) {
        await this.counters.tablesExist();
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
    const read = statement('SELECT value FROM keyv WHERE key = ?');
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
      const verdicts = new Map<string, Verdict>();
      const quotas = new Map<string, { used: number; expiresAt: number; touched: boolean }>();
      const usages = new Map<string, { added: number; expiresAt: number; now: number }>();
      const steps = plans.map((plan): AdmissionStep => {
        let verdict = verdicts.get(plan.record);
        if (verdict === undefined) {
          const row = read.get(`${this.namespace}:${plan.record}`) as { value: string } | undefined;
          verdict = judge(plan, row === undefined ? undefined : storedKey(row.value));
          verdicts.set(plan.record, verdict);
        }
        if (verdict.state === 'invalid') return verdict;
        const now = Math.floor(plan.now);
        const names = countersOf(plan, verdict.record.id);
        let quota = quotas.get(names.quota);
        if (quota === undefined) {
          const current = get.get(names.quota, now) as { value: number } | undefined;
          quota = { used: current?.value ?? 0, expiresAt: plan.quotaExpiresAt, touched: false };
          quotas.set(names.quota, quota);
        }
        if (verdict.state === 'no-scope') return { state: 'no-scope', record: verdict.record, used: quota.used };
        if (quota.used >= verdict.limit) return { state: 'exceeded', record: verdict.record, used: verdict.limit };
        quota.used += 1;
        quota.touched = true;
        const usage = usages.get(names.usage);
        if (usage === undefined) usages.set(names.usage, { added: 1, expiresAt: plan.usageExpiresAt, now });
        else usage.added += 1;
        return { state: 'counted', record: verdict.record, used: quota.used };
      });
      for (const [name, quota] of quotas) if (quota.touched) set.run(name, quota.used, quota.expiresAt);
      for (const [name, usage] of usages) add.run(name, usage.added, usage.expiresAt, usage.now);
      return steps;
    };
    const transaction = db.transaction(batch);
    return (plans) => this.connection.runAlone(() => transaction.immediate(plans));
  }
}

/** The key of a record as Keyv serialized it; `undefined` for one that cannot be read (refused as unknown). */
function storedKey(text: string): StoredKey | undefined {
  try {
    const value = deserialize<{ value?: StoredKey }>(text).value;
    return typeof value === 'object' && value !== null && Array.isArray(value.scopes) ? value : undefined;
  } catch {
    return undefined;
  }
}
