import type { ApiKey, KeyChanges, KeyPage, KeyPageQuery, KeyStore, NewKey } from '../ports/key-store.js';
import type { WatchService } from '../ports/watches.js';

/**
 * The key store a Dossier hands out (`dossier.keys`): the store's own, whose `revoke` also removes the
 * key's watches by the time it answers (docs/contract.md §11: a watch lives with the key that created it),
 * whoever revokes: the admin API, the CLI, an embedding app. (An expired key's watches are paused by
 * the watch service itself, at each check and attempt.)
 */
export class KeyStoreWithWatches implements KeyStore {
  constructor(
    private readonly keys: KeyStore,
    /** The watch service, asked for at a revoke. */
    private readonly watches: () => Pick<WatchService, 'removeOfKey'>,
  ) {}

  create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
    return this.keys.create(input);
  }

  verify(secret: string): Promise<ApiKey | null> {
    return this.keys.verify(secret);
  }

  get(id: string): Promise<ApiKey> {
    return this.keys.get(id);
  }

  list(): Promise<ApiKey[]> {
    return this.keys.list();
  }

  page(query: KeyPageQuery): Promise<KeyPage> {
    return this.keys.page(query);
  }

  update(id: string, changes: KeyChanges): Promise<ApiKey> {
    return this.keys.update(id, changes);
  }

  /**
   * Revokes a key, then removes its watches: no check and no delivery of them after it answers.
   * @throws DossierError `ERR_KEY_NOT_FOUND` for an unknown id; `ERR_STORE_UNAVAILABLE` when the store
   *   is down (the key may be revoked then with some of its watches left: they are removed at their
   *   next check, which finds the key revoked, or at the next revoke).
   */
  async revoke(id: string): Promise<ApiKey> {
    const key = await this.keys.revoke(id);
    await this.watches().removeOfKey(key.id);
    return key;
  }

  roll(id: string, graceSeconds?: number): Promise<{ key: ApiKey; secret: string }> {
    return this.keys.roll(id, graceSeconds);
  }
}
