import type { StoredKey } from '../../records/stored-key.js';
import { countersOf, judge, type AdmissionPlan, type AdmissionStep, type Verdict } from './admission-plan.js';

/**
 * The verdicts of a batch of admissions that a store runs as one step (a transaction): each key record
 * read and judged once, by the first admission that asks for it, and the quota counters the working
 * keys count against, each named once.
 */
export function judgeBatch(
  plans: AdmissionPlan[],
  recordOf: (record: string) => StoredKey | undefined,
): { verdicts: Verdict[]; quotas: string[] } {
  const byRecord = new Map<string, Verdict>();
  const quotas = new Set<string>();
  const verdicts = plans.map((plan) => {
    let verdict = byRecord.get(plan.record);
    if (verdict === undefined) {
      verdict = judge(plan, recordOf(plan.record));
      byRecord.set(plan.record, verdict);
    }
    if (verdict.state !== 'invalid') quotas.add(countersOf(plan, verdict.record.id).quota);
    return verdict;
  });
  return { verdicts, quotas: [...quotas] };
}

/** What a batch counted: each admission's step, and what the store then writes. */
export interface BatchCount {
  steps: AdmissionStep[];
  /** The day's count of each quota counter that counted admissions raised, and its expiry. */
  quotas: { name: string; used: number; expiresAt: number }[];
  /** How much each usage counter grows, its expiry, and the time that says whether it had expired. */
  usages: { name: string; added: number; expiresAt: number; now: number }[];
}

/**
 * Counts a batch one admission after the other, each seeing the counts of the ones before (exactly as
 * separate steps would), from the quota counters as they stood at the time of the first admission that
 * counts against each (`usedOf`, 0 for one expired or absent):
 * a key asked for several times is counted once per admission against one counter, which is written
 * once with its new value; each usage counter grows once by the batch's total.
 */
export function countBatch(
  plans: AdmissionPlan[],
  verdicts: Verdict[],
  usedOf: (quota: string, plan: AdmissionPlan) => number,
): BatchCount {
  const quotas = new Map<string, { used: number; expiresAt: number; touched: boolean }>();
  const usages = new Map<string, { added: number; expiresAt: number; now: number }>();
  const steps = plans.map((plan, index): AdmissionStep => {
    const verdict = verdicts[index]!;
    if (verdict.state === 'invalid') return verdict;
    const names = countersOf(plan, verdict.record.id);
    let quota = quotas.get(names.quota);
    if (quota === undefined) {
      quota = { used: usedOf(names.quota, plan), expiresAt: plan.quotaExpiresAt, touched: false };
      quotas.set(names.quota, quota);
    }
    if (verdict.state === 'no-scope') return { state: 'no-scope', record: verdict.record, used: quota.used };
    if (quota.used >= verdict.limit) return { state: 'exceeded', record: verdict.record, used: verdict.limit };
    quota.used += 1;
    quota.touched = true;
    const usage = usages.get(names.usage);
    if (usage === undefined) usages.set(names.usage, { added: 1, expiresAt: plan.usageExpiresAt, now: Math.floor(plan.now) });
    else usage.added += 1;
    return { state: 'counted', record: verdict.record, used: quota.used };
  });
  return {
    steps,
    quotas: [...quotas].filter(([, quota]) => quota.touched).map(([name, { used, expiresAt }]) => ({ name, used, expiresAt })),
    usages: [...usages].map(([name, usage]) => ({ name, ...usage })),
  };
}
