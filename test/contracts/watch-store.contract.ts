import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createContainer } from '../../lib/container.js';
import { resolveOptions } from '../../lib/options.js';
import type { CounterStore } from '../../lib/ports/counter-store.js';
import type { KeyStore } from '../../lib/ports/key-store.js';
import type { KvStore } from '../../lib/ports/kv-store.js';
import { AppendOnlyIndex } from '../../lib/stores/shared/append-only-index.js';
import { LEASE_MS } from '../../lib/stores/shared/lease.js';
import { TOKENS } from '../../lib/tokens.js';
import { KeyStoreWithWatches } from '../../lib/watches/key-store-with-watches.js';
import { DELIVERIES_LISTED, KeyvWatchStore, type StoredDelivery, type StoredWatch } from '../../lib/watches/keyv-watch-store.js';
import { LeasedSet } from '../../lib/stores/shared/leased-set.js';
import type { PageQuery, WatchStore } from '../../lib/ports/watch-store.js';
import { attemptLeaseOf, type KeyvWatchService } from '../../lib/watches/watch-service.js';
import { numberedWatch } from '../support/stored-watch.js';
import { watchServiceOn } from '../support/watch-service.js';
import { uniqueName, type BackendCase, CONTRACT_STORE_TIMEOUT_MS } from './backends.js';
import { census, ledger, type Ledger } from './census.js';

/** What the tests of one store URL use. */
interface OpenedWatches {
  store: WatchStore<StoredWatch>;
  /** The watch service on that store, its work handed to a timer engine that runs none of it. */
  service: KeyvWatchService;
  /** The keys as a Dossier hands them out: revoking one removes its watches. */
  keys: KeyStore;
  kv: KvStore;
  counters: CounterStore;
  /** What was written through the ports (the census of a memory:// store). */
  ledger: Ledger;
  close(): Promise<void>;
}

/** The watch store and service of a store URL, on the backend a Dossier on that URL would use. */
function openWatches(url: string): OpenedWatches {
  const options = resolveOptions({ store: url, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS });
  const { container, close } = createContainer(options);
  const written = ledger(container.resolve(TOKENS.storeKv), container.resolve(TOKENS.storeCounters));
  const { kv, counters } = written;
  // The keys too write through the ledger: a memory:// key store is the same backend.
  container.register(TOKENS.storeKv, { useValue: kv });
  container.register(TOKENS.storeCounters, { useValue: counters });
  const { store, service } = watchServiceOn(container, options, { kv, counters });
  const keys = new KeyStoreWithWatches(container.resolve(TOKENS.keyStore), () => service);
  return { store, service, keys, kv, counters, ledger: written, close };
}

/** A page holding every watch of the tests' lists. */
const ALL = { limit: 500 };

/** A watch of `owner`, made by `keyId` (a key of its own by default), at second `n` of 2030. */
function aWatch(owner: string, keyId: string | undefined, n: number): StoredWatch {
  return numberedWatch(`wat_${randomBytes(8).toString('hex')}`, n, Date.UTC(2030, 0, 1), {
    keyId: keyId ?? uniqueName('key'),
    owner,
  });
}

function aDelivery(watchId: string, n: number): StoredDelivery {
  return {
    id: `msg_${watchId}_${n}`,
    event: 'dns.changed',
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString(),
    status: 'pending',
    attempts: 0,
    responseStatus: null,
    nextAttemptAt: null,
    watchId,
    body: `{"n":${n}}`,
  };
}

