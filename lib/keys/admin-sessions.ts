import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { KvStore } from '../stores/kv-store.js';
import { withLease } from '../stores/lease.js';

/** Wrong sign-ins from one address, within {@link SIGN_IN_WINDOW_MS}, that lock that address. */
export const SIGN_IN_FAILURES = 5;

/** The window of {@link SIGN_IN_FAILURES}, and how long the lock lasts: one minute. */
export const SIGN_IN_WINDOW_MS = 60_000;

/** An address's wrong sign-ins of the last minute, and until when it is locked (ms since the epoch). */
interface FailureRecord {
  times: number[];
  lockedUntil: number;
}

/**
 * What every process serving the administration panel on one store must agree on (CONTRACT.md §5): the
 * sessions signed out before their expiry, and the wrong sign-ins of each address, five of which within
 * a minute lock that address for a minute. Both live in the store, so that signing out on one process
 * ends the session on all of them, and an address gets five tries a minute in all, not five per
 * process. An address's record is changed under a lease ({@link withLease}), so that wrong tries made
 * at once on several processes are all counted. Time comes from the Clock port.
 */
export class AdminSessions {
  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Whether the session `id` was signed out.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async isSignedOut(id: string): Promise<boolean> {
    return (await this.kv.get(signedOutRecord(id))) !== undefined;
  }

  /**
   * Ends the session `id`, remembered until `expiresAt` (ms since the epoch), when it would end anyway.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async signOut(id: string, expiresAt: number): Promise<void> {
    const ttl = expiresAt - this.clock.now();
    if (ttl > 0) await this.kv.set(signedOutRecord(id), true, ttl);
  }

  /**
   * Until when `address` may not sign in (ms since the epoch), `0` when it may.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async lockedUntil(address: string): Promise<number> {
    const record = await this.kv.get<FailureRecord>(failureRecord(address));
    return record !== undefined && record.lockedUntil > this.clock.now() ? record.lockedUntil : 0;
  }

  /**
   * Counts a wrong sign-in from `address`; true when it is the one that locks the address.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async failed(address: string): Promise<boolean> {
    return this.changed(address, (record, now) => {
      const times = (record?.times ?? []).filter((time) => time > now - SIGN_IN_WINDOW_MS);
      times.push(now);
      return times.length >= SIGN_IN_FAILURES
        ? { record: { times: [], lockedUntil: now + SIGN_IN_WINDOW_MS }, locked: true }
        : { record: { times, lockedUntil: 0 }, locked: false };
    });
  }

  /**
   * Forgets the wrong sign-ins of `address` (a right one was made).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async succeeded(address: string): Promise<void> {
    await this.kv.delete(failureRecord(address));
  }

  /** Changes the record of `address` under its lease; it is kept for a window after its last change. */
  private changed(
    address: string,
    change: (record: FailureRecord | undefined, now: number) => { record: FailureRecord; locked: boolean },
  ): Promise<boolean> {
    const name = failureRecord(address);
    return withLease(this.counters, name, async () => {
      const next = change(await this.kv.get<FailureRecord>(name), this.clock.now());
      await this.kv.set(name, next.record, SIGN_IN_WINDOW_MS);
      return next.locked;
    });
  }
}

function signedOutRecord(id: string): string {
  return `admin:signed-out:${id}`;
}

function failureRecord(address: string): string {
  return `admin:sign-in:${address}`;
}
