import type { CounterStore } from '../ports/counter-store.js';
import { AppendOnlyIndex } from '../stores/shared/append-only-index.js';
import type { KvStore } from '../ports/kv-store.js';
import type { WatchMemory } from './detect/detection.js';
import type { Delivery, Watch } from '../ports/watches.js';

/** A watch as it is kept: what its owner sees, its secret, and what its checks remember. */
export interface StoredWatch extends Watch {
  secret: string;
  memory: WatchMemory;
}

/** A delivery as it is kept: what its owner sees, its watch, and the body every attempt sends. */
export interface StoredDelivery extends Delivery {
  watchId: string;
  /** The JSON text POSTed, the same on every attempt. */
  body: string;
  /** Its place in its watch's list of deliveries (none in a record written before deliveries were forgotten). */
  slot?: number;
}

/**
 * The deliveries of a watch that its owner can list, the newest ones, and all the store keeps: an older
 * one is forgotten when a new one comes, or, if it still has attempts to make, once they are over.
 */
export const DELIVERIES_LISTED = 50;

/**
 * Watches and their deliveries in the Keyv store every process shares: `watch:<id>` and
 * `delivery:<id>` hold the records; append-only indexes list the watches of an owner, every watch, and
 * the last {@link DELIVERIES_LISTED} deliveries of a watch; an atomic counter per key holds the limit of watches per key, so that two
 * processes creating at once cannot both take the last place.
 */
export class KeyvWatchStore {
  /** Every watch, and each owner's: kept, to read only what is new and still there (see {@link listed}). */
  private readonly allIndex: AppendOnlyIndex;
  private readonly owners = new Map<string, AppendOnlyIndex>();

  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
  ) {
    this.allIndex = new AppendOnlyIndex(kv, counters, 'watches:all');
  }

  /**
   * Takes one of the `limit` places of `keyId`.
   * @returns false when the key holds `limit` watches already.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async takePlace(keyId: string, limit: number): Promise<boolean> {
    return (await this.counters.increment(placesOf(keyId), { ceiling: limit })) !== null;
  }

  /** Gives back a place taken with {@link takePlace}. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async givePlace(keyId: string): Promise<void> {
    await this.counters.decrement(placesOf(keyId));
  }

  /** Stores a new watch and lists it. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async insert(watch: StoredWatch): Promise<void> {
    await this.save(watch);
    await Promise.all([this.ownerIndex(watch.owner).append(watch.id), this.allIndex.append(watch.id)]);
  }

  /** Writes a watch's record anew. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async save(watch: StoredWatch): Promise<void> {
    await this.kv.set(`watch:${watch.id}`, watch);
  }

  /** The watch `id`, or `undefined` (also once removed). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  get(id: string): Promise<StoredWatch | undefined> {
    return this.kv.get<StoredWatch>(`watch:${id}`);
  }

  /** Forgets a watch and its deliveries. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async remove(id: string): Promise<boolean> {
    const removed = await this.kv.delete(`watch:${id}`);
    const index = this.deliveryIndex(id);
    const listed = await index.last(DELIVERIES_LISTED);
    await Promise.all(listed.flatMap(({ slot, value }) => [index.drop(slot), this.forgetDelivery(value)]));
    return removed;
  }

  /** The watches of `owner`, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  ofOwner(owner: string): Promise<StoredWatch[]> {
    return this.listed(this.ownerIndex(owner));
  }

  /** Every watch of the store, oldest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async all(): Promise<StoredWatch[]> {
    return (await this.listed(this.allIndex)).reverse();
  }

  /**
   * Stores a new delivery, lists it under its watch, and forgets the one that falls out of the list.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async insertDelivery(delivery: StoredDelivery): Promise<void> {
    const index = this.deliveryIndex(delivery.watchId);
    const slot = await index.reserve();
    await this.kv.set(`delivery:${delivery.id}`, { ...delivery, slot });
    await index.fill(slot, delivery.id);
    if (slot <= DELIVERIES_LISTED) return;
    const dropped = await index.drop(slot - DELIVERIES_LISTED);
    // One with attempts still to make goes when they are over (see saveDelivery).
    if (dropped !== undefined && (await this.getDelivery(dropped))?.status !== 'pending') {
      await this.forgetDelivery(dropped);
    }
  }

  /**
   * Writes a delivery's record anew, or forgets it when it is over and out of its watch's list, or
   * when its watch is gone.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async saveDelivery(delivery: StoredDelivery): Promise<void> {
    await this.kv.set(`delivery:${delivery.id}`, delivery);
    // Written first and read after, while an insertion takes a slot first and reads the delivery it
    // drops after, and a removal deletes the watch first and its deliveries after: of two at once, one
    // at least sees the other and forgets the record.
    const over = delivery.status !== 'pending' && delivery.slot !== undefined;
    const [watch, length] = await Promise.all([
      this.get(delivery.watchId),
      over ? this.deliveryIndex(delivery.watchId).length() : 0,
    ]);
    if (watch === undefined || (over && delivery.slot! <= length - DELIVERIES_LISTED)) {
      await this.forgetDelivery(delivery.id);
    }
  }

  /** Deletes the record of a delivery that no list shows any more. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async forgetDelivery(id: string): Promise<void> {
    await this.kv.delete(`delivery:${id}`);
  }

  /** The delivery `id`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  getDelivery(id: string): Promise<StoredDelivery | undefined> {
    return this.kv.get<StoredDelivery>(`delivery:${id}`);
  }

  /** The last {@link DELIVERIES_LISTED} deliveries of a watch, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async deliveries(watchId: string): Promise<StoredDelivery[]> {
    const listed = (await this.deliveryIndex(watchId).last(DELIVERIES_LISTED)).reverse();
    const records = await this.kv.getMany<StoredDelivery>(listed.map(({ value }) => `delivery:${value}`));
    return records.filter((record): record is StoredDelivery => record !== undefined);
  }

  /**
   * The watches an index lists, newest first. A watch is stored before it is listed, so a listed id
   * without a record was removed, for good: the index leaves it out of this process's later reads.
   */
  private async listed(index: AppendOnlyIndex): Promise<StoredWatch[]> {
    const ids = await index.values();
    const records = await this.kv.getMany<StoredWatch>(ids.map((id) => `watch:${id}`));
    const watches = records.filter((record): record is StoredWatch => record !== undefined);
    if (watches.length < ids.length) {
      const present = new Set(watches.map((watch) => watch.id));
      index.forget(new Set(ids.filter((id) => !present.has(id))));
    }
    return watches.reverse();
  }

  private ownerIndex(owner: string): AppendOnlyIndex {
    const index = this.owners.get(owner) ?? new AppendOnlyIndex(this.kv, this.counters, `watches:owner:${owner}`);
    this.owners.set(owner, index);
    return index;
  }

  private deliveryIndex(watchId: string): AppendOnlyIndex {
    return new AppendOnlyIndex(this.kv, this.counters, `deliveries:${watchId}`);
  }
}

function placesOf(keyId: string): string {
  return `watches:places:${keyId}`;
}
