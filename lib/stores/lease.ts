import { setTimeout as sleep } from 'node:timers/promises';
import { DossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';

/** How long a lease holds at most: a holder that dies lets go after this; a waiter gives up after it. */
const LEASE_MS = 10_000;

/**
 * Runs `operation` while holding the lease `name`, which every process sharing the counters respects:
 * an increment with a ceiling of 1 takes it, a decrement gives it back, and it expires by itself if its
 * holder dies. Keyv has no compare-and-set, so this is what keeps read-change-write steps whole.
 * @throws DossierError `ERR_STORE_UNAVAILABLE` when the lease stays taken for the whole lease time.
 */
export async function withLease<T>(counters: CounterStore, clock: Clock, name: string, operation: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + LEASE_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    if ((await counters.increment(name, { ceiling: 1, expiresAt: clock.now() + LEASE_MS })) !== null) break;
    if (Date.now() + wait > giveUpAt)
      throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store kept a lease busy for too long.');
    await sleep(wait);
  }
  try {
    return await operation();
  } finally {
    // A release that fails leaves the lease to expire.
    await counters.decrement(name).catch(() => {});
  }
}
