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

/** Counts lookups per key and UTC day, exactly, also across processes sharing a store. */
export interface QuotaStore {
  /**
   * Counts one request if the key has quota left today.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  consume(keyId: string, limit: number): Promise<QuotaState>;
  /**
   * Reads the state without counting.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  peek(keyId: string, limit: number): Promise<QuotaState>;
  /**
   * Gives back a request that {@link consume} counted but that turned out not to count (a target
   * refused after resolution); `consumed` is what `consume` returned, so the right day is refunded.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  refund(keyId: string, consumed: QuotaState): Promise<void>;
}