/** The watch store contract: records, listings by owner and by key, places per key, deliveries per watch, and nothing left behind. */
export function watchStoreContract(backend: BackendCase): void {
  describe('WatchStore', () => {
    let url: string;
    let opened: OpenedWatches;
    beforeEach(() => {
      url = backend.url();
      opened = openWatches(url);
    });
    afterEach(() => opened.close());

    /** `count` deliveries of a watch, the first `over` of them delivered. */
    async function deliveriesOf(watchId: string, count: number, over: number): Promise<void> {
      for (let n = 1; n <= count; n += 1) {
        await opened.store.insertDelivery(aDelivery(watchId, n));
        if (n <= over) {
          await opened.store.saveDelivery({ ...aDelivery(watchId, n), status: 'delivered', attempts: 1, responseStatus: 204 });
        }
      }
    }

    it("keeps watches, lists an owner's newest first across its keys and a key's own, and forgets a removed one", async () => {
      const [owner, other] = [uniqueName('acct'), uniqueName('acct')];
      const [k1, k2] = [uniqueName('key'), uniqueName('key')];
      const watches = [aWatch(owner, k1, 1), aWatch(owner, k2, 2), aWatch(owner, k1, 3), aWatch(other, uniqueName('key'), 4)];
      for (const watch of watches) expect(await opened.store.insert(watch, 10)).to.equal(true);
      const [w1, w2, w3, w4] = watches as [StoredWatch, StoredWatch, StoredWatch, StoredWatch];
      expect(await opened.store.get(w1.id)).to.deep.equal(w1);
      expect((await opened.store.ofOwner(owner, ALL)).items.map((w) => w.id)).to.deep.equal([w3.id, w2.id, w1.id]);
      expect((await opened.store.ofKey(k1, ALL)).items.map((w) => w.id)).to.deep.equal([w3.id, w1.id]);
      await opened.store.save({ ...w1, lastError: 'boom' });
      expect((await opened.store.get(w1.id))?.lastError).to.equal('boom');
      expect((await opened.store.remove(w1.id))?.id).to.equal(w1.id);
      expect(await opened.store.remove(w1.id)).to.equal(undefined);
      expect(await opened.store.get(w1.id)).to.equal(undefined);
      expect((await opened.store.ofOwner(owner, ALL)).items.map((w) => w.id)).to.deep.equal([w3.id, w2.id]);
      expect((await opened.store.ofKey(k1, ALL)).items.map((w) => w.id)).to.deep.equal([w3.id]);
      expect(await opened.store.allIds())
        .to.include.members([w2.id, w3.id, w4.id])
        .and.not.include(w1.id);
    });

    it('pages the watches of an owner and of a key from their index, newest first, with the exact total', async () => {
      const [owner, keyId] = [uniqueName('acct'), uniqueName('key')];
      const watches = Array.from({ length: 7 }, (_, n) => aWatch(owner, keyId, n));
      for (const watch of watches) await opened.store.insert(watch, 10);
      const newest = watches.map(({ id }) => id).reverse();
      for (const list of [
        (page: PageQuery) => opened.store.ofOwner(owner, page),
        (page: PageQuery) => opened.store.ofKey(keyId, page),
      ]) {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
          expect(page.total).to.equal(7);
          seen.push(...page.items.map(({ id }) => id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        expect(seen).to.deep.equal(newest);
        await list({ limit: 3, cursor: 'bm90LWEtY3Vyc29y' }).then(
          () => expect.fail('a cursor no page gave'),
          (error: unknown) => expect(error).to.have.property('code', 'ERR_WATCH_INVALID'),
        );
      }
    });

    it('gives a key no more watches than its limit, even to inserts at once, and a place back at a removal', async () => {
      const keyId = uniqueName('key');
      const watches = Array.from({ length: 12 }, (_, n) => aWatch('acct', keyId, n));
      const placed = await Promise.all(watches.map((watch) => opened.store.insert(watch, 5)));
      expect(placed.filter(Boolean)).to.have.length(5);
      const kept = (await opened.store.ofKey(keyId, ALL)).items;
      expect(kept).to.have.length(5);
      // A refused watch left no record.
      for (const [n, watch] of watches.entries()) if (!placed[n]) expect(await opened.store.get(watch.id)).to.equal(undefined);
      await opened.store.remove(kept[0]!.id);
      expect(await opened.store.insert(aWatch('acct', keyId, 20), 5)).to.equal(true);
      expect(await opened.store.insert(aWatch('acct', keyId, 21), 5)).to.equal(false);
    });

    it(`lists the last ${DELIVERIES_LISTED} deliveries of a watch, newest first, with their updates`, async () => {
      const watch = aWatch(uniqueName('acct'), undefined, 1);
      await opened.store.insert(watch, 10);
      const watchId = watch.id;
      for (let n = 1; n <= DELIVERIES_LISTED + 3; n += 1) await opened.store.insertDelivery(aDelivery(watchId, n));
      const listed = await opened.store.deliveries(watchId);
      expect(listed).to.have.length(DELIVERIES_LISTED);
      expect(listed[0]!.id).to.equal(`msg_${watchId}_${DELIVERIES_LISTED + 3}`);
      expect(listed.at(-1)!.id).to.equal(`msg_${watchId}_4`);
      await opened.store.saveDelivery({ ...listed[0]!, status: 'delivered', attempts: 1, responseStatus: 204 });
      expect(await opened.store.getDelivery(listed[0]!.id)).to.include({ status: 'delivered', attempts: 1, responseStatus: 204 });
    });

    it('forgets a delivery that leaves the list once it is over, and every delivery of a removed watch, for good', async () => {
      const watch = aWatch(uniqueName('acct'), undefined, 1);
      await opened.store.insert(watch, 10);
      const id = (n: number): string => `msg_${watch.id}_${n}`;
      const over = async (n: number): Promise<void> => {
        const delivery = (await opened.store.getDelivery(id(n)))!;
        await opened.store.saveDelivery({ ...delivery, status: 'failed', attempts: 6 });
      };
      await opened.store.insertDelivery(aDelivery(watch.id, 1));
      await opened.store.insertDelivery(aDelivery(watch.id, 2));
      await over(1);
      expect(await opened.store.getDelivery(id(1)), 'over, but still listed').to.include({ status: 'failed' });
      for (let n = 3; n <= DELIVERIES_LISTED + 2; n += 1) await opened.store.insertDelivery(aDelivery(watch.id, n));
      expect(await opened.store.getDelivery(id(1)), 'over and out of the list').to.equal(undefined);
      expect(await opened.store.getDelivery(id(2)), 'out of the list, attempts to make').to.include({ status: 'pending' });
      expect((await opened.store.pendingDeliveries()).map((delivery) => delivery.id)).to.include(id(2));
      await over(2);
      expect(await opened.store.getDelivery(id(2)), 'out of the list and now over').to.equal(undefined);
      expect((await opened.store.pendingDeliveries()).map((delivery) => delivery.id)).to.not.include(id(2));
      const listed = await opened.store.deliveries(watch.id);
      expect(listed.map((delivery) => delivery.id)).to.deep.equal(
        Array.from({ length: DELIVERIES_LISTED }, (_, n) => id(DELIVERIES_LISTED + 2 - n)),
      );
      expect(await opened.store.deliveryIds(watch.id)).to.have.length(DELIVERIES_LISTED);

      const retried = (await opened.store.getDelivery(id(DELIVERIES_LISTED + 2)))!;
      await opened.service.removeAny(watch.id);
      expect(await opened.store.deliveries(watch.id)).to.deep.equal([]);
      expect(await opened.store.deliveryIds(watch.id)).to.deep.equal([]);
      // An attempt that ends after the removal does not bring its record back.
      await opened.store.saveDelivery({ ...retried, status: 'delivered', attempts: 1 });
      expect(await opened.store.getDelivery(retried.id)).to.equal(undefined);
      for (const n of [3, DELIVERIES_LISTED + 2]) expect(await opened.store.getDelivery(id(n))).to.equal(undefined);
    });

    it("removes a watch, and a key's watches, without waiting for an attempt's lease a dead process holds", async function () {
      // What an attempt's lease outlives its holder by (renewed meanwhile): the removal waits that long.
      this.timeout(15_000);
      const owner = uniqueName('acct');
      const keyId = uniqueName('key');
      for (const remove of [
        (watch: StoredWatch) => opened.service.removeAny(watch.id),
        () => opened.service.removeOfKey(keyId),
      ]) {
        const watch = aWatch(owner, keyId, 1);
        await opened.store.insert(watch, 10);
        const delivery = aDelivery(watch.id, 1);
        await opened.store.insertDelivery(delivery);
        expect(await opened.counters.acquireLease(attemptLeaseOf(delivery.id), 'a process that died', LEASE_MS)).to.equal(true);
        await remove(watch);
        expect(await opened.store.get(watch.id)).to.equal(undefined);
        expect(await opened.store.getDelivery(delivery.id)).to.equal(undefined);
        expect((await opened.store.pendingDeliveries()).map(({ id }) => id)).to.not.include(delivery.id);
        // Its attempt, had it been alive, ends without writing it back, whatever its outcome.
        await opened.store.saveDelivery({ ...delivery, attempts: 1, nextAttemptAt: new Date().toISOString() });
        expect(await opened.store.getDelivery(delivery.id)).to.equal(undefined);
      }
    });

    it('counts the changes of its lists of watches and of pending deliveries, and nothing else', async () => {
      const watch = aWatch(uniqueName('acct'), undefined, 1);
      const before = await opened.store.changes();
      await opened.store.insert(watch, 10);
      const inserted = await opened.store.changes();
      expect(inserted.watches).to.be.greaterThan(before.watches);
      await opened.store.save({ ...watch, lastError: 'x' });
      await opened.store.insertDelivery(aDelivery(watch.id, 1));
      const delivering = await opened.store.changes();
      expect(delivering).to.deep.include({ watches: inserted.watches });
      expect(delivering.deliveries).to.be.greaterThan(inserted.deliveries);
      await opened.store.saveDelivery({ ...aDelivery(watch.id, 1), attempts: 1 });
      expect(await opened.store.changes()).to.deep.equal(delivering);
      await opened.store.saveDelivery({ ...aDelivery(watch.id, 1), attempts: 2, status: 'delivered' });
      expect((await opened.store.changes()).deliveries).to.be.greaterThan(delivering.deliveries);
    });

    it("leaves nothing behind: a removed watch and its deliveries, a revoked key's watches", async () => {
      // The store's own bookkeeping (the counters of changes) exists once something has happened.
      const kept = aWatch(uniqueName('acct'), undefined, 1);
      await opened.store.insert(kept, 10);
      await deliveriesOf(kept.id, 1, 1);
      const before = await census(url, opened.ledger);

      const owner = uniqueName('acct');
      const { watch } = await opened.service.create({
        type: 'dns',
        domain: 'example.test',
        webhookUrl: 'https://hooks.example.test/in',
        keyId: uniqueName('key'),
        owner,
      });
      await opened.service.rotateSecret(watch.id, { owner });
      await deliveriesOf(watch.id, DELIVERIES_LISTED + 10, DELIVERIES_LISTED + 5);
      expect(await census(url, opened.ledger)).to.be.greaterThan(before);
      await opened.service.remove(watch.id, { owner });
      expect(await census(url, opened.ledger), 'after a removal').to.equal(before);

      const { key } = await opened.keys.create({ name: 'watcher', owner });
      const withKey = await census(url, opened.ledger);
      for (let n = 0; n < 3; n += 1) {
        const created = await opened.service.create({ type: 'dns', domain: `d${n}.example.test`, keyId: key.id, owner });
        await deliveriesOf(created.watch.id, 3, 1);
      }
      await opened.keys.revoke(key.id);
      expect(await opened.service.list({ owner })).to.deep.equal([]);
      expect(await census(url, opened.ledger), 'after a revoke').to.equal(withKey);
    });

    it('adopts, once, the lists of an older Dossier: its watches and deliveries listed anew, its slots deleted', async () => {
      const owner = uniqueName('acct');
      const [watch, gone] = [aWatch(owner, undefined, 1), aWatch(owner, undefined, 2)];
      const index = (name: string): AppendOnlyIndex => new AppendOnlyIndex(opened.kv, opened.counters, name);
      // As the watch store wrote them before: a record per watch and delivery, a slot per entry of a list.
      for (const listed of [watch, gone]) {
        await index('watches:all').append(listed.id);
        await index(`watches:owner:${owner}`).append(listed.id);
      }
      await opened.kv.set(`watch:${watch.id}`, watch);
      const deliveries = [1, 2, 3].map((n) => ({ ...aDelivery(watch.id, n), slot: n }));
      for (const delivery of deliveries) {
        await opened.kv.set(`delivery:${delivery.id}`, delivery.slot === 3 ? delivery : { ...delivery, status: 'delivered' });
        await index(`deliveries:${watch.id}`).append(delivery.id);
      }

      expect(await opened.store.adoptOldLists()).to.equal(1);
      expect((await opened.store.ofOwner(owner, ALL)).items.map(({ id }) => id)).to.deep.equal([watch.id]);
      expect((await opened.store.ofKey(watch.keyId, ALL)).items.map(({ id }) => id)).to.deep.equal([watch.id]);
      expect(await opened.store.allIds())
        .to.include(watch.id)
        .and.not.include(gone.id);
      expect((await opened.store.deliveries(watch.id)).map(({ id }) => id)).to.deep.equal(
        deliveries.map(({ id }) => id).reverse(),
      );
      expect((await opened.store.pendingDeliveries()).map(({ id }) => id)).to.include(deliveries[2]!.id);
      for (const slot of ['watches:all:1', `watches:owner:${owner}:2`, `deliveries:${watch.id}:3`]) {
        expect(await opened.kv.get(slot), slot).to.equal(undefined);
      }
      expect(await opened.store.adoptOldLists()).to.equal(0);
    });

    if (backend.shared) {
      it("moves a store today's release wrote, left half done by a kill, into its records when it opens it", async () => {
        // Written by the key-value watch store of the release before the records, on this very store.
        const old = new KeyvWatchStore(opened.kv, opened.counters);
        const owner = uniqueName('acct');
        const [k1, k2] = [uniqueName('key'), uniqueName('key')];
        const [w1, w2, w3, w4] = [aWatch(owner, k1, 1), aWatch(owner, k1, 2), aWatch(owner, k2, 3), aWatch(owner, k1, 4)];
        for (const watch of [w1, w2, w3]) expect(await old.insert(watch, 10)).to.equal(true);
        await old.insertDelivery(aDelivery(w1.id, 1));
        await old.insertDelivery(aDelivery(w1.id, 2));
        await old.saveDelivery({ ...aDelivery(w1.id, 2), status: 'delivered', attempts: 1, responseStatus: 204 });
        // What a kill left: an id in its key's list with no record (a removal cut after the record went),
        // a key missing from its owner's set, a record written whose lists never were.
        await opened.kv.delete(`watch:${w2.id}`);
        await new LeasedSet(opened.kv, opened.counters, `watch-list:owner-keys:${owner}`).remove(k2);
        await opened.kv.set(`watch:${w4.id}`, w4);

        expect(await opened.store.adoptOldLists()).to.equal(3);
        expect((await opened.store.ofOwner(owner, ALL)).items.map(({ id }) => id)).to.deep.equal([w4.id, w3.id, w1.id]);
        expect(await opened.store.ofKey(k1, ALL)).to.include({ total: 2 });
        expect(await opened.store.get(w4.id)).to.deep.equal(w4);
        // Each key's count is what exists: k1 holds two, so a limit of 3 leaves it one place.
        expect(await opened.store.insert(aWatch(owner, k1, 5), 3)).to.equal(true);
        expect(await opened.store.insert(aWatch(owner, k1, 6), 3)).to.equal(false);
        expect((await opened.store.deliveries(w1.id)).map(({ status }) => status)).to.deep.equal(['delivered', 'pending']);
        expect((await opened.store.pendingDeliveries()).map(({ id }) => id)).to.include(aDelivery(w1.id, 1).id);
        expect(await opened.store.unscheduled()).to.include.members([w1.id, w3.id, w4.id]);
        for (const name of [`watch:${w1.id}`, `delivery:${aDelivery(w1.id, 1).id}`, `watch-list:key:${k1}`, 'watch-list:all:0']) {
          expect(await opened.kv.get(name), name).to.equal(undefined);
        }
        expect(await opened.store.adoptOldLists(), 'once').to.equal(0);
      });

      it('is the same store for every process on the URL', async () => {
        const second = openWatches(url);
        try {
          const owner = uniqueName('acct');
          const watch = aWatch(owner, undefined, 1);
          await opened.store.insert(watch, 10);
          expect((await second.store.ofOwner(owner, ALL)).items.map((w) => w.id)).to.deep.equal([watch.id]);
          const keyId = uniqueName('key');
          const placed = await Promise.all([
            ...Array.from({ length: 4 }, (_, n) => opened.store.insert(aWatch(owner, keyId, n), 3)),
            ...Array.from({ length: 4 }, (_, n) => second.store.insert(aWatch(owner, keyId, 10 + n), 3)),
          ]);
          expect(placed.filter(Boolean)).to.have.length(3);
        } finally {
          await second.close();
        }
      });
    }
  });
}
