/** What a sign-in attempt came to; `lockedUntil` in ms since the epoch. */
export type SignInVerdict =
  { outcome: 'right' } | { outcome: 'wrong'; nowLocked: boolean } | { outcome: 'locked'; lockedUntil: number };

/** A session the store keeps until `expiresAt` (ms since the epoch): a workspace session's key, or a signed-out mark. */
export interface SessionRecord {
  /** The key a workspace session opens; `null` for a mark. */
  keyId: string | null;
  expiresAt: number;
}

/**
 * The sessions of the panel and of the documents workspace, and the wrong tries of each address, as
 * records of the store (docs/contract.md §5, §14): every process serving one store agrees on them. Each
 * change is one atomic step of the store (a transaction, a script): no lock outlives a process that dies
 * in the middle of one.
 */
export interface SessionStore {
  /** Keeps `name` until `expiresAt`. */
  put(name: string, record: SessionRecord): Promise<void>;
  /** The record `name`, when it has not expired at `now`. */
  get(name: string, now: number): Promise<SessionRecord | undefined>;
  remove(name: string): Promise<void>;
  /**
   * One try of a secret from the address `name`: refused while the address is locked (and `isRight` not
   * asked); else counted as a wrong one, the fifth within a minute locking the address for a minute, and
   * only then is `isRight` asked, a right try taking the count back and forgetting the address's tries.
   * Tries made at once, on any process, are judged one after the other.
   */
  attempt(name: string, now: number, isRight: () => boolean): Promise<SignInVerdict>;
  /** Until when the address `name` is locked at `now`, or `null`. */
  lockedUntil(name: string, now: number): Promise<number | null>;
}
