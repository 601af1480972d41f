import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DossierError } from '../../errors.js';

/** How long a living lease outlasts its holder's last renewal: what a dead holder costs the others. */
const LIVING_MS = 1_000;

/** How long a waiter waits for a lease that its (living) holder keeps renewing. */
const WAIT_MS = 10_000;

/**
 * Leases that a store keeps with an expiry of its own clock, and that their holder may extend: what
 * {@link withLivingLease} holds for as long as the work under it runs.
 */
export interface RenewableLeases {
  /** Takes lease `name` for `owner` for `ttlMs`, unless another holds it. @returns true when `owner` holds it now. */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives `owner`'s lease `ttlMs` more from now. @returns false when `owner` no longer holds it (it expired). */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Frees the lease if `owner` still holds it. */
  release(name: string, owner: string): Promise<void>;
}

/** How long a living lease lasts past its holder, and how long a waiter waits. */
export interface LivingLeaseTimes {
  /** How long the lease holds after its holder's last renewal; renewed every third of it. @default 1000 */
  ttlMs?: number;
  /** How long to wait for a lease that another holds (and renews) before giving up. @default 10000 */
  waitMs?: number;
}

/**
 * Runs `operation` while holding lease `name`, renewed every third of its time to live while the
 * operation runs: a holder however slow keeps it, and one that dies (a process killed) lets go about
 * `ttlMs` after, so that the living wait for the dead about a second, not the longest a change may take.
 * A holder that could not renew in time (its process stalled longer than the lease, or the store did not
 * answer) goes on with its work; the next renewal says it lost the lease, which nothing can undo.
 * @throws DossierError `ERR_STORE_UNAVAILABLE` when the lease stays taken for the whole wait.
 */
export async function withLivingLease<T>(
  leases: RenewableLeases,
  name: string,
  operation: () => Promise<T>,
  { ttlMs = LIVING_MS, waitMs = WAIT_MS }: LivingLeaseTimes = {},
): Promise<T> {
  const owner = randomUUID();
  // The waiter reads no clock: it gives up once its own pauses add up to the wait (see withLease).
  let waited = 0;
  for (let wait = 2; !(await leases.acquire(name, owner, ttlMs)); wait = Math.min(wait * 2, 50)) {
    if (waited + wait > waitMs) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store kept a lease busy for too long.');
    await sleep(wait);
    waited += wait;
  }
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    // One renewal at a time; one that fails leaves the lease to its expiry.
    renewing = renewing.then(() => leases.renew(name, owner, ttlMs)).catch(() => {});
  }, ttlMs / 3);
  timer.unref();
  try {
    return await operation();
  } finally {
    clearInterval(timer);
    await renewing;
    // A release that fails leaves the lease to expire.
    await leases.release(name, owner).catch(() => {});
  }
}

/**
 * Read-change-write steps on one record at a time, as `DocumentLeases` runs them (those of this process
 * queued after one another, each under the record's lease, which every process sharing the store
 * respects), under living leases.
 */
export class LivingLeaseQueue {
  /** Work on one record queued in this process. */
  private readonly queued = new Map<string, Promise<unknown>>();

  constructor(
    private readonly leases: RenewableLeases,
    private readonly times: LivingLeaseTimes = {},
  ) {}

  /** Runs `operation` under lease `name`, after the others of this process under it. */
  run<T>(name: string, operation: () => Promise<T>): Promise<T> {
    const leased = () => withLivingLease(this.leases, name, operation, this.times);
    const previous = this.queued.get(name) ?? Promise.resolve();
    const next = previous.then(leased, leased);
    const settled = next.catch(() => {});
    this.queued.set(name, settled);
    void settled.then(() => {
      if (this.queued.get(name) === settled) this.queued.delete(name);
    });
    return next;
  }
}
