import { expect } from 'chai';
import { createContainer } from '../../../lib/container.js';
import { resolveOptions } from '../../../lib/options.js';
import { TOKENS } from '../../../lib/tokens.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { storedWatch } from '../../support/stored-watch.js';
import { observed, watchServiceOn } from '../../support/watch-service.js';

const WATCH_ID = 'wat_00000000000000aa';

// A scheduled check reads its watch once under its lease; the timer engine's, whose processes each run
// every check, reads it once more before, so that all but one of them find it done for one read. (The
// memory store's save reads it once more, so as not to write back a watch removed meanwhile.)
describe('the reads of a watch a scheduled check makes', () => {
  let dns: TestDnsServer;
  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] } });
  });
  after(() => dns.close());

  for (const { engine, runOnce, reads } of [
    { engine: 'BullMQ (each check in one process)', runOnce: true, reads: 2 },
    { engine: 'timers (every process runs every check)', runOnce: false, reads: 3 },
  ]) {
    it(`is ${reads} on ${engine}`, async () => {
      const options = resolveOptions({ store: 'memory://', dnsServers: [dns.address] });
      const { container, close } = createContainer(options);
      try {
        const base = container.resolve(TOKENS.storeKv);
        let gets = 0;
        const kv = observed(base, (method, args) => {
          if (method === 'get' && String(args[0]).endsWith(WATCH_ID)) gets += 1;
        });
        const { store, service, jobs } = watchServiceOn(container, options, {
          kv,
          counters: container.resolve(TOKENS.storeCounters),
        });
        Object.assign(jobs, { checksRunOnce: runOnce });
        const watch = storedWatch(WATCH_ID);
        await store.insert(watch, 100);
        gets = 0;
        expect(await service.handlers.check(watch.id)).to.be.above(3_000_000);
        expect(gets).to.equal(reads);
        expect((await store.get(watch.id))?.lastCheckedAt).to.be.a('string');
      } finally {
        await close();
      }
    });
  }
});
