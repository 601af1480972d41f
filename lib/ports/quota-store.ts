import type { LookupKind } from './lookup-service.js';

/** Where a key stands against its daily quota. */
export interface QuotaState {
  /** Whether this request was let through (always true for {@link QuotaStore.peek}). */
  allowed: boolean;
  /** The daily limit. */
  limit: number;
  /** Requests left today, never negative. */
  remaining: number;
  /** Unix seconds of the next UTC midnight, when the count starts again. */
  resetAt: number;
}

/** A key's counted lookups on one UTC day, by kind. */
export interface UsageDay {
  /** `YYYY-MM-DD`, a UTC day. */
  date: string;
  dns: number;
  whois: number;
  ip: number;
  ssl: number;
  /** The sum of the kinds. */
  total: number;
}

/** How many days of usage are kept, at the least. */
export const USAGE_DAYS_KEPT = 90;

/**
 * Counts lookups per key and UTC day, exactly, also across processes sharing a store, and keeps each
 * day's counted lookups by kind for {@link USAGE_DAYS_KEPT} days.
 */
export interface QuotaStore {
  /**
   * Counts one lookup of `kind` if the key has quota left today.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  consume(keyId: string, limit: number, kind: LookupKind): Promise<QuotaState>;
  /**
   * Reads the state without counting.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  peek(keyId: string, limit: number): Promise<QuotaState>;
  /**
   * Gives back a lookup that {@link consume} counted but that turned out not to count (a target
   * refused after resolution); `consumed` is what `consume` returned, so the right day is refunded.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  refund(keyId: string, consumed: QuotaState, kind: LookupKind): Promise<void>;
  /**
   * The key's counted lookups on each of the last `days` UTC days (1 to {@link USAGE_DAYS_KEPT}),
   * oldest first, today last, every day present.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  history(keyId: string, days: number): Promise<UsageDay[]>;
}
