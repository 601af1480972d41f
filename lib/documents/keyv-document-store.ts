import { DossierError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { CounterStore } from '../ports/counter-store.js';
import type {
  StoredChanges,
  DocumentQuery,
  DocumentRows,
  DocumentStore,
  NewStoredDocument,
  StoredDocument,
} from '../ports/document-store.js';
import type { KvStore } from '../ports/kv-store.js';
import { DOCUMENT_ID_COUNTER, documentKey, isStoredDocument } from '../records/stored-document.js';
import { LeaseQueue } from '../stores/shared/lease.js';
import { ListingCache, type DocumentChange, type ListingCacheOptions } from './listing-cache.js';

/** What an owner's log slot holds when its write failed before its id was known: an id no document has. */
const NO_DOCUMENT = '0';

/**
 * Documents as key-value records (`doc:<id>`), for memory:// (older releases wrote Redis's so too): ids
 * from an atomic counter, and a per-owner log of changed ids from which each process keeps its
 * listings up to date (see {@link ListingCache}). Updates and deletes run under the document's lease,
 * so that no write from any process loses another's fields or revives a deleted document.
 */
export class KeyvDocumentStore implements DocumentStore {
  private readonly cache: ListingCache;
  private readonly leases: LeaseQueue;

  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    clock: Clock,
    cache?: ListingCacheOptions,
  ) {
    this.cache = new ListingCache(kv, counters, clock, cache);
    this.leases = new LeaseQueue(counters);
  }

  async create(document: NewStoredDocument): Promise<StoredDocument> {
    // The id and the owner's log slot at once (neither depends on the other).
    const log = this.cache.log(document.owner);
    const [taken, reserved] = await Promise.allSettled([this.counters.increment(DOCUMENT_ID_COUNTER), log.reserve()]);
    const slot = reserved.status === 'fulfilled' ? reserved.value : undefined;
    if (taken.status === 'rejected' || taken.value === null) {
      // A slot left empty would be read again by every listing for a while: it gets an id no document has.
      if (slot !== undefined) await log.fill(slot, NO_DOCUMENT).catch(() => {});
      if (taken.status === 'rejected') throw taken.reason;
      throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store did not hand out a document id.');
    }
    if (reserved.status === 'rejected') throw reserved.reason;
    const stored: StoredDocument = { id: taken.value, ...document };
    const [written] = await Promise.allSettled([this.kv.set(documentKey(stored.id), stored)]);
    await this.logged(document.owner, stored.id, reserved.value, written, { put: stored });
    return stored;
  }

  async get(owner: string, id: number): Promise<StoredDocument | undefined> {
    const stored = await this.kv.get<unknown>(documentKey(id));
    return isStoredDocument(stored, owner) ? stored : undefined;
  }

  update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined> {
    return this.leases.run(`documents:lease:${id}`, async () => {
      const latest = await this.get(owner, id);
      if (latest === undefined) return undefined;
      const next: StoredDocument = { ...latest, ...changes };
      await this.append(owner, id, () => this.kv.set(documentKey(id), next), { put: next });
      return next;
    });
  }

  delete(owner: string, id: number): Promise<boolean> {
    return this.leases.run(`documents:lease:${id}`, async () => {
      if ((await this.get(owner, id)) === undefined) return false;
      await this.append(owner, id, () => this.kv.delete(documentKey(id)), { remove: id });
      return true;
    });
  }

  async list(owner: string, query: DocumentQuery): Promise<DocumentRows> {
    const { docs, total } = (await this.cache.listing(owner)).page(query);
    return { documents: docs, total };
  }

  /** Runs `write` and logs document `id` in a slot of the owner's log, taken meanwhile. */
  private async append(owner: string, id: number, write: () => Promise<unknown>, change: DocumentChange): Promise<void> {
    const [written, reserved] = await Promise.allSettled([write(), this.cache.log(owner).reserve()]);
    if (reserved.status === 'rejected') throw reserved.reason;
    await this.logged(owner, id, reserved.value, written, change);
  }

  /**
   * Fills the log slot of a write with `id`: a reader that finds the slot then reads the document as
   * written, or newer. The slot is filled even when the write failed (the reader then reads the
   * document as it is), so that no reader waits on it.
   */
  private async logged(
    owner: string,
    id: number,
    slot: number,
    written: PromiseSettledResult<unknown>,
    change: DocumentChange,
  ): Promise<void> {
    const filled = this.cache.log(owner).fill(slot, String(id));
    if (written.status === 'rejected') {
      await filled.catch(() => {});
      throw written.reason;
    }
    await filled;
    this.cache.written(owner, slot, change);
  }
}
