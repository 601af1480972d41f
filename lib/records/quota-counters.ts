import type { LookupKind } from '../ports/lookup-service.js';
import { USAGE_DAYS_KEPT, type QuotaState } from '../ports/quota-store.js';

// The counters of quotas and usage history: their names, lifetimes and reading, shared by
// CounterQuotaStore (lib/quota) and the stores' one-step admissions (lib/stores), which write the same ones.

/** Milliseconds of a day. */
export const DAY_MS = 86_400_000;

/** The counter of a key's counted lookups on a UTC day (days since the epoch). */
export function quotaCounter(keyId: string, day: number): string {
  return `quota:${keyId}:${day}`;
}

/** The counter of a key's counted lookups of one kind on a UTC day: its usage history. */
export function usageCounter(keyId: string, day: number, kind: LookupKind): string {
  return `usage:${keyId}:${day}:${kind}`;
}

/** When a day's quota counter is forgotten: a day later than needed, so that a clock a little off never reads a missing counter. */
export function quotaExpiry(day: number): number {
  return (day + 2) * DAY_MS;
}

/** When a day's usage counters are forgotten: {@link USAGE_DAYS_KEPT} days later, and a margin. */
export function usageExpiry(day: number): number {
  return (day + USAGE_DAYS_KEPT + 2) * DAY_MS;
}

/** Where a key stands after `used` counted lookups on `day`. */
export function quotaState(allowed: boolean, limit: number, used: number, day: number): QuotaState {
  return { allowed, limit, remaining: Math.max(0, limit - used), resetAt: ((day + 1) * DAY_MS) / 1000 };
}
