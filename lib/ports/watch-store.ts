import type { Page, PageQuery } from './page.js';
import type { Delivery, Watch } from './watches.js';

export type { Page, PageQuery };

/** A watch as a store keeps it: what its owner sees, and what the watch service keeps beside it (opaque here). */
export type WatchRecord = Watch;

/** A delivery as it is kept: what its owner sees, its watch, and the body every attempt sends. */
export interface StoredDelivery extends Delivery {
  watchId: string;
  /** The JSON text POSTed, the same on every attempt. */
  body: string;
}

/**
 * The deliveries of a watch that its owner can list, the newest ones, and all the store keeps: an older
 * one is forgotten when a new one comes, or, if it still has attempts to make, once they are over.
 */
export const DELIVERIES_LISTED = 50;

/** How many times the store's watches and pending deliveries have changed, as an engine that polls reads it. */
export interface WatchStoreChanges {
  watches: number;
  deliveries: number;
}

/** What a revoke took away in one step ({@link WatchStore.removeOfKey}). */
export interface RemovedOfKey {
  /** The ids of the watches removed. */
  watches: string[];
  /** Their deliveries still pending, for the caller to forget once no attempt of them is under way. */
  pending: string[];
}

/**
 * Watches and their deliveries, shared by every process on a store: records, the lists that hold them
 * (an owner's, a key's, every watch, the pending deliveries) and the counts, each change of a record and
 * of what lists or counts it one atomic step of the store (docs/contract.md §7). `W` is the record the
 * watch service keeps, stored and given back whole.
 */
export interface WatchStore<W extends WatchRecord = WatchRecord> {
  /**
   * Stores a new watch and lists it, if its key holds fewer than `limit` watches (checked and taken in
   * one step, so that two processes creating at once cannot both take the last place).
   * @returns false when the key holds `limit` watches already (nothing is stored).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  insert(watch: W, limit: number): Promise<boolean>;
  /** Writes an existing watch's record anew (a removed one stays removed). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  save(watch: W): Promise<void>;
  /** The watch `id`, or `undefined` (also once removed). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  get(id: string): Promise<W | undefined>;
  /**
   * Forgets a watch: its record and its places in the lists and counts (its deliveries are the caller's:
   * see {@link forgetDeliveriesOver} and {@link forgetDelivery}).
   * @returns the watch as it was, or `undefined` when there was none.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  remove(id: string): Promise<W | undefined>;
  /**
   * Forgets every watch of the key `keyId` in one step, with their deliveries that are over.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  removeOfKey(keyId: string): Promise<RemovedOfKey>;
  /** A page of the watches of `owner`, newest first. @throws DossierError `ERR_WATCH_INVALID` for a cursor of no page of it, `ERR_STORE_UNAVAILABLE` */
  ofOwner(owner: string, page: PageQuery): Promise<Page<W>>;
  /** A page of the watches the key `keyId` created, newest first. @throws as {@link ofOwner} */
  ofKey(keyId: string, page: PageQuery): Promise<Page<W>>;
  /** The ids of every watch of the store, in no particular order. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  allIds(): Promise<string[]>;
  /** How often the lists of watches and of pending deliveries changed, in one read. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  changes(): Promise<WatchStoreChanges>;
  /** Notes that the watch `id` is not known to be scheduled yet. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  markUnscheduled(id: string): Promise<void>;
  /** Notes that the watch `id` is scheduled (or gone). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  markScheduled(id: string): Promise<void>;
  /** The watches whose schedule was never confirmed. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  unscheduled(): Promise<string[]>;
  /**
   * Stores a new delivery (one stored already stays as it is), lists it under its watch and among the
   * pending ones, and forgets the ones over that fall out of its watch's newest {@link DELIVERIES_LISTED}.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  insertDelivery(delivery: StoredDelivery): Promise<void>;
  /**
   * Writes an existing delivery's record anew (a forgotten one stays forgotten); once it is over, it
   * leaves the pending ones, and is forgotten when it is out of its watch's newest {@link DELIVERIES_LISTED}.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  saveDelivery(delivery: StoredDelivery): Promise<void>;
  /** Forgets a delivery: its record and its places in the lists. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  forgetDelivery(delivery: { id: string; watchId: string }): Promise<void>;
  /**
   * Forgets the deliveries of a removed watch that are over (not pending: no attempt can be under way).
   * @returns the ids of its deliveries still pending, each for the caller to forget once no attempt of
   *   it is under way ({@link forgetDelivery}).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  forgetDeliveriesOver(watchId: string): Promise<string[]>;
  /** The delivery `id`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  getDelivery(id: string): Promise<StoredDelivery | undefined>;
  /** The last {@link DELIVERIES_LISTED} deliveries of a watch, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  deliveries(watchId: string): Promise<StoredDelivery[]>;
  /** Every delivery the store keeps of a watch, listed or still pending, oldest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  deliveryIds(watchId: string): Promise<readonly string[]>;
  /** Every delivery with attempts still to make. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  pendingDeliveries(): Promise<StoredDelivery[]>;
  /**
   * Takes up what an older release kept its own way (once; one cut off is taken up again at the next).
   * @returns how many watches were taken up.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  adoptOldLists(): Promise<number>;
}
