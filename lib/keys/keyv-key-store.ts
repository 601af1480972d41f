import { inject, injectable } from 'tsyringe';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type { ApiKey, KeyChanges, KeyPage, KeyPageQuery, KeyStore, NewKey } from '../ports/key-store.js';
import { AppendOnlyIndex } from '../stores/shared/append-only-index.js';
import type { KvStore } from '../ports/kv-store.js';
import { withLease } from '../stores/shared/lease.js';
import { TOKENS } from '../tokens.js';
import { digestOf, keyRecord, publicKey, SECRET_PATTERN, workingKey, type StoredKey } from '../records/stored-key.js';
import { checkChanges, checkGraceSeconds, checkRollable, keyNotFound, newKey, newSecret } from './key-rules.js';
import { pageOf } from './key-listing.js';

/**
 * Keys in a Keyv store: the memory store's (the SQL stores and Redis keep keys as records of their own:
 * RecordKeyStore), and what releases before those records wrote, which they move when they open. A key's secret is random, shown once, and stored only as its SHA-256 digest,
 * which is also what finds the key: `key:<digest>` holds the record, `key-id:<id>` the digest of the
 * current secret. Every change rewrites the records of all the key's working secrets under a lease, so
 * every process sharing the store sees it at its next request.
 */
@injectable()
export class KeyvKeyStore implements KeyStore {
  private readonly index: AppendOnlyIndex;

  constructor(
    @inject(TOKENS.storeKv) private readonly kv: KvStore,
    @inject(TOKENS.storeCounters) private readonly counters: CounterStore,
    @inject(TOKENS.clock) private readonly clock: Clock,
  ) {
    this.index = new AppendOnlyIndex(kv, counters, 'keys');
  }

  async create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const key = newKey(input, this.clock.now());
    const secret = newSecret();
    const digest = digestOf(secret);
    await this.kv.set(`key:${digest}`, key);
    await this.kv.set(`key-id:${key.id}`, digest);
    await this.index.append(digest);
    return { key, secret };
  }

  async verify(secret: string): Promise<ApiKey | null> {
    if (!SECRET_PATTERN.test(secret)) return null;
    const stored = await this.kv.get<StoredKey>(keyRecord(digestOf(secret)));
    return stored === undefined ? null : workingKey(stored, this.clock.now());
  }

  async get(id: string): Promise<ApiKey> {
    return publicKey((await this.current(id)).stored);
  }

  /** The page, from every key read and filtered here: the memory store's keys are in this process anyway. */
  async page(query: KeyPageQuery): Promise<KeyPage> {
    return pageOf(await this.list(), query);
  }

  async list(): Promise<ApiKey[]> {
    const digests = await this.index.values();
    const stored = await this.kv.getMany<StoredKey>(digests.map((digest) => `key:${digest}`));
    // A rolled key is in the index once per secret: its old secrets' records are skipped.
    const keys = stored.filter((key): key is StoredKey => key !== undefined && key.graceUntil === undefined).map(publicKey);
    // Creation order; rolling appends the new secret to the index, which must not move the key.
    return keys.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  async update(id: string, changes: KeyChanges): Promise<ApiKey> {
    const checked = checkChanges(changes, this.clock.now());
    return this.change(id, (key) => ({ ...key, ...checked }));
  }

  async revoke(id: string): Promise<ApiKey> {
    return this.change(id, (key) =>
      key.revokedAt !== null ? key : { ...key, revokedAt: new Date(this.clock.now()).toISOString() },
    );
  }

  async roll(id: string, graceSeconds = 0): Promise<{ key: ApiKey; secret: string }> {
    const grace = checkGraceSeconds(graceSeconds);
    await this.current(id); // an unknown id is refused before anything is written
    return withLease(this.counters, `key:${id}`, async () => {
      const { digest: oldDigest, stored } = await this.current(id);
      const now = this.clock.now();
      const key = publicKey(stored);
      checkRollable(key, now);
      const secret = newSecret();
      const digest = digestOf(secret);
      const previous = (stored.previous ?? []).filter((entry) => entry.until > now);
      if (grace > 0) previous.push({ digest: oldDigest, until: now + grace * 1000 });
      await this.kv.set(`key:${digest}`, withPrevious(key, previous));
      await this.kv.set(`key-id:${id}`, digest);
      await this.index.append(digest);
      if (grace > 0) await this.kv.set(`key:${oldDigest}`, { ...key, graceUntil: now + grace * 1000 }, grace * 1000);
      else await this.kv.delete(`key:${oldDigest}`);
      return { key, secret };
    });
  }

  /** Rewrites the key under its lease, in the records of its current secret and of the old ones still in grace. */
  private change(id: string, apply: (key: ApiKey) => ApiKey): Promise<ApiKey> {
    return withLease(this.counters, `key:${id}`, async () => {
      const { digest, stored } = await this.current(id);
      const now = this.clock.now();
      const before = publicKey(stored);
      const key = apply(before);
      if (key === before) return key;
      const previous = (stored.previous ?? []).filter((entry) => entry.until > now);
      await this.kv.set(`key:${digest}`, withPrevious(key, previous));
      for (const old of previous) await this.kv.set(`key:${old.digest}`, { ...key, graceUntil: old.until }, old.until - now);
      return key;
    });
  }

  private async current(id: string): Promise<{ digest: string; stored: StoredKey }> {
    const digest = await this.kv.get<string>(`key-id:${id}`);
    const stored = digest === undefined ? undefined : await this.kv.get<StoredKey>(`key:${digest}`);
    if (digest === undefined || stored === undefined) throw keyNotFound(id);
    return { digest, stored };
  }
}

function withPrevious(key: ApiKey, previous: StoredKey['previous'] & object): StoredKey {
  return previous.length === 0 ? key : { ...key, previous };
}
