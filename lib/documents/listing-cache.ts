import { AppendOnlyIndex } from '../stores/shared/append-only-index.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { StoredDocument } from '../ports/document-store.js';
import type { KvStore } from '../ports/kv-store.js';
import { documentIndexName, documentKey, isStoredDocument } from '../records/stored-document.js';
import { OwnerListing } from './owner-listing.js';

/** Limits of a {@link ListingCache}. */
export interface ListingCacheOptions {
  /** Owners kept at most. @default 500 */
  maxOwners?: number;
  /** Approximate characters kept at most, over all owners. @default 64 Mi */
  maxWeight?: number;
}

/** A change this process made to a document, as the listing applies it. */
export type DocumentChange = { put: StoredDocument } | { remove: number };

interface OwnerState {
  /** The owner's log: each slot holds the id of a document that was created, changed or deleted. */
  log: AppendOnlyIndex;
  listing?: OwnerListing;
  /** The slots read up to, from the first. */
  readTo: number;
  /** Slots up to `readTo` that were taken but not yet written when read, by when this process saw them first. */
  pending: Map<number, number>;
  /** Slots past `readTo` whose change this process made and applied already. */
  applied: Set<number>;
  /** The refresh under way; the next one starts after it. */
  refreshing: Promise<unknown>;
}

/** Documents read per store call. */
const BATCH = 500;

/**
 * How long a slot taken and not written is read again: a writer fills its slot within a few store
 * calls, or fills it with an id no document has when it fails; one that died in between leaves it
 * empty for good.
 */
const PENDING_MS = 10 * 60_000;

/**
 * The documents of each owner, kept in this process and brought up to date from the owner's log. Every
 * write, by any process, first writes the document and then appends its id to the log; a listing reads
 * the log's length (one store call) and, when it moved, only the slots written since its last read and
 * the documents they name: never all of the owner's documents again. Least recently used owners are
 * forgotten beyond the limits (and read whole when they are listed again).
 */
export class ListingCache {
  private readonly owners = new Map<string, OwnerState>();
  private readonly maxOwners: number;
  private readonly maxWeight: number;

  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    private readonly clock: Clock,
    options: ListingCacheOptions = {},
  ) {
    this.maxOwners = options.maxOwners ?? 500;
    this.maxWeight = options.maxWeight ?? 64 * 1024 * 1024;
  }

  /** The owner's log, to append to after a write. */
  log(owner: string): AppendOnlyIndex {
    return this.state(owner).log;
  }

  /**
   * The owner's documents as of now.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async listing(owner: string): Promise<OwnerListing> {
    const state = this.state(owner);
    const length = await state.log.length();
    const current = (): OwnerListing | undefined =>
      state.listing !== undefined && state.readTo >= length && state.pending.size === 0 ? state.listing : undefined;
    const ready = current();
    if (ready) return ready;
    // One refresh at a time: one that ends meanwhile may have read what this one would.
    const refreshed = state.refreshing.then(() => current() ?? this.refresh(owner, state, length));
    state.refreshing = refreshed.catch(() => {});
    const listing = await refreshed;
    this.evict();
    return listing;
  }

  /**
   * Applies a change this process made and logged in `slot`, so that its next listing need not read it
   * back from the store.
   */
  written(owner: string, slot: number, change: DocumentChange): void {
    const state = this.owners.get(owner);
    if (state?.listing === undefined) return;
    if ('put' in change) state.listing.put(change.put);
    else state.listing.remove(change.remove);
    if (slot > state.readTo) state.applied.add(slot);
    this.evict();
  }

  private state(owner: string): OwnerState {
    let state = this.owners.get(owner);
    if (state) {
      // Refresh the owner's place in the least-recently-used order.
      this.owners.delete(owner);
    } else {
      state = {
        log: new AppendOnlyIndex(this.kv, this.counters, documentIndexName(owner)),
        readTo: 0,
        pending: new Map(),
        applied: new Set(),
        refreshing: Promise.resolve(),
      };
    }
    this.owners.set(owner, state);
    return state;
  }

  /** Reads the slots up to `length` not read yet (all of them for a listing not held) and the documents they name. */
  private async refresh(owner: string, state: OwnerState, length: number): Promise<OwnerListing> {
    const whole = state.listing === undefined;
    const slots = whole ? [] : [...state.pending.keys()];
    for (let slot = whole ? 1 : state.readTo + 1; slot <= length; slot += 1)
      if (whole || !state.applied.has(slot)) slots.push(slot);
    const values = await state.log.at(slots);
    const now = this.clock.now();
    const pending = new Map<number, number>();
    const ids = new Set<number>();
    slots.forEach((slot, n) => {
      const value = values[n];
      if (value !== undefined) {
        // '0' (a create that failed) names no document.
        if (value !== '0') ids.add(Number(value));
        return;
      }
      const since = state.pending.get(slot) ?? now;
      if (now - since < PENDING_MS) pending.set(slot, since);
    });
    const documents = await this.documents(owner, [...ids]);
    const listing = state.listing ?? new OwnerListing([]);
    for (const id of ids) {
      const document = documents.get(id);
      if (document) listing.put(document);
      else listing.remove(id);
    }
    state.listing = listing;
    state.readTo = Math.max(state.readTo, length);
    state.pending = pending;
    for (const slot of state.applied) if (slot <= state.readTo) state.applied.delete(slot);
    return listing;
  }

  /** The owner's documents among `ids`, by id. */
  private async documents(owner: string, ids: number[]): Promise<Map<number, StoredDocument>> {
    const found = new Map<number, StoredDocument>();
    for (let start = 0; start < ids.length; start += BATCH) {
      const values = await this.kv.getMany<unknown>(ids.slice(start, start + BATCH).map(documentKey));
      for (const value of values) if (isStoredDocument(value, owner)) found.set(value.id, value);
    }
    return found;
  }

  private evict(): void {
    let weight = 0;
    for (const state of this.owners.values()) weight += state.listing?.weight ?? 0;
    for (const [owner, state] of this.owners) {
      if (this.owners.size <= this.maxOwners && weight <= this.maxWeight) break;
      // The most recently used owner stays even when it alone is over the budget.
      if (this.owners.size === 1) break;
      weight -= state.listing?.weight ?? 0;
      this.owners.delete(owner);
    }
  }
}
