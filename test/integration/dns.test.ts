import { expect } from 'chai';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

/** The SOA record the server holds, which the answer gives back field for field. */
const SOA = {
  nsname: 'ns1.example.test',
  hostmaster: 'hostmaster.example.test',
  serial: 2026112201,
  refresh: 7200,
  retry: 3600,
  expire: 1209600,
  minttl: 3600,
};

eachAdapter(() => {
  describe('GET /api/dns against a DNS server on loopback', () => {
    let dns: TestDnsServer;
    let server: TestServer;
    let key: string;

    beforeEach(async () => {
      dns = await startDnsServer({
        'example.test': {
          A: [
            { address: '93.184.216.34', ttl: 120 },
            { address: '93.184.216.35', ttl: 90 },
          ],
          AAAA: [{ address: '2606:2800:220:1:248:1893:25c8:1946', ttl: 300 }],
          MX: [
            { exchange: 'mx2.example.test', priority: 20 },
            { exchange: 'mx1.example.test', priority: 10 },
          ],
          NS: ['ns1.example.test', 'ns2.example.test'],
          TXT: [['v=spf1 -all'], ['long ', 'chunked']],
          SOA,
        },
        'www.example.test': { CNAME: 'example.test' },
        'xn--bcher-kva.test': { A: [{ address: '192.0.2.7', ttl: 300 }] },
        // The system resolver writes this address with a dotted tail (`::255.255.1.39`).
        'tail.example.test': { AAAA: [{ address: '0:0:0:0:0:0:ffff:127', ttl: 300 }] },
      });
      server = await startTestServer({ dnsServers: [dns.address], lookupTimeoutMs: 1000 });
      key = await server.key();
    });

    afterEach(async () => {
      await server.close();
      await dns.close();
    });

    it('answers every record type with TTLs, and exists: true', async () => {
      const response = await server.get('/api/dns?domain=Example.TEST', key);
      expect(response.status).to.equal(200);
      const body = await response.json();
      expect(body).to.deep.equal({
        status: 'success',
        cached: false,
        data: {
          domain: 'example.test',
          exists: true,
          A: [
            { address: '93.184.216.34', ttl: 120 },
            { address: '93.184.216.35', ttl: 90 },
          ],
          AAAA: [{ address: '2606:2800:220:1:248:1893:25c8:1946', ttl: 300 }],
          MX: [
            { exchange: 'mx1.example.test', priority: 10 },
            { exchange: 'mx2.example.test', priority: 20 },
          ],
          NS: ['ns1.example.test', 'ns2.example.test'],
          TXT: ['v=spf1 -all', 'long chunked'],
          CNAME: [],
          SOA,
          CAA: [],
          // This server holds no DNSKEY, DS or root zone, and never sets AD.
          dnssec: { signed: false, validated: null },
          mail: { spf: 'v=spf1 -all', dmarc: null },
        },
      });
    });

    it('writes AAAA addresses as RFC 5952 says, whatever the resolver prints', async () => {
      const body = await (await server.get('/api/dns?domain=tail.example.test', key)).json();
      expect(body.data.AAAA).to.deep.equal([{ address: '::ffff:127', ttl: 300 }]);
    });

    it('answers a CNAME', async () => {
      const body = await (await server.get('/api/dns?domain=www.example.test', key)).json();
      expect(body.data.CNAME).to.deep.equal(['example.test']);
      expect(body.data.A.map((a: { address: string }) => a.address)).to.deep.equal(['93.184.216.34', '93.184.216.35']);
    });

    it('accepts an IDN in Unicode and answers in punycode', async () => {
      const body = await (await server.get(`/api/dns?domain=${encodeURIComponent('Bücher.test')}`, key)).json();
      expect(body.data.domain).to.equal('xn--bcher-kva.test');
      expect(body.data.A).to.deep.equal([{ address: '192.0.2.7', ttl: 300 }]);
    });

    it('answers a name that does not exist with exists: false and every type empty', async () => {
      const response = await server.get('/api/dns?domain=nothing.example.test', key);
      expect(response.status).to.equal(200);
      const { data } = await response.json();
      expect(data).to.deep.equal({
        domain: 'nothing.example.test',
        exists: false,
        A: [],
        AAAA: [],
        MX: [],
        NS: [],
        TXT: [],
        CNAME: [],
        SOA: null,
        CAA: [],
        dnssec: { signed: false, validated: null },
        mail: { spf: null, dmarc: null },
      });
    });

    it('serves a second lookup from the cache, without asking the server again', async () => {
      await server.get('/api/dns?domain=example.test', key);
      const asked = dns.questions;
      const second = await (await server.get('/api/dns?domain=example.test', key)).json();
      expect(second.cached).to.equal(true);
      expect(second.data.A).to.have.length(2);
      expect(dns.questions).to.equal(asked);
    });

    it('answers a cached lookup with the same JSON as the first, but for cached (the answer is serialized once)', async () => {
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const response = await server.get('/api/dns?domain=example.test', key);
        expect(response.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
        answers.push(await response.text());
      }
      const [first, second, third] = answers as [string, string, string];
      const parsed = JSON.parse(first) as { status: string; data: unknown; cached: boolean };
      expect(first).to.equal(JSON.stringify({ status: 'success', data: parsed.data, cached: false }));
      expect(second).to.equal(JSON.stringify({ status: 'success', data: parsed.data, cached: true }));
      expect(third).to.equal(second);
    });

    it('shares one upstream query among identical concurrent cold lookups', async () => {
      const bodies = await Promise.all(
        Array.from({ length: 20 }, () => server.get('/api/dns?domain=example.test', key).then((r) => r.json())),
      );
      expect(bodies.every((body) => body.status === 'success')).to.equal(true);
      // A, AAAA, MX, NS, TXT, CNAME, SOA; then CAA, SOA (DO), DNSKEY, DS, the root's SOA and _dmarc TXT.
      expect(dns.questions).to.equal(13);
    });

    it('asks a DNS server given by name (localhost:PORT)', async () => {
      const named = await startTestServer({ dnsServers: [`localhost:${dns.port}`], lookupTimeoutMs: 1000 });
      try {
        const response = await named.get('/api/dns?domain=example.test', await named.key());
        expect(response.status).to.equal(200);
        expect((await response.json()).data.NS).to.deep.equal(['ns1.example.test', 'ns2.example.test']);
      } finally {
        await named.close();
      }
    });

    it('answers 504 upstream_timeout within the deadline when the server never answers', async () => {
      dns.silent = true;
      const started = Date.now();
      const response = await server.get('/api/dns?domain=example.test', key);
      expect(response.status).to.equal(504);
      expect((await response.json()).code).to.equal('upstream_timeout');
      expect(Date.now() - started).to.be.below(3000);
    });
  });

  describe('GET /api/dns: CAA, mail and the message client, against a DNS server on loopback', () => {
    /** More CAA records than a 1232-byte UDP answer holds, so that the answer must come over TCP. */
    const MANY_CAA = Array.from({ length: 40 }, (_, i) => ({ flags: 0, tag: 'issue', value: `ca-${i}.example.net` }));
    let dns: TestDnsServer;
    let server: TestServer;
    let key: string;

    beforeEach(async () => {
      dns = await startDnsServer({
        'example.test': {
          SOA,
          TXT: [['v=spf1 ', 'include:_spf.example.test -all'], ['v=DMARC1; p=reject']],
          CAA: [
            { flags: 0, tag: 'issue', value: 'ca.example.net; account=42' },
            { flags: 0, tag: 'issuewild', value: ';' },
            { flags: 0, tag: 'iodef', value: 'mailto:security@example.test' },
            { flags: 128, tag: 'future', value: 'x' },
          ],
        },
        '_dmarc.example.test': { TXT: [['v=DMARC1; p=none; ', 'rua=mailto:d@example.test'], ['not dmarc']] },
        'alias.example.test': { CNAME: 'example.test' },
        'many.example.test': { CAA: MANY_CAA },
        'cdn.example.test': { CNAME: 'edge.other.test' },
        'other.test': { SOA: { ...SOA, nsname: 'ns1.other.test' } },
        'edge.other.test': { A: [{ address: '192.0.2.80' }] },
        'broken.example.test': { A: [{ address: '192.0.2.1' }] },
        '_dmarc.broken.example.test': { RCODE: 2 },
      });
      server = await startTestServer({ dnsServers: [dns.address], lookupTimeoutMs: 1000 });
      key = await server.key();
    });

    afterEach(async () => {
      await server.close();
      await dns.close();
    });

    const data = async (domain: string): Promise<Record<string, unknown>> => {
      const response = await server.get(`/api/dns?domain=${domain}`, key);
      expect(response.status).to.equal(200);
      return (await response.json()).data;
    };

    it('lists CAA records with their critical flag, tag and value, whatever the tag', async () => {
      expect((await data('example.test')).CAA).to.deep.equal([
        { critical: false, tag: 'issue', value: 'ca.example.net; account=42' },
        { critical: false, tag: 'issuewild', value: ';' },
        { critical: false, tag: 'iodef', value: 'mailto:security@example.test' },
        { critical: true, tag: 'future', value: 'x' },
      ]);
    });

    it("follows a CNAME to its target's CAA records, as the resolver does", async () => {
      expect((await data('alias.example.test')).CAA).to.have.length(4);
    });

    it('reads SPF from the TXT records of the domain and DMARC only from _dmarc.<domain>, joining character-strings', async () => {
      expect((await data('example.test')).mail).to.deep.equal({
        spf: 'v=spf1 include:_spf.example.test -all',
        dmarc: { policy: 'none', record: 'v=DMARC1; p=none; rua=mailto:d@example.test' },
      });
      expect(dns.received.some((q) => q.name === '_dmarc.example.test' && q.type === 'TXT')).to.equal(true);
    });

    it('answers mail: {spf: null, dmarc: null} for a domain with neither', async () => {
      expect((await data('many.example.test')).mail).to.deep.equal({ spf: null, dmarc: null });
    });

    it("finds the zone of a CNAME from its parent name, not from its target's zone; SOA null when the target has none", async () => {
      const answer = await data('cdn.example.test');
      expect(answer.CNAME).to.deep.equal(['edge.other.test']);
      expect(answer.SOA).to.equal(null);
      const dnskey = dns.received.filter((q) => q.type === 'DNSKEY').map((q) => q.name);
      expect(dnskey).to.deep.equal(['example.test']);
    });

    it('asks again over TCP when the UDP answer is truncated', async () => {
      expect((await data('many.example.test')).CAA).to.deep.equal(
        MANY_CAA.map(({ tag, value }) => ({ critical: false, tag, value })),
      );
      const caa = dns.received.filter((q) => q.name === 'many.example.test' && q.type === 'CAA');
      expect(caa.map((q) => q.transport)).to.deep.equal(['udp', 'tcp']);
    });

    it('answers 504 upstream_timeout when a truncated answer gets no answer over TCP', async () => {
      dns.silentOverTcp = true;
      const response = await server.get('/api/dns?domain=many.example.test', key);
      expect(response.status).to.equal(504);
      expect((await response.json()).code).to.equal('upstream_timeout');
    });

    it('takes a resolver that fails the question about the root as one that does not validate: validated null', async () => {
      // The validated: false case needs a signed root: test/integration/dnssec.test.ts.
      const validating = await startDnsServer({ 'example.test': { SOA }, '': { RCODE: 2 } }, { validating: true });
      const other = await startTestServer({ dnsServers: [validating.address], lookupTimeoutMs: 1000 });
      try {
        const response = await other.get('/api/dns?domain=example.test', await other.key());
        expect((await response.json()).data.dnssec).to.deep.equal({ signed: false, validated: null });
        expect(validating.received.some((q) => q.name === '' && q.type === 'SOA')).to.equal(true);
      } finally {
        await other.close();
        await validating.close();
      }
    });

    it('answers 502 upstream_error when the server fails one of the questions (SERVFAIL), and caches nothing', async () => {
      const response = await server.get('/api/dns?domain=broken.example.test', key);
      expect(response.status).to.equal(502);
      expect((await response.json()).code).to.equal('upstream_error');
      delete dns.zone['_dmarc.broken.example.test'];
      const again = await server.get('/api/dns?domain=broken.example.test', key);
      expect(again.status).to.equal(200);
      expect((await again.json()).cached).to.equal(false);
    });
  });
});
