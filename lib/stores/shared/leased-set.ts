import type { CounterStore } from '../../ports/counter-store.js';
import type { KvStore } from '../../ports/kv-store.js';
import { withLease } from './lease.js';

/**
 * A small set of strings kept as one value of the store (a JSON array, in the order the members came),
 * changed under a lease of its own, so that several processes changing it at once lose nothing. An
 * emptied set is deleted: it leaves nothing behind. Each change rewrites the whole value, so it suits
 * sets of up to a few thousand members; {@link BucketedSet} spreads a larger one.
 */
export class LeasedSet {
  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    /** The key of its value in the store. */
    readonly name: string,
  ) {}

  /** The members, oldest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async values(): Promise<readonly string[]> {
    return (await this.kv.get<string[]>(this.name)) ?? [];
  }

  /**
   * Changes the members under the set's lease: `change` is given them (oldest first) and answers the
   * new members, or `undefined` to leave them as they are. What `change` awaits runs under the lease
   * too (a caller keeping a second set in step with this one).
   * @returns the members before and after.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`, or what `change` throws (nothing is written then).
   */
  update(
    change: (members: readonly string[]) => Promise<readonly string[] | undefined> | readonly string[] | undefined,
  ): Promise<{ before: readonly string[]; after: readonly string[] }> {
    return withLease(this.counters, `set:${this.name}`, async () => {
      const before = await this.values();
      const after = (await change(before)) ?? before;
      if (after !== before) {
        if (after.length > 0) await this.kv.set(this.name, after);
        else if (before.length > 0) await this.kv.delete(this.name);
      }
      return { before, after };
    });
  }

  /**
   * Adds `member` at the end, unless it is a member already or the set holds `ceiling` members.
   * @returns false when the ceiling refused it.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async add(member: string, ceiling = Infinity): Promise<boolean> {
    let refused = false;
    await this.update((members) => {
      if (members.includes(member)) return undefined;
      refused = members.length >= ceiling;
      return refused ? undefined : [...members, member];
    });
    return !refused;
  }

  /** Takes `member` out. @returns whether it was a member. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async remove(member: string): Promise<boolean> {
    const { before, after } = await this.update((members) =>
      members.includes(member) ? members.filter((value) => value !== member) : undefined,
    );
    return after !== before;
  }
}

/**
 * A set too large to rewrite whole at each change: its members spread over {@link LeasedSet}s, each
 * holding those whose hash falls in it, so a change rewrites one of them and a reading reads them all at
 * once.
 */
export class BucketedSet {
  private readonly buckets: LeasedSet[];

  constructor(
    private readonly kv: KvStore,
    counters: CounterStore,
    name: string,
    count = 64,
  ) {
    this.buckets = Array.from({ length: count }, (_, n) => new LeasedSet(kv, counters, `${name}:${n}`));
  }

  /** Every member (in no particular order), in one read of the store. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async values(): Promise<string[]> {
    const values = await this.kv.getMany<string[]>(this.buckets.map((bucket) => bucket.name));
    return values.flatMap((members) => members ?? []);
  }

  /** Adds `member`. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async add(member: string): Promise<void> {
    await this.bucketOf(member).add(member);
  }

  /** Takes `member` out. @returns whether it was a member. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  remove(member: string): Promise<boolean> {
    return this.bucketOf(member).remove(member);
  }

  private bucketOf(member: string): LeasedSet {
    // FNV-1a: cheap, and even over ids that differ anywhere.
    let hash = 0x811c9dc5;
    for (let i = 0; i < member.length; i += 1) hash = Math.imul(hash ^ member.charCodeAt(i), 0x01000193) >>> 0;
    return this.buckets[hash % this.buckets.length]!;
  }
}
