import { expect } from 'chai';
import { createContainer } from '../../../lib/container.js';
import { resolveOptions } from '../../../lib/options.js';
import type { CounterStore } from '../../../lib/ports/counter-store.js';
import { LEASE_MS } from '../../../lib/stores/shared/lease.js';
import { TOKENS } from '../../../lib/tokens.js';
import { FRESH_MEMORY } from '../../../lib/watches/detect/detection.js';
import { attemptLeaseOf } from '../../../lib/watches/watch-service.js';
import { watchServiceOn } from '../../support/watch-service.js';

// A delivery's attempt holds its lease as every lease is held (renewed while it lives, lapsing within a
// second of its holder's death), so that removing its watch or revoking its key, which waits for an
// attempt under way, never waits long for a process that died in one (docs/contract.md §7).
describe("a delivery attempt's lease", () => {
  it('outlives its holder by a second at most, and is given back after', async () => {
    const options = resolveOptions({ store: 'memory://' });
    const { container, close } = createContainer(options);
    try {
      const base = container.resolve(TOKENS.storeCounters);
      const taken: number[] = [];
      const counters = new Proxy(base, {
        get(target, method) {
          const value: unknown = Reflect.get(target, method);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (method === 'acquireLease' && String(args[0]).startsWith('delivery-attempt:')) taken.push(Number(args[2]));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as CounterStore;
      const { store, service } = watchServiceOn(container, options, { kv: container.resolve(TOKENS.storeKv), counters });
      const at = new Date().toISOString();
      const watch = {
        id: 'wat_00000000000000bb',
        type: 'dns' as const,
        domain: 'example.test',
        webhookUrl: null,
        intervalSeconds: 3600,
        createdAt: at,
        lastCheckedAt: null,
        nextCheckAt: at,
        lastError: null,
        keyId: 'acct',
        owner: 'acct',
        secret: 'whsec_c2VjcmV0',
        memory: FRESH_MEMORY,
      };
      await store.insert(watch, 100);
      const delivery = {
        id: 'msg_attempt_lease',
        event: 'dns.changed' as const,
        createdAt: at,
        status: 'pending' as const,
        attempts: 0,
        responseStatus: null,
        nextAttemptAt: null,
        watchId: watch.id,
        body: '{}',
      };
      await store.insertDelivery(delivery);
      // Its watch has no webhook URL any more: the attempt, under its lease, forgets it.
      expect(await service.handlers.attempt(delivery.id)).to.equal(null);
      expect(taken).to.have.length.above(0);
      for (const ttl of taken) expect(ttl).to.be.at.most(LEASE_MS);
      expect(await base.acquireLease(attemptLeaseOf(delivery.id), 'another', LEASE_MS), 'given back').to.equal(true);
      expect(await store.getDelivery(delivery.id)).to.equal(undefined);
    } finally {
      await close();
    }
  });
});
