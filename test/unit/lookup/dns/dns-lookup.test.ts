import { expect } from 'chai';
import { DnsLookup, DNS_CACHE_BOUNDS } from '../../../../lib/lookup/dns/dns-lookup.js';
import type { DnsMessageClient } from '../../../../lib/ports/dns-message-client.js';
import type { DnsResolver } from '../../../../lib/ports/dns-resolver.js';

/** The message client's part is tested against a DNS server (test/integration/dnssec.test.ts): here it has nothing. */
const emptyMessages: DnsMessageClient = {
  query: async () => ({ rcode: 'NOERROR', authenticated: false, answers: [], authorities: [] }),
};

/** A resolver answering A records with the given TTLs and nothing else. */
function resolverWith(ttls: number[], soaMinTtl?: number): DnsResolver {
  const none = async (): Promise<never> => {
    throw Object.assign(new Error('no data'), { code: 'ENODATA' });
  };
  return {
    resolve4: async () => ttls.map((ttl, i) => ({ address: `192.0.2.${i + 1}`, ttl })),
    resolve6: none,
    resolveMx: none,
    resolveNs: none,
    resolveTxt: none,
    resolveCname: none,
    resolveSoa:
      soaMinTtl === undefined
        ? none
        : async () => ({ nsname: 'ns', hostmaster: 'h', serial: 1, refresh: 1, retry: 1, expire: 1, minttl: soaMinTtl }),
    reverse: none,
    cancel() {},
  };
}

describe('DnsLookup cache time', () => {
  const run = async (resolver: DnsResolver): Promise<number> =>
    (await new DnsLookup(() => resolver, emptyMessages).run('example.com', new AbortController().signal)).ttlSeconds;

  it('is the smallest TTL of the records', async () => {
    expect(await run(resolverWith([900, 120, 600]))).to.equal(120);
    expect(await run(resolverWith([900], 300))).to.equal(300);
  });

  it('is bounded to 60 s … 1 h', async () => {
    expect(await run(resolverWith([5]))).to.equal(DNS_CACHE_BOUNDS.minSeconds);
    expect(await run(resolverWith([86400]))).to.equal(DNS_CACHE_BOUNDS.maxSeconds);
    expect(await run(resolverWith([]))).to.equal(DNS_CACHE_BOUNDS.minSeconds);
  });

  it('turns a resolver failure into an upstream error, and a timeout into a timeout', async () => {
    for (const [code, expected] of [
      ['ESERVFAIL', 'ERR_UPSTREAM_FAILED'],
      ['ECONNREFUSED', 'ERR_UPSTREAM_FAILED'],
      ['ETIMEOUT', 'ERR_UPSTREAM_TIMEOUT'],
    ]) {
      const failing = { ...resolverWith([300]), resolveMx: async () => Promise.reject(Object.assign(new Error(code), { code })) };
      const error = await new DnsLookup(() => failing, emptyMessages)
        .run('example.com', new AbortController().signal)
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).to.equal(expected);
    }
  });
});
