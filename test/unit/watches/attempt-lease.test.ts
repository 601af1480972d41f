import { expect } from 'chai';
import { createContainer } from '../../../lib/container.js';
import { resolveOptions } from '../../../lib/options.js';
import { LEASE_MS } from '../../../lib/stores/shared/lease.js';
import { TOKENS } from '../../../lib/tokens.js';
import { attemptLeaseOf } from '../../../lib/watches/watch-service.js';
import { storedWatch } from '../../support/stored-watch.js';
import { observed, watchServiceOn } from '../../support/watch-service.js';

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
      const counters = observed(base, (method, args) => {
        if (method === 'acquireLease' && String(args[0]).startsWith('delivery-attempt:')) taken.push(Number(args[2]));
      });
      const { store, service } = watchServiceOn(container, options, { kv: container.resolve(TOKENS.storeKv), counters });
      const watch = storedWatch('wat_00000000000000bb');
      await store.insert(watch, 100);
      const delivery = {
        id: 'msg_attempt_lease',
        event: 'dns.changed' as const,
        createdAt: new Date().toISOString(),
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
