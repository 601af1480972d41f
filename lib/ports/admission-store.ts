import type { ApiKey } from './key-store.js';
import type { LookupKind } from './lookup-service.js';
import type { QuotaState } from './quota-store.js';

/** What {@link AdmissionStore.admit} decided. */
export type Admission =
  /** No working key behind the secret: unknown, revoked, expired, or an old secret past its grace. Nothing counted. */
  | { status: 'invalid' }
  /** A working key without the `lookup` scope. Nothing counted; `quota` is where the key stands. */
  | { status: 'no-scope'; key: ApiKey; quota: QuotaState }
  /** The key has used its daily quota. Nothing counted. */
  | { status: 'exceeded'; key: ApiKey; quota: QuotaState }
  /** The lookup is counted against the quota and in the usage of its kind. */
  | { status: 'counted'; key: ApiKey; quota: QuotaState };

/**
 * The hot path of interface A in one atomic step of the store: find the working key behind a secret
 * (by its SHA-256 digest), check its `lookup` scope, and count one lookup of a kind against its daily
 * quota and in its usage history. One round trip to the store, exact under concurrency across
 * processes, with no key kept in memory (a revoke is seen by the next request of every process). It
 * reads and writes what {@link KeyStore} and {@link QuotaStore} keep, so the two see every change.
 */
export interface AdmissionStore {
  /**
   * Admits (or not) one lookup of `kind` for the key behind `secret`.
   * @param defaultLimit the daily limit of a key without its own.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store is down or past its deadline.
   */
  admit(secret: string, kind: LookupKind, defaultLimit: number): Promise<Admission>;
}
