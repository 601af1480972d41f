import type { StoredKey } from '../../records/stored-key.js';
import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { CounterStore } from '../../ports/counter-store.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import type { KvStore } from '../../ports/kv-store.js';
import { admissionOf, countersOf, judge, planAdmission } from './admission-plan.js';

/**
 * Admission from a backend's values and counters, one call after the other. For `memory://`, where
 * those calls are plain function calls in this process, this is already the shortest path; the counted
 * increment is atomic by itself, so quotas stay exact.
 */
export class ComposedAdmissionStore implements AdmissionStore {
  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    private readonly clock: Clock,
  ) {}

  async admit(secret: string, kind: LookupKind, defaultLimit: number): Promise<Admission> {
    const plan = planAdmission(secret, kind, defaultLimit, this.clock.now());
    if (plan === null) return { status: 'invalid' };
    const record = await this.kv.get<StoredKey>(plan.record);
    const verdict = judge(plan, record);
    if (verdict.state === 'invalid') return { status: 'invalid' };
    const names = countersOf(plan, verdict.record.id);
    if (verdict.state === 'no-scope') {
      return admissionOf(plan, { state: 'no-scope', record: verdict.record, used: await this.counters.get(names.quota) });
    }
    const used = await this.counters.increment(names.quota, { ceiling: verdict.limit, expiresAt: plan.quotaExpiresAt });
    if (used === null) return admissionOf(plan, { state: 'exceeded', record: verdict.record, used: verdict.limit });
    await this.counters.increment(names.usage, { expiresAt: plan.usageExpiresAt });
    return admissionOf(plan, { state: 'counted', record: verdict.record, used });
  }
}
