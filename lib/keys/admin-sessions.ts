import { isDossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { SessionStore, SignInVerdict } from '../ports/session-store.js';

export type { SignInVerdict } from '../ports/session-store.js';

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
    private readonly sessions: SessionStore,
    private readonly clock: Clock,
    private readonly namespace = 'admin',
  ) {}

  /**
   * Whether the session `id` was signed out.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async isSignedOut(id: string): Promise<boolean> {
    return (await this.sessions.get(signedOutRecord(id), this.clock.now())) !== undefined;
  }

  /**
   * Ends the session `id`, remembered until `expiresAt` (ms since the epoch), when it would end anyway.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async signOut(id: string, expiresAt: number): Promise<void> {
    if (expiresAt > this.clock.now()) await this.sessions.put(signedOutRecord(id), { keyId: null, expiresAt });
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
    return this.sessions.lockedUntil(failureRecord(this.namespace, address), this.clock.now());
  }

  /**
   * One try of the admin token from `address`: a sign-in, or a bearer token sent to the admin API or to
   * `/metrics`. A locked address is refused, and `isRight` is not asked, so that a refusal tells nothing
   * of the token. Otherwise the try is first counted as a wrong one (the fifth
   * within a minute locking the address for a minute), and only then is `isRight` asked: a right try
   * takes the count back and forgets the address's wrong tries. So a store that fails answers before
   * anything about the token is learned, and no wrong try goes uncounted. Tries made at once, on any
   * process, are judged one after the other ({@link SessionStore.attempt}).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async attempt(address: string, isRight: () => boolean): Promise<SignInVerdict> {
    return this.sessions.attempt(failureRecord(this.namespace, address), this.clock.now(), isRight);
  }
}

function signedOutRecord(id: string): string {
  return `admin:signed-out:${id}`;
}

function failureRecord(namespace: string, address: string): string {
  return `${namespace}:sign-in:${address}`;
}
