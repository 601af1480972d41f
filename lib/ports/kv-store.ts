/**
 * Values by key on one backend. Every backend failure is a thrown `ERR_STORE_UNAVAILABLE`, never a
 * silent `undefined`. Values read may be shared with the store (memory://): treat them as read-only.
 */
export interface KvStore {
  /** The value under `key`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  get<T>(key: string): Promise<T | undefined>;
  /**
   * The value under `key` with its expiry (ms since the epoch; `undefined` for none), or `undefined`.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  getEntry<T>(key: string): Promise<{ value: T; expiresAt: number | undefined } | undefined>;
  /** The values under `keys`, in order, `undefined` where absent. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  getMany<T>(keys: string[]): Promise<(T | undefined)[]>;
  /** Stores `value`, forgotten after `ttlMs` when given. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /** Removes `key`; true when it was there. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  delete(key: string): Promise<boolean>;
  /** True from the moment `close()` is called. */
  readonly closed: boolean;
  /** Closes the backend connection; every later call fails with `ERR_STORE_UNAVAILABLE`. */
  close(): Promise<void>;
}
