import { expect } from 'chai';
import { createContainer } from '../../lib/container.js';
import { resolveOptions } from '../../lib/options.js';
import type { CounterStore } from '../../lib/ports/counter-store.js';
import type { KvStore } from '../../lib/ports/kv-store.js';
import { TOKENS } from '../../lib/tokens.js';
import { FRESH_MEMORY } from '../../lib/watches/detect/detection.js';
import { DELIVERIES_LISTED, KeyvWatchStore, type StoredDelivery, type StoredWatch } from '../../lib/watches/keyv-watch-store.js';
import { uniqueName, type BackendCase, CONTRACT_STORE_TIMEOUT_MS } from './backends.js';

/** The watch store of a store URL, on the backend a Dossier on that URL would use. */
function openWatchStore(url: string): { store: KeyvWatchStore; kv: KvStore; counters: CounterStore; close(): Promise<void> } {
  const { container, close } = createContainer(resolveOptions({ store: url, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS }));
  const [kv, counters] = [container.resolve(TOKENS.storeKv), container.resolve(TOKENS.storeCounters)];
  return { store: new KeyvWatchStore(kv, counters), kv, counters, close };
}

function aWatch(owner: string, keyId: string, n: number): StoredWatch {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString();
  return {
    id: uniqueName('wat'),
    type: 'dns',
    domain: `d${n}.example.test`,
    webhookUrl: 'https://hooks.example.test/in',
    intervalSeconds: 900,
    createdAt: at,
    lastCheckedAt: null,
    nextCheckAt: at,
    lastError: null,
    keyId,
    owner,
    secret: 'whsec_c2VjcmV0',
    memory: FRESH_MEMORY,
  };
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

/** The watch store contract: records, listings by owner, places per key, deliveries per watch. */
export function watchStoreContract(backend: BackendCase): void {
  describe('KeyvWatchStore', () => {
    let url: string;
    let opened: ReturnType<typeof openWatchStore>;
    beforeEach(() => {
      url = backend.url();
      opened = openWatchStore(url);
    });
    afterEach(() => opened.close());

    it("keeps watches, lists an owner's newest first, and forgets a removed one", async () => {
      const [owner, other] = [uniqueName('acct'), uniqueName('acct')];
      const watches = [aWatch(owner, 'k', 1), aWatch(owner, 'k', 2), aWatch(other, 'k2', 3)];
      for (const watch of watches) await opened.store.insert(watch);
      expect(await opened.store.get(watches[0]!.id)).to.deep.equal(watches[0]);
      expect((await opened.store.ofOwner(owner)).map((w) => w.id)).to.deep.equal([watches[1]!.id, watches[0]!.id]);
      await opened.store.save({ ...watches[0]!, lastError: 'boom' });
      expect((await opened.store.get(watches[0]!.id))?.lastError).to.equal('boom');
      expect(await opened.store.remove(watches[0]!.id)).to.equal(true);
      expect(await opened.store.get(watches[0]!.id)).to.equal(undefined);
      expect((await opened.store.ofOwner(owner)).map((w) => w.id)).to.deep.equal([watches[1]!.id]);
      const all = (await opened.store.all()).map((w) => w.id);
      expect(all).to.include.members([watches[1]!.id, watches[2]!.id]);
    });

    it('reads a removed watch no more once it has seen it gone, in the listings of every watch and of its owner', async () => {
      const read: string[] = [];
      const kv = new Proxy(opened.kv, {
        get(target, name) {
          if (name === 'getMany') return (keys: string[]) => (read.push(...keys), target.getMany(keys));
          const value: unknown = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const store = new KeyvWatchStore(kv, opened.counters);
      const owner = uniqueName('acct');
      const [kept, removed] = [aWatch(owner, 'k', 1), aWatch(owner, 'k', 2)];
      await store.insert(kept);
      await store.insert(removed);
      await store.remove(removed.id);
      for (const list of [() => store.all(), () => store.ofOwner(owner)]) {
        read.length = 0;
        expect((await list()).map((w) => w.id))
          .to.include(kept.id)
          .and.not.include(removed.id);
        expect(read).to.include(`watch:${removed.id}`);
        read.length = 0;
        expect((await list()).map((w) => w.id)).to.include(kept.id);
        expect(read).to.include(`watch:${kept.id}`).and.not.include(`watch:${removed.id}`);
      }
    });

    it('gives a key no more places than its limit, even to calls at once, and takes a place back', async () => {
      const keyId = uniqueName('key');
      const taken = await Promise.all(Array.from({ length: 12 }, () => opened.store.takePlace(keyId, 5)));
      expect(taken.filter(Boolean)).to.have.length(5);
      await opened.store.givePlace(keyId);
      expect(await opened.store.takePlace(keyId, 5)).to.equal(true);
      expect(await opened.store.takePlace(keyId, 5)).to.equal(false);
    });

    it(`lists the last ${DELIVERIES_LISTED} deliveries of a watch, newest first, with their updates`, async () => {
      const watch = aWatch(uniqueName('acct'), 'k', 1);
      await opened.store.insert(watch);
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
      const watch = aWatch(uniqueName('acct'), 'k', 1);
      await opened.store.insert(watch);
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
      expect(await opened.kv.get(`deliveries:${watch.id}:1`)).to.equal(undefined);
      expect(await opened.store.getDelivery(id(2)), 'out of the list, attempts to make').to.include({ status: 'pending' });
      await over(2);
      expect(await opened.store.getDelivery(id(2)), 'out of the list and now over').to.equal(undefined);
      const listed = await opened.store.deliveries(watch.id);
      expect(listed.map((delivery) => delivery.id)).to.deep.equal(
        Array.from({ length: DELIVERIES_LISTED }, (_, n) => id(DELIVERIES_LISTED + 2 - n)),
      );

      const retried = (await opened.store.getDelivery(id(DELIVERIES_LISTED + 2)))!;
      await opened.store.remove(watch.id);
      expect(await opened.store.deliveries(watch.id)).to.deep.equal([]);
      // An attempt that ends after the removal does not bring its record back.
      await opened.store.saveDelivery({ ...retried, status: 'delivered', attempts: 1 });
      expect(await opened.store.getDelivery(retried.id)).to.equal(undefined);
      for (const n of [3, DELIVERIES_LISTED + 2]) {
        expect(await opened.store.getDelivery(id(n))).to.equal(undefined);
        expect(await opened.kv.get(`deliveries:${watch.id}:${n}`)).to.equal(undefined);
      }
    });

    if (backend.shared) {
      it('is the same store for every process on the URL', async () => {
        const second = openWatchStore(url);
        try {
          const owner = uniqueName('acct');
          const watch = aWatch(owner, 'k', 1);
          await opened.store.insert(watch);
          expect((await second.store.ofOwner(owner)).map((w) => w.id)).to.deep.equal([watch.id]);
          const keyId = uniqueName('key');
          const taken = await Promise.all([
            ...Array.from({ length: 4 }, () => opened.store.takePlace(keyId, 3)),
            ...Array.from({ length: 4 }, () => second.store.takePlace(keyId, 3)),
          ]);
          expect(taken.filter(Boolean)).to.have.length(3);
        } finally {
          await second.close();
        }
      });
    }
  });
}
