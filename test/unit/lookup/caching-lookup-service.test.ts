import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { CachingLookupService } from '../../../lib/lookup/caching-lookup-service.js';
import type { Lookup, LookupDataByKind } from '../../../lib/ports/lookup-service.js';
import { openBackend, type Backend } from '../../../lib/stores/backend.js';

const silent = { info() {}, warn() {}, error() {} };

/** A DNS-kind lookup that counts its runs and answers with the given cache time. */
function countingLookup(ttlSeconds: number): Lookup<'dns'> & { runs: number } {
  const lookup = {
    kind: 'dns' as const,
    runs: 0,
    parse: (input: unknown) => String(input).toLowerCase(),
    async run(target: string) {
      lookup.runs += 1;
      const data = { domain: target, exists: true, A: [], AAAA: [], MX: [], NS: [], TXT: [], CNAME: [], SOA: null, CAA: [], dnssec: { signed: false, validated: null }, mail: { spf: null, dmarc: null } };
      return { data: data as LookupDataByKind['dns'], ttlSeconds };
    },
  };
  return lookup;
}

describe('CachingLookupService', () => {
  let cache: Backend;
  beforeEach(() => {
    cache = openBackend('memory://', { namespace: 'cache', clock: { now: () => Date.now() } });
  });
  afterEach(() => cache.close());

  it('answers again from the cache until the answer expires, then asks again', async () => {
    const lookup = countingLookup(1);
    const service = new CachingLookupService({ lookups: [lookup], cache: cache.kv, timeoutMs: 1000, logger: silent });
    expect((await service.lookup('dns', 'Example.com')).cached).to.equal(false);
    expect((await service.lookup('dns', 'example.com')).cached).to.equal(true);
    expect(lookup.runs).to.equal(1);
    await sleep(1100);
    expect((await service.lookup('dns', 'example.com')).cached).to.equal(false);
    expect(lookup.runs).to.equal(2);
  });

  it('serves an answer another instance put in the shared cache, and keeps its expiry', async () => {
    const writer = new CachingLookupService({ lookups: [countingLookup(1)], cache: cache.kv, timeoutMs: 1000, logger: silent });
    const readerLookup = countingLookup(1);
    const reader = new CachingLookupService({ lookups: [readerLookup], cache: cache.kv, timeoutMs: 1000, logger: silent });
    await writer.lookup('dns', 'example.com');
    expect((await reader.lookup('dns', 'example.com')).cached).to.equal(true);
    expect(readerLookup.runs).to.equal(0);
    await sleep(1100);
    expect((await reader.lookup('dns', 'example.com')).cached).to.equal(false);
    expect(readerLookup.runs).to.equal(1);
  });

  it('does not cache an answer whose cache time is zero', async () => {
    const lookup = countingLookup(0);
    const service = new CachingLookupService({ lookups: [lookup], cache: cache.kv, timeoutMs: 1000, logger: silent });
    await service.lookup('dns', 'example.com');
    expect((await service.lookup('dns', 'example.com')).cached).to.equal(false);
    expect(lookup.runs).to.equal(2);
  });
});
