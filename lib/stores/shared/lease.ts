import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DossierError } from '../../errors.js';
import type { CounterStore } from '../../ports/counter-store.js';

/**
 * How long a lease outlives its holder by default: the holder renews it every third of it while it
 * lives, so a process that dies lets go within a second (docs/contract.md §7: a waiter sees it free at
 * most this and one pause of {@link withLease}'s, 50 ms, later), however long a living holder takes.
 */
export const LEASE_MS = 900;

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
  return holding(counters, name, owner, ttlMs, operation);
}

/** What {@link withFreeLease} answers when another holds the lease. */
export const LEASE_BUSY = Symbol('the lease is held');

/**
 * Runs `operation` under the lease `name`, as {@link withLease} does, if no one holds it now; answers
 * {@link LEASE_BUSY} at once otherwise.
 * @throws DossierError `ERR_STORE_UNAVAILABLE` when the store does not answer.
 */
export async function withFreeLease<T>(
  counters: CounterStore,
  name: string,
  operation: () => Promise<T>,
  ttlMs = LEASE_MS,
): Promise<T | typeof LEASE_BUSY> {
  const owner = randomUUID();
  if (!(await counters.acquireLease(name, owner, ttlMs))) return LEASE_BUSY;
  return holding(counters, name, owner, ttlMs, operation);
}

/** Runs `operation` with the lease `name` taken by `owner`: renewed meanwhile, given back after. */
async function holding<T>(
  counters: CounterStore,
  name: string,
  owner: string,
  ttlMs: number,
  operation: () => Promise<T>,
): Promise<T> {
  // Renewed a third of the lease after the last renewal ended, not on a fixed beat: a store slow to
  // answer gets one renewal a holder at a time, never a pile of them that slows it further (a thousand
  // checks under way on a loaded MySQL did that). A renewal that fails is tried again at the next turn;
  // `unref`: a holder never keeps its process alive.
  let renewal: NodeJS.Timeout | undefined;
  /** The renewal under way: the release waits for it, so that it cannot take the lease again after. */
  let renewing: Promise<unknown> | undefined;
  let held = true;
  const renewLater = (): void => {
    renewal = setTimeout(() => {
      renewing = counters
        .acquireLease(name, owner, ttlMs)
        .catch(() => {})
        .finally(() => {
          if (held) renewLater();
        });
    }, ttlMs / 3);
    renewal.unref();
  };
  renewLater();
  try {
    return await operation();
  } finally {
    held = false;
    clearTimeout(renewal);
    await renewing;
    // A release that fails leaves the lease to expire.
    await counters.releaseLease(name, owner).catch(() => {});
  }
}

/**
 * Read-change-write steps on one record at a time: those of this process under one lease name queue after
 * one another (so that they do not contend for the lease), and each runs under the lease, which every
 * process sharing the store respects, so that no write loses another's fields or revives a deleted record.
 */
export class LeaseQueue {
  /** The work queued in this process, by lease name. */
  private readonly queued = new Map<string, Promise<unknown>>();

  constructor(
    private readonly counters: CounterStore,
    private readonly times: LeaseTimes = {},
  ) {}

  /** Runs `operation` under lease `name`, after the others of this process under it. */
  run<T>(name: string, operation: () => Promise<T>): Promise<T> {
    const leased = () => withLease(this.counters, name, operation, this.times);
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
