import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DossierError } from '../../errors.js';
import type { CounterStore } from '../../ports/counter-store.js';

/** How long a lease holds at most: a holder that dies lets go after this; a waiter gives up after it. */
const LEASE_MS = 10_000;

/**
 * Runs `operation` while holding the lease `name`, which every process sharing the store respects. The
 * lease carries a random owner, so that a holder slower than the lease, whose lease expired and went to
 * another, frees nothing when it finishes; a holder that dies lets go when the lease expires. Keyv has
 * no compare-and-set, so this is what keeps read-change-write steps whole.
 * @throws DossierError `ERR_STORE_UNAVAILABLE` when the lease stays taken for the whole lease time.
 */
export async function withLease<T>(counters: CounterStore, name: string, operation: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  // The lease's expiry is the store's (its clock, or the server's); the waiter reads no clock at all: it
  // gives up once its own pauses add up to the lease time, which bounds the wait in any time source.
  let waited = 0;
  for (let wait = 2; !(await counters.acquireLease(name, owner, LEASE_MS)); wait = Math.min(wait * 2, 50)) {
    if (waited + wait > LEASE_MS) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store kept a lease busy for too long.');
    await sleep(wait);
    waited += wait;
  }
  try {
    return await operation();
  } finally {
    // A release that fails leaves the lease to expire.
    await counters.releaseLease(name, owner).catch(() => {});
  }
}
