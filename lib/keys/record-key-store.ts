import type { Clock } from '../ports/clock.js';
import type { ApiKey, KeyChanges, KeyPage, KeyPageQuery, KeyRecords, KeyStore, NewKey } from '../ports/key-store.js';
import { digestOf, SECRET_PATTERN, workingKey } from '../records/stored-key.js';
import { checkChanges, checkGraceSeconds, checkRollable, keyNotFound, newKey, newSecret } from './key-rules.js';

/**
 * Keys kept as records of the backend's own tables or structures ({@link KeyRecords}: the SQL backends
 * and Redis). This checks what it is given and makes ids and secrets; each change is then one atomic step
 * of the store, serialized per key by the store itself (a row lock, a script), so that no lock outlives a
 * process that dies in the middle of one. A secret is kept only as its SHA-256 digest, which finds the key.
 */
export class RecordKeyStore implements KeyStore {
  constructor(
    private readonly records: KeyRecords,
    private readonly clock: Clock,
  ) {}

  async create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    const key = newKey(input, this.clock.now());
    const secret = newSecret();
    await this.records.insert(key, digestOf(secret));
    return { key, secret };
  }

  async verify(secret: string): Promise<ApiKey | null> {
    if (!SECRET_PATTERN.test(secret)) return null;
    const record = await this.records.bySecret(digestOf(secret));
    return record === undefined ? null : workingKey({ ...record.key, graceUntil: record.graceUntil }, this.clock.now());
  }

  async get(id: string): Promise<ApiKey> {
    const key = await this.records.get(id);
    if (key === undefined) throw keyNotFound(id);
    return key;
  }

  list(): Promise<ApiKey[]> {
    return this.records.all();
  }

  page(query: KeyPageQuery): Promise<KeyPage> {
    return this.records.page(query);
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
    const now = this.clock.now();
    const secret = newSecret();
    const key = await this.records.roll(
      id,
      (key) => checkRollable(key, now),
      digestOf(secret),
      grace > 0 ? now + grace * 1000 : null,
      now,
    );
    if (key === undefined) throw keyNotFound(id);
    return { key, secret };
  }

  private async change(id: string, apply: (key: ApiKey) => ApiKey): Promise<ApiKey> {
    const key = await this.records.change(id, apply);
    if (key === undefined) throw keyNotFound(id);
    return key;
  }
}
