import type { CounterStore } from '../ports/counter-store.js';
import type { KvStore } from '../ports/kv-store.js';
import {
  DELIVERIES_LISTED,
  type Page,
  type PageQuery,
  type RemovedOfKey,
  type StoredDelivery,
  type WatchStore,
  type WatchStoreChanges,
} from '../ports/watch-store.js';
import { BucketedSet, LeasedSet } from '../stores/shared/leased-set.js';
import type { WatchMemory } from './detect/detection.js';
import type { Watch } from '../ports/watches.js';
import { DossierError } from '../errors.js';

export { DELIVERIES_LISTED, type StoredDelivery, type WatchStoreChanges };

/** A watch as it is kept: what its owner sees, its secrets, and what its checks remember. */
export interface StoredWatch extends Watch {
  secret: string;
  /**
   * The secret a rotation replaced, which deliveries are also signed with until `until` (ms since the
   * epoch), so that a receiver can switch to the new one meanwhile.
   */
  previousSecret?: { secret: string; until: number };
  memory: WatchMemory;
}

const WATCH_CHANGES = 'watch-list:changes';
/** Set once the lists of an older Dossier are adopted: later starts read this, not the old counters. */
const OLD_LISTS_ADOPTED = 'watch-list:old-lists-adopted';
const DELIVERY_CHANGES = 'delivery-list:changes';

/**
 * Watches and their deliveries as values of a Keyv store: the store of memory://, whose one process
 * needs no more (the shared stores keep watches as records of their own: lib/stores/sql/watches.ts,
 * lib/stores/redis/watches.ts), and the format of the releases before those, which they move from. `watch:<id>` and `delivery:<id>`
 * hold the records; {@link LeasedSet}s list the watches of each key (whose length is the key's count
 * against `DOSSIER_WATCHES_PER_KEY`), the keys of each owner that have watches, every watch (spread over
 * buckets), the watches whose schedule is not confirmed, the deliveries of each watch and every pending
 * delivery. A removed watch, a forgotten delivery and an emptied list leave nothing in the store; two
 * counters say when the lists of watches and of pending deliveries changed, so that an engine which
 * keeps its own schedule (the timer engine) reads them again only then.
 */
