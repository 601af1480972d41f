import { expect } from 'chai';
import { startDnsServer, type DnsZone, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { ldnsAvailable, mergeZones, signZone } from '../support/signed-zone.js';

const SIGNED = `$ORIGIN signed.test.
$TTL 300
@ IN SOA ns1.signed.test. hostmaster.signed.test. 2026112301 7200 3600 1209600 300
@ IN NS ns1.signed.test.
@ IN A 192.0.2.10
@ IN CAA 0 issue "letsencrypt.org"
@ IN CAA 128 tbs "Unknown"
@ IN TXT "v=spf1 ip4:192.0.2.0/24 -all"
@ IN TXT "site-verification=abc"
_dmarc IN TXT "v=DMARC1; p=reject; rua=mailto:dmarc@signed.test"
www IN CNAME signed.test.
mail IN A 192.0.2.11
`;

/** Signed as well, but its parent holds no DS for it: an island of trust, not a signed delegation. */
const ISLAND = `$ORIGIN island.test.
$TTL 300
@ IN SOA ns1.island.test. hostmaster.island.test. 1 7200 3600 1209600 300
@ IN NS ns1.island.test.
@ IN A 192.0.2.20
`;

/** An unsigned zone, served as is. */
const PLAIN: DnsZone = {
  'plain.test': {
    SOA: {
      nsname: 'ns1.plain.test',
      hostmaster: 'hostmaster.plain.test',
      serial: 1,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minttl: 300,
    },
    NS: ['ns1.plain.test'],
    A: [{ address: '192.0.2.30' }],
    TXT: [['v=spf1 -all']],
  },
  '_dmarc.plain.test': { TXT: [['v=DMARC1; p=quarantine']] },
};

/** The root (the trust anchor of a validating resolver): it delegates the three, with a DS for signed.test only. */
const root = (ds: string): string => `$ORIGIN .
$TTL 86400
. IN SOA a.root.test. hostmaster.root.test. 2026112301 1800 900 604800 86400
. IN NS a.root.test.
signed.test. IN NS ns1.signed.test.
${ds}
island.test. IN NS ns1.island.test.
plain.test. IN NS ns1.plain.test.
`;

eachAdapter(() => {
  describe('GET /api/dns: DNSSEC, against a resolver on loopback serving zones signed by ldns-signzone', () => {
    let zone: DnsZone;
    let dns: TestDnsServer;
    let server: TestServer;
    let key: string;

    before(async function () {
      if (!(await ldnsAvailable())) {
        console.log('    (skipped: ldns-keygen / ldns-signzone not found; install Debian package ldnsutils)');
        this.skip();
      }
      const signed = await signZone('signed.test', SIGNED);
      const island = await signZone('island.test', ISLAND);
      const rootZone = await signZone('', root(signed.ds));
      zone = mergeZones(rootZone.zone, signed.zone, island.zone, PLAIN);
    });

    beforeEach(async () => {
      dns = await startDnsServer(zone, { validating: true });
      server = await startTestServer({ dnsServers: [dns.address], lookupTimeoutMs: 2000 });
      key = await server.key();
    });

    afterEach(async () => {
      await server.close();
      await dns.close();
    });

    const lookup = async (domain: string, at: TestServer = server, withKey: string = key): Promise<Record<string, unknown>> => {
      const response = await at.get(`/api/dns?domain=${domain}`, withKey);
      expect(response.status).to.equal(200);
      return (await response.json()).data;
    };

    it('reports a signed zone with a DS in its parent, validated: CAA, dnssec and mail', async () => {
      const data = await lookup('signed.test');
      expect(data.CAA).to.deep.equal([
        { critical: false, tag: 'issue', value: 'letsencrypt.org' },
        { critical: true, tag: 'tbs', value: 'Unknown' },
      ]);
      expect(data.dnssec).to.deep.equal({ signed: true, validated: true });
      expect(data.mail).to.deep.equal({
        spf: 'v=spf1 ip4:192.0.2.0/24 -all',
        dmarc: { policy: 'reject', record: 'v=DMARC1; p=reject; rua=mailto:dmarc@signed.test' },
      });
    });

    it('asks for the DNSKEY and the DS records, with the DO bit, rather than inferring them', async () => {
      await lookup('signed.test');
      const asked = dns.received.filter((q) => q.name === 'signed.test' && (q.type === 'DNSKEY' || q.type === 'DS'));
      expect(asked.map((q) => q.type).sort()).to.deep.equal(['DNSKEY', 'DS']);
      expect(asked.every((q) => q.dnssecOk && q.authenticData)).to.equal(true);
    });

    it('describes the zone of a name inside it, of a CNAME, and of a name that does not exist', async () => {
      for (const domain of ['mail.signed.test', 'www.signed.test', 'nothing.signed.test']) {
        expect((await lookup(domain)).dnssec, domain).to.deep.equal({ signed: true, validated: true });
      }
      expect(dns.received.some((q) => q.name === 'www.signed.test' && q.type === 'DNSKEY')).to.equal(false);
    });

    it('does not call a zone signed when its parent has no DS for it, however many DNSKEYs it has', async () => {
      expect((await lookup('island.test')).dnssec).to.deep.equal({ signed: false, validated: false });
      expect(dns.received.some((q) => q.name === 'island.test' && q.type === 'DNSKEY')).to.equal(true);
    });

    it('reports an unsigned zone on a validating resolver as signed: false, validated: false', async () => {
      const data = await lookup('plain.test');
      expect(data.dnssec).to.deep.equal({ signed: false, validated: false });
      expect(data.mail).to.deep.equal({ spf: 'v=spf1 -all', dmarc: { policy: 'quarantine', record: 'v=DMARC1; p=quarantine' } });
    });

    it('answers 502 upstream_error when the validating resolver finds a record that no longer matches its signature', async () => {
      dns.zone = { ...zone, 'signed.test': { ...zone['signed.test'], A: [{ address: '192.0.2.99' }] } };
      const response = await server.get('/api/dns?domain=signed.test', key);
      expect(response.status).to.equal(502);
      expect((await response.json()).code).to.equal('upstream_error');
    });

    it('answers validated: null from a resolver that does not validate, signed as it is', async () => {
      const plain = await startDnsServer(zone, { validating: false });
      const other = await startTestServer({ dnsServers: [plain.address], lookupTimeoutMs: 2000 });
      try {
        const otherKey = await other.key();
        expect((await lookup('signed.test', other, otherKey)).dnssec).to.deep.equal({ signed: true, validated: null });
        expect((await lookup('plain.test', other, otherKey)).dnssec).to.deep.equal({ signed: false, validated: null });
        // It was asked whether it validates the root, the one zone every validating resolver can vouch for.
        expect(plain.received.some((q) => q.name === '' && q.type === 'SOA' && q.dnssecOk)).to.equal(true);
      } finally {
        await other.close();
        await plain.close();
      }
    });
  });
});
