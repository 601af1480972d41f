import { digestOf, keyRecord, publicKey, SECRET_PATTERN, workingKey, type StoredKey } from '../../records/stored-key.js';
import type { Admission } from '../../ports/admission-store.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import { DAY_MS, quotaCounter, quotaExpiry, quotaState, usageCounter, usageExpiry } from '../../records/quota-counters.js';

/**
 * Everything one admission needs, computed once before the store is asked: the names of the key's
 * record and counters follow `KeyvKeyStore` and `CounterQuotaStore`, so that both read what the fast
 * path writes.
 */
export interface AdmissionPlan {
  /** The record's name in the store's values (before the backend's namespace). */
  record: string;
  kind: LookupKind;
  /** ms since the epoch, from the Clock port. */
  now: number;
  /** `now` as ISO 8601, the form `expiresAt` is stored in (such strings sort as the instants do). */
  nowIso: string;
  /** The UTC day, in days since the epoch. */
  day: number;
  defaultLimit: number;
  /** When the day's quota and usage counters are forgotten (ms since the epoch). */
  quotaExpiresAt: number;
  usageExpiresAt: number;
}

/** The plan of an admission; `null` for a secret that cannot be a key (refused with no store call). */
export function planAdmission(secret: string, kind: LookupKind, defaultLimit: number, now: number): AdmissionPlan | null {
  if (!SECRET_PATTERN.test(secret)) return null;
  const day = Math.floor(now / DAY_MS);
  return {
    record: keyRecord(digestOf(secret)),
    kind,
    now,
    nowIso: isoAt(now),
    day,
    defaultLimit,
    quotaExpiresAt: quotaExpiry(day),
    usageExpiresAt: usageExpiry(day),
  };
}

let lastNow = NaN;
let lastIso = '';

/**
 * `now` as ISO 8601, made once per instant: under load many admissions share a millisecond, and a
 * `Date` and its `toISOString` cost about a microsecond, as much as the rest of the plan.
 */
function isoAt(now: number): string {
  if (now !== lastNow) {
    lastNow = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/** Names of the key's counters for the plan's day. */
export function countersOf(plan: AdmissionPlan, keyId: string): { quota: string; usage: string } {
  return { quota: quotaCounter(keyId, plan.day), usage: usageCounter(keyId, plan.day, plan.kind) };
}

/** What a backend found and did, in one step. */
export type AdmissionStep =
  | { state: 'invalid' }
  /** `used`: the day's count after the step (counted) or as it stood (not counted). */
  | { state: 'no-scope' | 'exceeded' | 'counted'; record: StoredKey; used: number };

/** The admission a backend's step amounts to. */
export function admissionOf(plan: AdmissionPlan, step: AdmissionStep): Admission {
  if (step.state === 'invalid') return { status: 'invalid' };
  const key = publicKey(step.record);
  const limit = key.dailyLimit ?? plan.defaultLimit;
  return { status: step.state, key, quota: quotaState(step.state !== 'exceeded', limit, step.used, plan.day) };
}

/** A step's state as the scripts of Redis and PostgreSQL answer it. */
const SCRIPTED_STATES: Record<number, 'no-scope' | 'exceeded' | 'counted' | undefined> = {
  1: 'no-scope',
  2: 'exceeded',
  3: 'counted',
};

/**
 * Reads the steps a store's script answered, each as a state code (0 invalid, 1 no scope, 2 exceeded,
 * 3 counted), the key's record as text and the day's count. A key asked for several times in one batch
 * comes back with the same text: `parse` reads it once.
 */
export function scriptedSteps(
  parse: (text: string) => StoredKey,
): (code: number, text: string | null | undefined, used: number) => AdmissionStep {
  const records = new Map<string, StoredKey>();
  return (code, text, used) => {
    const state = SCRIPTED_STATES[code];
    if (state === undefined || text === null || text === undefined) return { state: 'invalid' };
    let record = records.get(text);
    if (record === undefined) {
      record = parse(text);
      records.set(text, record);
    }
    return { state, record, used };
  };
}

/**
 * The rule the backends that run JavaScript apply to a record: `invalid` unless it works at the plan's
 * time, `no-scope` without `lookup`, else the limit to count against.
 */
export function judge(plan: AdmissionPlan, record: StoredKey | undefined): Verdict {
  if (record === undefined || workingKey(record, plan.now) === null) return { state: 'invalid' };
  if (!record.scopes.includes('lookup')) return { state: 'no-scope', record };
  return { state: 'ok', record, limit: record.dailyLimit ?? plan.defaultLimit };
}

/** What {@link judge} says of a record. */
export type Verdict =
  { state: 'invalid' } | { state: 'no-scope'; record: StoredKey } | { state: 'ok'; record: StoredKey; limit: number };
