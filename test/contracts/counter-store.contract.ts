import { expect } from 'chai';
import type { Clock } from '../../lib/ports/clock.js';
import type { CounterStore } from '../../lib/ports/counter-store.js';
import { createContainer } from '../../lib/container.js';
import { resolveOptions } from '../../lib/options.js';
import { TOKENS } from '../../lib/tokens.js';
import { uniqueName, type BackendCase, CONTRACT_STORE_TIMEOUT_MS } from './backends.js';

/** Opens the counters of a store URL (the same backend a Dossier on that URL would use). */
export function openCounters(url: string, clock?: Clock): { counters: CounterStore; close(): Promise<void> } {
  const { container, close } = createContainer(resolveOptions({ store: url, clock, storeTimeoutMs: CONTRACT_STORE_TIMEOUT_MS }));
  return { counters: container.resolve(TOKENS.storeCounters), close };
}

/** The CounterStore contract: atomic, ceiling-respecting, exact under concurrency. */
export function counterStoreContract(backend: BackendCase): void {
  describe('CounterStore', () => {
    let opened: ReturnType<typeof openCounters>;
    let url: string;
    // Memory and SQL counters expire by the injected clock, which the tests move; Redis is told a time to
    // live from that clock and counts it down on its own, so there the test ages what Redis holds as well.
    // A lifetime of an hour: no test comes near it in real time.
    let now: number;
    const lifetime = 3_600_000;
    const pass = async (ms: number): Promise<void> => {
      now += ms;
      await backend.age?.(ms);
    };
    beforeEach(() => {
      url = backend.url();
      now = Date.UTC(2030, 0, 1);
      opened = openCounters(url, { now: () => now });
    });
    afterEach(() => opened.close());

    it('counts up from zero', async () => {
      const name = uniqueName('c');
      expect(await opened.counters.get(name)).to.equal(0);
      expect(await opened.counters.increment(name)).to.equal(1);
      expect(await opened.counters.increment(name)).to.equal(2);
      expect(await opened.counters.get(name)).to.equal(2);
    });

    it('reads several counters in one call, in the order asked, 0 for one never counted or expired', async () => {
      const [a, b, never, gone] = ['a', 'b', 'never', 'gone'].map((part) => uniqueName(`c-${part}`)) as [
        string,
        string,
        string,
        string,
      ];
      await opened.counters.increment(a);
      await opened.counters.increment(b);
      await opened.counters.increment(b);
      await opened.counters.increment(gone, { expiresAt: now + lifetime });
      await pass(lifetime + 10);
      expect(await opened.counters.getMany([b, never, a, gone, b])).to.deep.equal([2, 0, 1, 0, 2]);
      expect(await opened.counters.getMany([])).to.deep.equal([]);
      const many = Array.from({ length: 12_000 }, (_, i) => `${a}-${i}`);
      expect(await opened.counters.getMany([...many, a])).to.deep.equal([...many.map(() => 0), 1]);
      // Reads asked at once (a store may send them together) each get their own answer.
      expect(
        await Promise.all([opened.counters.getMany([a]), opened.counters.getMany([b, a]), opened.counters.getMany([])]),
      ).to.deep.equal([[1], [2, 1], []]);
    });

    it('refuses to pass the ceiling and leaves the value as it is', async () => {
      const name = uniqueName('c');
      expect(await opened.counters.increment(name, { ceiling: 2 })).to.equal(1);
      expect(await opened.counters.increment(name, { ceiling: 2 })).to.equal(2);
      expect(await opened.counters.increment(name, { ceiling: 2 })).to.equal(null);
      expect(await opened.counters.get(name)).to.equal(2);
      expect(await opened.counters.increment(name, { ceiling: 0 })).to.equal(null);
    });

    it('decrements, never below zero', async () => {
      const name = uniqueName('c');
      await opened.counters.decrement(name);
      expect(await opened.counters.get(name)).to.equal(0);
      await opened.counters.increment(name);
      await opened.counters.decrement(name);
      await opened.counters.decrement(name);
      expect(await opened.counters.get(name)).to.equal(0);
    });

    it('lets exactly 1000 of 1500 parallel increments through a ceiling of 1000', async () => {
      const name = uniqueName('c');
      const results = await Promise.all(Array.from({ length: 1500 }, () => opened.counters.increment(name, { ceiling: 1000 })));
      expect(results.filter((value) => value !== null)).to.have.length(1000);
      expect(new Set(results.filter((value) => value !== null)).size).to.equal(1000);
      expect(await opened.counters.get(name)).to.equal(1000);
    });

    it('reads an expired counter as 0 and counts it again from 1', async () => {
      const name = uniqueName('c');
      const expiresAt = now + lifetime;
      expect(await opened.counters.increment(name, { ceiling: 1, expiresAt })).to.equal(1);
      expect(await opened.counters.increment(name, { ceiling: 1, expiresAt })).to.equal(null);
      expect(await opened.counters.get(name)).to.equal(1);
      await pass(lifetime + 10);
      expect(await opened.counters.get(name)).to.equal(0);
      expect(await opened.counters.increment(name, { ceiling: 1 })).to.equal(1);
      await pass(lifetime + 10);
      expect(await opened.counters.get(name), 'an increment without expiry never expires').to.equal(1);
    });

    it('gives a lease to one owner at a time, and back only by that owner', async () => {
      const name = uniqueName('lease');
      expect(await opened.counters.acquireLease(name, 'a', 10_000)).to.equal(true);
      expect(await opened.counters.acquireLease(name, 'b', 10_000)).to.equal(false);
      await opened.counters.releaseLease(name, 'b');
      expect(await opened.counters.acquireLease(name, 'c', 10_000)).to.equal(false);
      await opened.counters.releaseLease(name, 'a');
      expect(await opened.counters.acquireLease(name, 'b', 10_000)).to.equal(true);
    });

    it('lets an expired lease go to another owner, which the late holder cannot free', async () => {
      const name = uniqueName('lease');
      expect(await opened.counters.acquireLease(name, 'a', lifetime)).to.equal(true);
      expect(await opened.counters.acquireLease(name, 'b', 10_000)).to.equal(false);
      await pass(lifetime + 80);
      expect(await opened.counters.acquireLease(name, 'b', 10_000)).to.equal(true);
      await opened.counters.releaseLease(name, 'a');
      expect(await opened.counters.acquireLease(name, 'c', 10_000)).to.equal(false);
    });

    it('renews a lease for the owner holding it, from the time of the renewal', async () => {
      const name = uniqueName('lease');
      expect(await opened.counters.acquireLease(name, 'a', lifetime)).to.equal(true);
      await pass(lifetime / 2);
      expect(await opened.counters.acquireLease(name, 'a', lifetime), 'renewed').to.equal(true);
      await pass(lifetime / 2 + 80);
      expect(await opened.counters.acquireLease(name, 'b', 10_000), 'still held, renewed').to.equal(false);
      await pass(lifetime);
      expect(await opened.counters.acquireLease(name, 'b', 10_000), 'no longer renewed').to.equal(true);
      expect(await opened.counters.acquireLease(name, 'a', 10_000), 'taken by another').to.equal(false);
    });

    if (backend.shared) {
      it('stays exact when two instances share the store', async () => {
        const other = openCounters(url, { now: () => now });
        try {
          const name = uniqueName('c');
          const results = await Promise.all(
            Array.from({ length: 1500 }, (_, i) => (i % 2 ? other : opened).counters.increment(name, { ceiling: 1000 })),
          );
          expect(results.filter((value) => value !== null)).to.have.length(1000);
          expect(await other.counters.get(name)).to.equal(1000);
          const lease = uniqueName('lease');
          const taken = await Promise.all(
            Array.from({ length: 40 }, (_, i) => (i % 2 ? other : opened).counters.acquireLease(lease, `owner-${i}`, 10_000)),
          );
          expect(taken.filter(Boolean)).to.have.length(1);
        } finally {
          await other.close();
        }
      });
    }
  });
}
