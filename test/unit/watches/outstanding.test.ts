import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createContainer } from '../../../lib/container.js';
import { resolveOptions } from '../../../lib/options.js';
import type { CounterStore } from '../../../lib/ports/counter-store.js';
import type { KvStore } from '../../../lib/ports/kv-store.js';
import { TOKENS } from '../../../lib/tokens.js';
import type { StoredWatch } from '../../../lib/watches/keyv-watch-store.js';
import { storedWatch } from '../../support/stored-watch.js';
import { observed, watchServiceOn } from '../../support/watch-service.js';

/** A port whose every call is noted in `calls` as `<port>.<method>`. */
function noted<T extends object>(port: T, name: string, calls: string[]): T {
  return observed(port, (method) => calls.push(`${name}.${method}`));
}

function aWatch(n: number): StoredWatch {
  const at = new Date(Date.UTC(2030, 0, 1)).toISOString();
  return storedWatch(`wat_${randomBytes(8).toString('hex')}`, {
    domain: `d${n}.example.test`,
    createdAt: at,
    nextCheckAt: at,
    keyId: `key_${Math.floor(n / 100)}`,
  });
}

// The timer engine asks what is outstanding every 5 s: while nothing changed, that must cost the store
// the same whatever the number of watches (docs/contract.md §11 "housekeeping does not grow with the watches").
describe('what the store is asked for the outstanding work of watches', () => {
  for (const count of [10, 1000]) {
    it(`is one read of two counters while nothing changed, and two reads when a watch came, with ${count} watches`, async () => {
      const options = resolveOptions({ store: 'memory://' });
      const { container, close } = createContainer(options);
      try {
        const calls: string[] = [];
        const kv = noted<KvStore>(container.resolve(TOKENS.storeKv), 'kv', calls);
        const counters = noted<CounterStore>(container.resolve(TOKENS.storeCounters), 'counters', calls);
        const { store, service } = watchServiceOn(container, options, { kv, counters });
        for (let n = 0; n < count; n += 1) await store.insert(aWatch(n), 100);
        const first = await service.handlers.outstanding();
        expect(first.watches).to.have.length(count);

        calls.length = 0;
        expect(await service.handlers.outstanding(first.mark)).to.deep.equal({ mark: first.mark });
        expect(calls).to.deep.equal(['counters.getMany']);

        await store.insert(aWatch(count), 200);
        calls.length = 0;
        const changed = await service.handlers.outstanding(first.mark);
        expect(changed.watches).to.have.length(count + 1);
        expect(changed.deliveries).to.equal(undefined);
        expect(calls).to.deep.equal(['counters.getMany', 'kv.getMany']);
      } finally {
        await close();
      }
    });
  }
});
