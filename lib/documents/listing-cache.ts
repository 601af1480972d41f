import { AppendOnlyIndex } from '../stores/shared/append-only-index.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { KvStore } from '../ports/kv-store.js';
import { OwnerListing } from './owner-listing.js';
import { documentKey, isStoredDocumentOf, type StoredDocument } from './stored-document.js';

/** Limits of a {@link ListingCache}. */
export interface ListingCacheOptions {
  /** Owners kept at most. @default 500 */
  maxOwners?: number;
  /** Approximate characters kept at most, over all owners. @default 64 Mi */
  maxWeight?: number;
}

interface OwnerState {
  /** The owner's list of ids; kept with the listing so that its known slots are not read twice. */
  index: AppendOnlyIndex;
  listing?: OwnerListing;
  loading?: { version: number; promise: Promise<OwnerListing> };
}

const BATCH = 500;

/**
 * The documents of each owner, as they were at the owner's version counter (incremented after every
 * write, by any process). A listing reads the counter once; when the cached copy has that version it
 * is used as is, else the owner's documents are read again (only that owner's). Least recently used
 * owners are forgotten beyond the limits.
 */
export class ListingCache {
  private readonly owners = new Map<string, OwnerState>();
  private readonly maxOwners: number;
  private readonly maxWeight: number;

  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    options: ListingCacheOptions = {},
  ) {
    this.maxOwners = options.maxOwners ?? 500;
    this.maxWeight = options.maxWeight ?? 64 * 1024 * 1024;
  }

  /** The owner's index of ids, for appending. */
  index(owner: string): AppendOnlyIndex {
    return this.state(owner).index;
  }

  /**
   * The owner's documents as of now.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async listing(owner: string): Promise<OwnerListing> {
    const version = await this.counters.get(versionCounter(owner));
    const state = this.state(owner);
    if (state.listing?.version === version) return state.listing;
    if (state.loading?.version === version) return state.loading.promise;
    const promise = this.load(owner, state, version);
    state.loading = { version, promise };
    try {
      return await promise;
    } finally {
      if (state.loading?.promise === promise) state.loading = undefined;
    }
  }

  /**
   * Records a write this process made: bumps the owner's version and, when no other write came in
   * between, applies the change to the cached copy (else the next listing reloads).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async written(owner: string, change: { put: StoredDocument } | { remove: number }): Promise<void> {
    const state = this.owners.get(owner);
    let version: number | null;
    try {
      version = await this.counters.increment(versionCounter(owner));
    } catch (error) {
      if (state) state.listing = undefined;
      throw error;
    }
    const listing = state?.listing;
    if (state === undefined || listing === undefined) return;
    if (version === null || listing.version !== version - 1) {
      state.listing = undefined;
      return;
    }
    if ('put' in change) listing.put(change.put);
    else listing.remove(change.remove);
    listing.version = version;
    this.evict();
  }

  private state(owner: string): OwnerState {
    let state = this.owners.get(owner);
    if (state) {
      // Refresh the owner's place in the least-recently-used order.
      this.owners.delete(owner);
    } else {
      state = { index: new AppendOnlyIndex(this.kv, this.counters, `documents:${owner}`) };
    }
    this.owners.set(owner, state);
    return state;
  }

  private async load(owner: string, state: OwnerState, version: number): Promise<OwnerListing> {
    const ids = [...new Set(await state.index.values())];
    const docs: StoredDocument[] = [];
    for (let start = 0; start < ids.length; start += BATCH) {
      const values = await this.kv.getMany<unknown>(ids.slice(start, start + BATCH).map((id) => documentKey(Number(id))));
      for (const value of values) if (isStoredDocumentOf(value, owner)) docs.push(value);
    }
    const listing = new OwnerListing(version, docs);
    if (state.listing === undefined || state.listing.version < version) state.listing = listing;
    this.evict();
    return listing;
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

function versionCounter(owner: string): string {
  return `documents:${owner}:version`;
}
