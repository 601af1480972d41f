import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DossierError } from '../../errors.js';
import type { CounterStore } from '../../ports/counter-store.js';

/** How long a lease holds at most by default: a holder that dies lets go after this; a waiter gives up after it. */
const LEASE_MS = 10_000;

/** How long {@link withLease} holds the lease, and how long it waits for it. */
export interface LeaseTimes {
  /** How long the lease holds at most (a holder that dies lets go after this). @default 10000 */
  ttlMs?: number;
  /** How long to wait for a lease another holds before giving up. @default the lease's `ttlMs` */
  waitMs?: number;
}

/**
 * Runs `operation` while holding the lease `name`, which every process sharing the store respects. The
 * lease carries a random owner, so that a holder slower than the lease, whose lease expired and went to
 * another, frees nothing when it finishes; a holder that dies lets go when the lease expires. Keyv has
 * no compare-and-set, so this is what keeps read-change-write steps whole.
 * @throws DossierError `ERR_STORE_UNAVAILABLE` when the lease stays taken for the whole wait.
 */
export async function withLease<T>(
  counters: CounterStore,
  name: string,
  operation: () => Promise<T>,
  { ttlMs = LEASE_MS, waitMs = ttlMs }: LeaseTimes = {},
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
  try {
    return await operation();
  } finally {
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
