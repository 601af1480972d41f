import Keyv from 'keyv';
import { DossierError } from '../../errors.js';
import type { KvStore } from '../../ports/kv-store.js';
import { StoreGuard, storeClosed } from './guard.js';

/**
 * The {@link KvStore} of a Keyv instance that it owns: every backend failure becomes a thrown
 * `ERR_STORE_UNAVAILABLE`, never a silent `undefined` (Keyv swallows errors unless told otherwise).
 */
export class KeyvKvStore implements KvStore {
  private isClosed = false;

  /**
   * @param sharesObjects true when the store keeps values as objects in this process (memory://):
   *   then a value is copied and frozen once when written, and reads return it as is, with no
   *   serialization on the hot path. Values read from any store must be treated as read-only.
   * @param guard holds every call to the backend's deadline (none by default).
   */
  constructor(
    private readonly keyv: Keyv,
    private readonly sharesObjects = false,
    private readonly guard: StoreGuard = new StoreGuard(),
  ) {
    keyv.throwOnErrors = true;
    // Keyv also emits every failure; with no listener an EventEmitter would crash the process.
    keyv.on('error', () => {});
  }

  /** The value under `key`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async get<T>(key: string): Promise<T | undefined> {
    return this.guarded(() => this.keyv.get<T>(key));
  }

  /**
   * The value under `key` with its expiry (ms since the epoch; `undefined` for none), or `undefined`.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async getEntry<T>(key: string): Promise<{ value: T; expiresAt: number | undefined } | undefined> {
    const entry = await this.guarded(() => this.keyv.get<T>(key, { raw: true }));
    return entry?.value === undefined ? undefined : { value: entry.value, expiresAt: entry.expires };
  }

  /** The values under `keys`, in order, `undefined` where absent. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return [];
    return this.guarded(() => this.keyv.get<T>(keys) as Promise<(T | undefined)[]>);
  }

  /** Stores `value`, forgotten after `ttlMs` when given. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    const stored = this.sharesObjects ? deepFreeze(structuredClone(value)) : value;
    const ok = await this.guarded(() => this.keyv.set(key, stored, ttlMs));
    if (!ok) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store refused a write.');
  }

  /** Removes `key`; true when it was there. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async delete(key: string): Promise<boolean> {
    return this.guarded(() => this.keyv.delete(key));
  }

  /** True from the moment `close()` is called. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Closes the backend connection; every later call fails with `ERR_STORE_UNAVAILABLE`. */
  async close(): Promise<void> {
    this.isClosed = true;
    // Under the deadline too: a polite disconnect waits for an answer a frozen server never sends.
    await this.guard.run(() => this.keyv.disconnect()).catch(() => {});
  }

  /** A backend call, unless the store is closed (a Redis client would reconnect, and nothing would close it). */
  private guarded<T>(call: () => Promise<T>): Promise<T> {
    if (this.isClosed) return storeClosed();
    return this.guard.run(call);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