export class KeyvWatchStore implements WatchStore<StoredWatch> {
  private readonly every: BucketedSet;
  private readonly unscheduledList: BucketedSet;
  private readonly pendingList: BucketedSet;

  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
  ) {
    this.every = new BucketedSet(kv, counters, 'watch-list:all');
    // Every creation and every delivery passes through these two: spread, so that none waits on one lease.
    this.unscheduledList = new BucketedSet(kv, counters, 'watch-list:unscheduled');
    this.pendingList = new BucketedSet(kv, counters, 'delivery-list:pending');
  }

  /**
   * Stores a new watch and lists it, if its key holds fewer than `limit` watches (checked and taken in
   * one step, so that two processes creating at once cannot both take the last place).
   * @returns false when the key holds `limit` watches already (nothing is stored).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async insert(watch: StoredWatch, limit: number): Promise<boolean> {
    return this.place(watch, limit, () => this.kv.set(watchRecord(watch.id), watch));
  }

  /**
   * Lists a watch whose record is stored already, whatever its key holds (one adopted from the lists of
   * an older Dossier: {@link adoptOldLists}).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  private async list(watch: StoredWatch): Promise<void> {
    await this.place(watch, Infinity, async () => {});
  }

  /** Places a watch in its key's list, below `limit`, `store` it meanwhile, and lists it. */
  private async place(watch: StoredWatch, limit: number, store: () => Promise<void>): Promise<boolean> {
    let placed = false;
    await this.keyList(watch.keyId).update(async (members) => {
      if (members.includes(watch.id) || members.length >= limit) return undefined;
      await store();
      if (members.length === 0) await this.ownerKeys(watch.owner).add(watch.keyId);
      placed = true;
      return [...members, watch.id];
    });
    if (!placed) return false;
    await this.every.add(watch.id);
    await this.counters.increment(WATCH_CHANGES);
    return true;
  }

  /**
   * Lists deliveries whose records are stored already under their watch, after those it lists (oldest
   * first), and the pending ones among the pending: ones adopted from the lists of an older Dossier.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  private async listDeliveries(watchId: string, deliveries: StoredDelivery[]): Promise<void> {
    for (const delivery of deliveries) if (delivery.status === 'pending') await this.pendingList.add(delivery.id);
    await this.counters.increment(DELIVERY_CHANGES);
    await this.deliveryList(watchId).update((ids) => [
      ...ids,
      ...deliveries.map(({ id }) => id).filter((id) => !ids.includes(id)),
    ]);
  }

  /**
   * Adopts the lists of watches as Dossier kept them before each became one value of the store:
   * append-only indexes, a value per slot (`watches:all:<n>`, `watches:owner:<owner>:<n>`,
   * `deliveries:<watch>:<n>`) and a `:length` counter each. The watches and deliveries they list that
   * still exist are listed anew, and the slots deleted (their counters stay: the store cannot delete a
   * counter). Done once, at the first start of a worker on such a store; one cut off is taken up again
   * at the next.
   * @returns how many watches were adopted
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async adoptOldLists(): Promise<number> {
    const length = await this.counters.get('watches:all:length');
    if (length === 0 || (await this.kv.get(OLD_LISTS_ADOPTED)) !== undefined) return 0;
    const watches = await this.records(await this.oldSlots('watches:all', length));
    for (const watch of watches) {
      await this.list(watch);
      const index = `deliveries:${watch.id}`;
      const deliveries = await this.deliveryRecords(await this.oldSlots(index, await this.counters.get(`${index}:length`)));
      await this.listDeliveries(
        watch.id,
        deliveries.map(({ slot: _slot, ...delivery }: StoredDelivery & { slot?: number }) => delivery),
      );
      await this.forgetOldSlots(index);
    }
    for (const owner of new Set(watches.map((watch) => watch.owner))) await this.forgetOldSlots(`watches:owner:${owner}`);
    await this.forgetOldSlots('watches:all');
    await this.kv.set(OLD_LISTS_ADOPTED, true);
    return watches.length;
  }

  /** The values of the slots 1 to `length` of an old index, those still there, in order. */
  private async oldSlots(index: string, length: number): Promise<string[]> {
    const values: (string | undefined)[] = [];
    for (let start = 1; start <= length; start += 500) {
      values.push(...(await this.kv.getMany<string>(slotNames(index, start, Math.min(length, start + 499)))));
    }
    return values.filter((value): value is string => value !== undefined);
  }

  /** Deletes the slots of an old index. */
  private async forgetOldSlots(index: string): Promise<void> {
    const length = await this.counters.get(`${index}:length`);
    for (let start = 1; start <= length; start += 500) {
      await Promise.all(slotNames(index, start, Math.min(length, start + 499)).map((name) => this.kv.delete(name)));
    }
  }

  /** Writes an existing watch's record anew. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async save(watch: StoredWatch): Promise<void> {
    if ((await this.get(watch.id)) !== undefined) await this.kv.set(watchRecord(watch.id), watch);
  }

  /** The watch `id`, or `undefined` (also once removed). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  get(id: string): Promise<StoredWatch | undefined> {
    return this.kv.get<StoredWatch>(watchRecord(id));
  }

  /**
   * Forgets a watch: its record and its places in the lists, the place of its key included (its
   * deliveries are the caller's: see {@link deliveryIds} and {@link forgetDelivery}).
   * @returns the watch as it was, or `undefined` when there was none.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async remove(id: string): Promise<StoredWatch | undefined> {
    const watch = await this.get(id);
    if (watch === undefined) return undefined;
    await this.kv.delete(watchRecord(id));
    await this.keyList(watch.keyId).update(async (members) => {
      if (!members.includes(id)) return undefined;
      const left = members.filter((member) => member !== id);
      if (left.length === 0) await this.ownerKeys(watch.owner).remove(watch.keyId);
      return left;
    });
    await this.every.remove(id);
    await this.unscheduledList.remove(id);
    await this.counters.increment(WATCH_CHANGES);
    return watch;
  }

  /** Forgets every watch of the key `keyId`, one after the other, with their deliveries that are over. */
  async removeOfKey(keyId: string): Promise<RemovedOfKey> {
    const removed: RemovedOfKey = { watches: [], pending: [] };
    for (const id of await this.keyList(keyId).values()) {
      if ((await this.remove(id)) === undefined) continue;
      removed.watches.push(id);
      removed.pending.push(...(await this.forgetDeliveriesOver(id)));
    }
    return removed;
  }

  /** A page of the watches of `owner`, newest first. @throws DossierError `ERR_WATCH_INVALID`, `ERR_STORE_UNAVAILABLE` */
  async ofOwner(owner: string, page: PageQuery): Promise<Page<StoredWatch>> {
    const keys = await this.ownerKeys(owner).values();
    const lists = await this.kv.getMany<string[]>(keys.map((keyId) => this.keyList(keyId).name));
    const watches = await this.records(lists.flatMap((members) => members ?? []));
    return pageOf(newestFirst(watches.filter((watch) => watch.owner === owner)), page);
  }

  /** A page of the watches the key `keyId` created, newest first. @throws as {@link ofOwner} */
  async ofKey(keyId: string, page: PageQuery): Promise<Page<StoredWatch>> {
    return pageOf(newestFirst(await this.records(await this.keyList(keyId).values())), page);
  }

  /** The ids of every watch of the store, in no particular order, in one read. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  allIds(): Promise<string[]> {
    return this.every.values();
  }

  /** The watches of `ids` that exist, in that order. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async records(ids: readonly string[]): Promise<StoredWatch[]> {
    const records: (StoredWatch | undefined)[] = [];
    // Batches: some Keyv adapters match getMany results in quadratic time.
    for (let start = 0; start < ids.length; start += 500) {
      records.push(...(await this.kv.getMany<StoredWatch>(ids.slice(start, start + 500).map(watchRecord))));
    }
    return records.filter((record): record is StoredWatch => record !== undefined);
  }

  /** How often the lists of watches and of pending deliveries changed, in one read. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async changes(): Promise<WatchStoreChanges> {
    const [watches = 0, deliveries = 0] = await this.counters.getMany([WATCH_CHANGES, DELIVERY_CHANGES]);
    return { watches, deliveries };
  }

  /** Notes that the watch `id` is not known to be scheduled yet. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async markUnscheduled(id: string): Promise<void> {
    await this.unscheduledList.add(id);
  }

  /** Notes that the watch `id` is scheduled (or gone). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async markScheduled(id: string): Promise<void> {
    await this.unscheduledList.remove(id);
  }

  /** The watches whose schedule was never confirmed. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  unscheduled(): Promise<string[]> {
    return this.unscheduledList.values();
  }

  /**
   * Stores a new delivery, lists it under its watch and among the pending ones, and forgets the ones
   * over that fall out of its watch's list.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async insertDelivery(delivery: StoredDelivery): Promise<void> {
    await this.kv.set(deliveryRecord(delivery.id), delivery);
    await this.pendingList.add(delivery.id);
    await this.counters.increment(DELIVERY_CHANGES);
    await this.deliveryList(delivery.watchId).update((ids) =>
      ids.includes(delivery.id) ? undefined : this.trimmed([...ids, delivery.id]),
    );
  }

  /**
   * Writes a delivery's record anew, if it has it; once it is over, it leaves the pending ones, and is
   * forgotten when it is out of its watch's list (or its watch's list is gone).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async saveDelivery(delivery: StoredDelivery): Promise<void> {
    // Only while it is kept, as every store does: an attempt that ends after its watch's removal writes nothing.
    if ((await this.kv.get(deliveryRecord(delivery.id))) === undefined) return;
    await this.kv.set(deliveryRecord(delivery.id), delivery);
    if (delivery.status === 'pending') return;
    await this.leavePending(delivery.id);
    // Written first and read after, while an insertion lists first and reads the records it drops after:
    // of the two, one at least sees the other's change, and the record is forgotten.
    await this.deliveryList(delivery.watchId).update(async (ids) => {
      if (ids.includes(delivery.id)) return this.trimmed(ids);
      await this.kv.delete(deliveryRecord(delivery.id));
      return undefined;
    });
  }

  /** Forgets a delivery: its record and its places in the lists. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async forgetDelivery(delivery: { id: string; watchId: string }): Promise<void> {
    await this.kv.delete(deliveryRecord(delivery.id));
    await this.leavePending(delivery.id);
    await this.deliveryList(delivery.watchId).remove(delivery.id);
  }

  /**
   * Forgets the deliveries of a removed watch that are over (not pending: no attempt can be under way),
   * and its list of deliveries once no pending one is left in it.
   * @returns the ids of its deliveries still pending, each for the caller to forget once no attempt of
   *   it is under way ({@link forgetDelivery}).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async forgetDeliveriesOver(watchId: string): Promise<string[]> {
    const ids = await this.deliveryIds(watchId);
    const records = await this.kv.getMany<StoredDelivery>(ids.map(deliveryRecord));
    const pending = ids.filter((_, n) => records[n]?.status === 'pending');
    await Promise.all(ids.filter((id) => !pending.includes(id)).map((id) => this.kv.delete(deliveryRecord(id))));
    await this.deliveryList(watchId).update((listed) => listed.filter((id) => pending.includes(id)));
    return pending;
  }

  /** The delivery `id`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  getDelivery(id: string): Promise<StoredDelivery | undefined> {
    return this.kv.get<StoredDelivery>(deliveryRecord(id));
  }

  async deliveries(watchId: string): Promise<StoredDelivery[]> {
    const listed = (await this.deliveryList(watchId).values()).slice(-DELIVERIES_LISTED).reverse();
    return this.deliveryRecords(listed);
  }

  /** Every delivery the store keeps of a watch, listed or still pending, oldest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async deliveryIds(watchId: string): Promise<readonly string[]> {
    return this.deliveryList(watchId).values();
  }

  /** Every delivery with attempts still to make. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async pendingDeliveries(): Promise<StoredDelivery[]> {
    const pending = await this.deliveryRecords(await this.pendingList.values());
    return pending.filter((delivery) => delivery.status === 'pending');
  }

  private async deliveryRecords(ids: readonly string[]): Promise<StoredDelivery[]> {
    const records = await this.kv.getMany<StoredDelivery>(ids.map(deliveryRecord));
    return records.filter((record): record is StoredDelivery => record !== undefined);
  }

  private async leavePending(id: string): Promise<void> {
    if (await this.pendingList.remove(id)) await this.counters.increment(DELIVERY_CHANGES);
  }

  /**
   * A watch's list of deliveries, oldest first, without the ones over that are older than the newest
   * {@link DELIVERIES_LISTED}, whose records it deletes. One still pending stays until it is over.
   */
  private async trimmed(ids: readonly string[]): Promise<readonly string[]> {
    const older = ids.slice(0, -DELIVERIES_LISTED);
    if (older.length === 0) return ids;
    const records = await this.kv.getMany<StoredDelivery>(older.map(deliveryRecord));
    const over = new Set(older.filter((_, n) => records[n]?.status !== 'pending'));
    if (over.size === 0) return ids;
    await Promise.all([...over].map((id) => this.kv.delete(deliveryRecord(id))));
    return ids.filter((id) => !over.has(id));
  }

  private keyList(keyId: string): LeasedSet {
    return new LeasedSet(this.kv, this.counters, `watch-list:key:${keyId}`);
  }

  private ownerKeys(owner: string): LeasedSet {
    return new LeasedSet(this.kv, this.counters, `watch-list:owner-keys:${owner}`);
  }

  private deliveryList(watchId: string): LeasedSet {
    return new LeasedSet(this.kv, this.counters, `delivery-list:${watchId}`);
  }
}

/** The page of a list held whole in memory: its cursor is the offset it starts at. */
function pageOf<T>(all: T[], { limit, cursor }: PageQuery): Page<T> {
  const start = cursor === undefined ? 0 : Number(/^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString())?.[1] ?? NaN);
  if (!Number.isInteger(start)) throw new DossierError('ERR_WATCH_INVALID', 'This cursor is not one a page of this list gave.');
  const end = start + limit;
  return {
    items: all.slice(start, end),
    total: all.length,
    nextCursor: end < all.length ? Buffer.from(`o${end}`).toString('base64url') : null,
  };
}

/** Newest first; of two made at the same instant, the one listed later. */
function newestFirst(watches: StoredWatch[]): StoredWatch[] {
  return watches.reverse().sort((a, b) => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : 0));
}

/** The names of the slots `first` to `last` of an old index. */
function slotNames(index: string, first: number, last: number): string[] {
  return Array.from({ length: last - first + 1 }, (_, n) => `${index}:${first + n}`);
}

function watchRecord(id: string): string {
  return `watch:${id}`;
}

function deliveryRecord(id: string): string {
  return `delivery:${id}`;
}
