/** Options of one {@link CounterStore.increment}. */
export interface IncrementOptions {
  /** Refuse to go above this value: the counter is left as it is and `null` is returned. */
  ceiling?: number;
  /**
   * When the counter is forgotten (ms since the epoch): from then on it reads as 0. Each increment sets
   * the expiry anew; without one, the counter never expires.
   */
  expiresAt?: number;
}

/**
 * Named integer counters and leases, changed atomically by the backend itself, so that several processes
 * sharing a store never lose an update. Keyv has no such operation; each backend implements it natively.
 */
export interface CounterStore {
  /**
   * Adds one and returns the new value, or `null` when `ceiling` was already reached.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  increment(name: string, options?: IncrementOptions): Promise<number | null>;
  /**
   * Takes one away (never below zero).
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  decrement(name: string): Promise<void>;
  /**
   * The current value; 0 for a counter never incremented.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  get(name: string): Promise<number>;
  /**
   * The current values of several counters, in the order of `names`, read in one call of the backend.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  getMany(names: string[]): Promise<number[]>;
  /**
   * Takes the lease `name` for `owner` for `ttlMs`, unless another owner holds it and it has not expired;
   * `owner` holding it already renews it for `ttlMs` from now.
   * @returns true when `owner` now holds it.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /**
   * Gives the lease back, if `owner` still holds it: a holder whose lease expired and went to another
   * owner frees nothing.
   * @throws DossierError `ERR_STORE_UNAVAILABLE` when the backend is down.
   */
  releaseLease(name: string, owner: string): Promise<void>;
  /** Releases connections the store opened itself. */
  close(): Promise<void>;
}
