import { isDossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { KvStore } from '../ports/kv-store.js';
import { withLease } from '../stores/shared/lease.js';

/** Wrong sign-ins from one address, within {@link SIGN_IN_WINDOW_MS}, that lock that address. */
const SIGN_IN_FAILURES = 5;

/** The window of {@link SIGN_IN_FAILURES}, and how long the lock lasts: one minute. */
const SIGN_IN_WINDOW_MS = 60_000;

/** What a sign-in attempt came to ({@link AdminSessions.attempt}); `lockedUntil` in ms since the epoch. */
export type SignInVerdict =
  { outcome: 'right' } | { outcome: 'wrong'; nowLocked: boolean } | { outcome: 'locked'; lockedUntil: number };

/** An address's wrong sign-ins of the last minute, and until when it is locked (ms since the epoch). */
interface FailureRecord {
  times: number[];
  lockedUntil: number;
}

/**
 * What every process serving the administration panel on one store must agree on (docs/contract.md §5): the
 * sessions signed out before their expiry, and the wrong admin tokens of each address, five of which
 * within a minute lock that address for a minute. A wrong token counts wherever it was tried: at
 * sign-in, as the bearer of the admin API, or of `/metrics`; and a locked address is refused by all
 * three. Both live in the store, so that signing out on one process ends the session on all of them,
 * and an address gets five tries a minute in all, not five per process. Time comes from the Clock port.
 */
export class AdminSessions {
  /**
   * @param namespace whose wrong tries these are: another sign-in (the documents workspace's, §14) is
   *   limited the same way without locking the panel's, and the other way round. @default 'admin'
   */
  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    private readonly clock: Clock,
    private readonly namespace = 'admin',
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
   * A bearer token sent to the admin API or to `/metrics` from `address`: judged and counted as a
   * sign-in is ({@link attempt}). While the store is down nothing can be counted or read, and the token
   * is judged alone, so that `/metrics` still shows the outage (the admin API's own calls then answer
   * 503 anyway); a sign-in, which only opens a session, is refused then instead.
   */
  async bearer(address: string, isRight: () => boolean): Promise<SignInVerdict> {
    try {
      return await this.attempt(address, isRight);
    } catch (error) {
      if (!isDossierError(error, 'ERR_STORE_UNAVAILABLE')) throw error;
      return isRight() ? { outcome: 'right' } : { outcome: 'wrong', nowLocked: false };
    }
  }

  /**
   * Until when `address` is locked out (ms since the epoch), or `null` when it is not.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async lockedUntil(address: string): Promise<number | null> {
    const record = await this.kv.get<FailureRecord>(failureRecord(this.namespace, address));
    return record !== undefined && record.lockedUntil > this.clock.now() ? record.lockedUntil : null;
  }

  /**
   * One try of the admin token from `address`: a sign-in, or a bearer token sent to the admin API or to
   * `/metrics`. A locked address is refused, and `isRight` is not asked, so that a refusal tells nothing
   * of the token. Otherwise the try is first counted as a wrong one (the fifth
   * within a minute locking the address for a minute), and only then is `isRight` asked: a right try
   * takes the count back and forgets the address's wrong tries. So a store that fails answers before
   * anything about the token is learned, and no wrong try goes uncounted. The decision is made under the
   * address's lease, so that tries made at once, on any process, are judged one after the other.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async attempt(address: string, isRight: () => boolean): Promise<SignInVerdict> {
    const name = failureRecord(this.namespace, address);
    // A locked address is refused on a read alone: tries made while it is locked write nothing.
    const seen = await this.kv.get<FailureRecord>(name);
    if (seen !== undefined && seen.lockedUntil > this.clock.now()) return { outcome: 'locked', lockedUntil: seen.lockedUntil };
    return withLease(this.counters, name, async (): Promise<SignInVerdict> => {
      const record = await this.kv.get<FailureRecord>(name);
      const now = this.clock.now();
      if (record !== undefined && record.lockedUntil > now) return { outcome: 'locked', lockedUntil: record.lockedUntil };
      const times = [...(record?.times ?? []).filter((time) => time > now - SIGN_IN_WINDOW_MS), now];
      const nowLocked = times.length >= SIGN_IN_FAILURES;
      const counted: FailureRecord = nowLocked ? { times: [], lockedUntil: now + SIGN_IN_WINDOW_MS } : { times, lockedUntil: 0 };
      // Kept for a window after its last change: by then no try of it counts any more.
      await this.kv.set(name, counted, SIGN_IN_WINDOW_MS);
      if (!isRight()) return { outcome: 'wrong', nowLocked };
      await this.kv.delete(name);
      return { outcome: 'right' };
    });
  }
}

function signedOutRecord(id: string): string {
  return `admin:signed-out:${id}`;
}

function failureRecord(namespace: string, address: string): string {
  return `${namespace}:sign-in:${address}`;
}
