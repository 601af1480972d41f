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
}

/** The deliveries of a watch that its owner can list: the newest ones. */
export const DELIVERIES_LISTED = 50;

/**
 * Watches and their deliveries in the Keyv store every process shares: `watch:<id>` and
 * `delivery:<id>` hold the records; append-only indexes list the watches of an owner, every watch, and
 * the deliveries of a watch; an atomic counter per key holds the limit of watches per key, so that two
 * processes creating at once cannot both take the last place.
 */
export class KeyvWatchStore {
  /** Every watch: read often (a timer engine looks for new ones), so kept to read only what is new. */
  private readonly allIndex: AppendOnlyIndex;

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

  /** Forgets a watch (its deliveries go with it, unlisted). @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async remove(id: string): Promise<boolean> {
    return this.kv.delete(`watch:${id}`);
  }

  /** The watches of `owner`, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async ofOwner(owner: string): Promise<StoredWatch[]> {
    return this.existing(await this.ownerIndex(owner).values());
  }

  /** Every watch of the store, oldest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async all(): Promise<StoredWatch[]> {
    return (await this.existing(await this.allIndex.values())).reverse();
  }

  /** Stores a new delivery and lists it under its watch. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async insertDelivery(delivery: StoredDelivery): Promise<void> {
    await this.saveDelivery(delivery);
    await this.deliveryIndex(delivery.watchId).append(delivery.id);
  }

  /** Writes a delivery's record anew. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async saveDelivery(delivery: StoredDelivery): Promise<void> {
    await this.kv.set(`delivery:${delivery.id}`, delivery);
  }

  /** The delivery `id`, or `undefined`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  getDelivery(id: string): Promise<StoredDelivery | undefined> {
    return this.kv.get<StoredDelivery>(`delivery:${id}`);
  }

  /** The last {@link DELIVERIES_LISTED} deliveries of a watch, newest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async deliveries(watchId: string): Promise<StoredDelivery[]> {
    const ids = (await this.deliveryIndex(watchId).values()).slice(-DELIVERIES_LISTED).reverse();
    const records = await this.kv.getMany<StoredDelivery>(ids.map((id) => `delivery:${id}`));
    return records.filter((record): record is StoredDelivery => record !== undefined);
  }

  /** Records under `ids`, newest first, skipping removed ones. */
  private async existing(ids: string[]): Promise<StoredWatch[]> {
    const records = await this.kv.getMany<StoredWatch>(ids.map((id) => `watch:${id}`));
    return records.filter((record): record is StoredWatch => record !== undefined).reverse();
  }

  private ownerIndex(owner: string): AppendOnlyIndex {
    return new AppendOnlyIndex(this.kv, this.counters, `watches:owner:${owner}`);
  }

  private deliveryIndex(watchId: string): AppendOnlyIndex {
    return new AppendOnlyIndex(this.kv, this.counters, `deliveries:${watchId}`);
  }
}

function placesOf(keyId: string): string {
  return `watches:places:${keyId}`;
}
