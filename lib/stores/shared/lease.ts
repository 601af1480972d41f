import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DossierError } from '../../errors.js';
import type { CounterStore } from '../../ports/counter-store.js';

/**
 * How long a lease outlives its holder by default: the holder renews it every third of it while it
 * lives, so a process that dies lets go about a second later (docs/contract.md §7), however long a living
 * holder takes.
 */
export const LEASE_MS = 1200;

/** How long a waiter waits by default for a lease another holds: a living holder may hold it this long. */
const WAIT_MS = 10_000;

/** How long {@link withLease} holds the lease, and how long it waits for it. */
export interface LeaseTimes {
  /** How long the lease outlives its holder (renewed meanwhile). @default {@link LEASE_MS} */
  ttlMs?: number;
  /** How long to wait for a lease another holds before giving up. @default 10000 */
  waitMs?: number;
}

/**
 * Runs `operation` while holding the lease `name`, which every process sharing the store respects. The
 * lease carries a random owner and is renewed every third of `ttlMs` while `operation` runs, so that a
 * slow holder keeps it and a holder that dies (its renewals stop with it) lets go within `ttlMs`; a
 * holder whose renewals failed and whose lease went to another frees nothing when it finishes. Keyv has
 * no compare-and-set, so this is what keeps read-change-write steps whole.
 * @throws DossierError `ERR_STORE_UNAVAILABLE` when the lease stays taken for the whole wait.
 */
export async function withLease<T>(
  counters: CounterStore,
  name: string,
  operation: () => Promise<T>,
  { ttlMs = LEASE_MS, waitMs = WAIT_MS }: LeaseTimes = {},
): Promise<T> {
  const owner = randomUUID();
  // The lease's expiry is the store's (its clock, or the server's); the waiter reads no clock at all: it
  // gives up once its own pauses add up to the wait, which bounds the wait in any time source.
  let waited = 0;
  for (let wait = 2; !(await counters.acquireLease(name, owner, ttlMs)); wait = Math.min(wait * 2, 50)) {
    if (waited + wait > waitMs) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store kept a lease busy for too long.');
    await sleep(wait);
    waited += wait;
  }
  // A renewal that fails (the store slow or down) is tried again at the next turn; `unref`: a holder
  // never keeps its process alive.
  const renewal = setInterval(() => void counters.acquireLease(name, owner, ttlMs).catch(() => {}), ttlMs / 3);
  renewal.unref();
  try {
    return await operation();
  } finally {
    clearInterval(renewal);
    // A release that fails leaves the lease to expire.
    await counters.releaseLease(name, owner).catch(() => {});
  }
}

/**
 * Read-change-write steps on one document at a time: those of this process queue after one another (so
 * that they do not contend for the lease), and each runs under the document's lease, which every process
 * sharing the store respects, so that no write loses another's fields or revives a deleted document.
 */
export class DocumentLeases {
  /** Writes to one document queued in this process. */
  private readonly writing = new Map<number, Promise<unknown>>();

  constructor(private readonly counters: CounterStore) {}

  /** Runs `operation` on document `id` after the others of this process, under the document's lease. */
  run<T>(id: number, operation: () => Promise<T>): Promise<T> {
    const leased = () => withLease(this.counters, `documents:lease:${id}`, operation);
    const previous = this.writing.get(id) ?? Promise.resolve();
    const next = previous.then(leased, leased);
    const settled = next.catch(() => {});
    this.writing.set(id, settled);
    void settled.then(() => {
      if (this.writing.get(id) === settled) this.writing.delete(id);
    });
    return next;
  }
}
