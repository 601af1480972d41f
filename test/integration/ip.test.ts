import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAXMIND_TEST_DATA } from '../support/paths.js';
import { reverseName, startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { IP_CACHE_SECONDS, IpLookup } from '../../lib/lookup/ip/ip-lookup.js';
import { parseHostPort } from '../../lib/lookup/net/host-port.js';
import { systemDnsResolverFactory } from '../../lib/lookup/net/system-dns-resolver.js';
import { resolveOptions } from '../../lib/options.js';
import type { DnsResolver } from '../../lib/ports/dns-resolver.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { writeGeoipFixtures, type GeoipFixturePaths } from '../support/mmdb-writer.js';
import { until } from '../support/until.js';

/** Every field of an answer with nothing found. */
const NOTHING = {
  hostname: null,
  city: null,
  region: null,
  region_code: null,
  country: null,
  country_code: null,
  continent: null,
  continent_code: null,
  postal_code: null,
  latitude: null,
  longitude: null,
  accuracy_radius: null,
  timezone: null,
  asn: null,
  organization: null,
  isp: null,
  network: null,
};

const LONDON = {
  city: 'London',
  region: 'England',
  region_code: 'ENG',
  country: 'United Kingdom',
  country_code: 'GB',
  continent: 'Europe',
  continent_code: 'EU',
  postal_code: 'EC1A',
  latitude: 51.5142,
  longitude: -0.0931,
  accuracy_radius: 10,
  timezone: 'Europe/London',
  asn: 20712,
  organization: 'Andrews & Arnold Ltd',
  isp: null,
};

eachAdapter(() => {
  describe('GET /api/ip with fixture databases and a DNS server on loopback', () => {
    let fixtures: GeoipFixturePaths;
    let dns: TestDnsServer;
    let server: TestServer;
    let key: string;

    before(async () => {
      fixtures = await writeGeoipFixtures();
    });

    after(async () => {
      await rm(fixtures.dir, { recursive: true, force: true });
    });

    beforeEach(async () => {
      dns = await startDnsServer({
        [reverseName('81.2.69.142')]: { PTR: ['host142.andrews-arnold.test', 'other.andrews-arnold.test'] },
        [reverseName('2a02:cf40::1')]: { PTR: ['v6.nordic.test'] },
        [reverseName('10.1.2.3')]: { PTR: ['private.test'] },
      });
      server = await startTestServer({
        dnsServers: [dns.address],
        geoipCity: fixtures.city,
        geoipAsn: fixtures.asn,
        lookupTimeoutMs: 1000,
      });
      key = await server.key();
    });

    afterEach(async () => {
      await server.close();
      await dns.close();
    });

    const lookup = async (ip: string): Promise<{ status: number; body: { data: Record<string, unknown>; cached: boolean } }> => {
      const response = await server.get(`/api/ip?ip=${encodeURIComponent(ip)}`, key);
      return { status: response.status, body: (await response.json()) as { data: Record<string, unknown>; cached: boolean } };
    };

    it('answers a public IPv4 address from both databases, with its first PTR name', async () => {
      const { status, body } = await lookup('81.2.69.142');
      expect(status).to.equal(200);
      expect(body).to.deep.equal({
        status: 'success',
        cached: false,
        data: {
          ip: '81.2.69.142',
          version: 4,
          hostname: 'host142.andrews-arnold.test',
          is_private: false,
          ...LONDON,
          network: '81.2.68.0/23',
        },
      });
    });

    it('answers a public IPv6 address, with the network of the ASN database', async () => {
      const { body } = await lookup('2a02:cf40::1');
      expect(body.data).to.deep.equal({
        ...NOTHING,
        ip: '2a02:cf40::1',
        version: 6,
        hostname: 'v6.nordic.test',
        is_private: false,
        country: 'Norway',
        country_code: 'NO',
        continent: 'Europe',
        continent_code: 'EU',
        latitude: 62,
        longitude: 10,
        accuracy_radius: 100,
        timezone: 'Europe/Oslo',
        asn: 198411,
        organization: 'Nordic Test Net AS',
        network: '2a02:cf40::/32',
      });
    });

    it('takes the network of the City database when the ASN database has none', async () => {
      const { body } = await lookup('175.16.199.7');
      expect(body.data).to.include({ city: 'Changchun', region_code: '22', asn: null, network: '175.16.199.0/24' });
    });

    it('answers IPv6 in canonical form, and caches it under that form', async () => {
      const first = await lookup('2A02:CF40:0000:0:0:0:0:1');
      expect(first.body.data.ip).to.equal('2a02:cf40::1');
      expect(first.body.cached).to.equal(false);
      const asked = dns.questions;
      const second = await lookup('2a02:cf40::0:1');
      expect(second.body.cached).to.equal(true);
      expect(second.body.data.ip).to.equal('2a02:cf40::1');
      expect(dns.questions).to.equal(asked);
    });

    it('keeps an IPv4-mapped address as IPv6 and locates the IPv4 address it carries', async () => {
      const { body } = await lookup('::FFFF:5102:458E');
      expect(body.data).to.include({
        ip: '::ffff:81.2.69.142',
        version: 6,
        is_private: false,
        hostname: 'host142.andrews-arnold.test',
        city: 'London',
        asn: 20712,
      });
      expect(body.data.network).to.equal('::ffff:81.2.68.0/119');
    });

    it('answers null fields for an address outside every network and without a PTR name', async () => {
      const { status, body } = await lookup('9.9.9.9');
      expect(status).to.equal(200);
      expect(body.data).to.deep.equal({ ...NOTHING, ip: '9.9.9.9', version: 4, is_private: false });
    });

    for (const [ip, network] of [
      ['10.1.2.3', '10.0.0.0/8'],
      ['127.0.0.1', '127.0.0.0/8'],
      ['169.254.169.254', '169.254.169.254/32'],
      ['169.254.1.1', '169.254.0.0/16'],
      ['100.64.1.1', '100.64.0.0/10'],
      ['::1', '::1/128'],
      ['fd00::1', 'fc00::/7'],
      ['::ffff:192.168.1.1', '::ffff:192.168.0.0/112'],
      ['64:ff9b::a01:203', '64:ff9b::a00:0/104'],
      ['64:ff9b:1::808:808', '64:ff9b:1::/48'],
      ['168.63.129.16', '168.63.129.16/32'],
      ['::ffff:168.63.129.16', '::ffff:168.63.129.16/128'],
    ]) {
      it(`answers the private or reserved address ${ip} without asking the DNS server`, async () => {
        const { status, body } = await lookup(ip!);
        expect(status).to.equal(200);
        expect(body.data).to.include({ is_private: true, hostname: null, network, city: null });
        expect(dns.questions).to.equal(0);
      });
    }

    it('answers with hostname null, and does not fail, when the DNS server never answers', async () => {
      dns.silent = true;
      const { status, body } = await lookup('81.2.69.142');
      expect(status).to.equal(200);
      expect(body.data).to.include({ hostname: null, city: 'London' });
      expect(dns.questions).to.be.above(0);
    });

    it('refuses bad ip values with 400 invalid_ip, without counting them', async () => {
      const first = await server.get('/api/ip?ip=9.9.9.9', key);
      const remaining = first.headers.get('X-RateLimit-Remaining');
      expect(remaining).to.equal('999');
      const bad = [
        '',
        'ip=',
        'ip=127.1',
        'ip=0x7f.0.0.1',
        'ip=0177.0.0.1',
        'ip=010.1.1.1',
        'ip=8.8.8.8:53',
        'ip=fe80::1%25eth0',
        'ip=%5B2001:db8::1%5D',
        'ip=%5B2001:db8::1%5D:443',
        'ip=8.8.8.0/24',
        'ip=http://8.8.8.8/',
        'ip=example.com',
        'ip=%208.8.8.8',
        'ip=8.8.8.8%0A',
        'ip=8.8.8.8%00',
        'ip=%EF%BC%98.8.8.8',
        'ip=1::2::3',
        `ip=${'1'.repeat(254)}`,
        'ip=8.8.8.8&ip=1.1.1.1',
      ];
      for (const query of bad) {
        const response = await server.get(`/api/ip?${query}`, key);
        const body = (await response.json()) as { status: string; code: string; message: string };
        expect(response.status, query).to.equal(400);
        expect(body.status).to.equal('error');
        expect(body.code, query).to.equal('invalid_ip');
        expect(body.message, query).to.match(/^[A-Z].+\.$/);
        expect(response.headers.get('X-RateLimit-Remaining'), query).to.equal(remaining);
      }
    });
  });

  describe('IpLookup cache time', () => {
    let dns: TestDnsServer;

    beforeEach(async () => {
      dns = await startDnsServer({ [reverseName('81.2.69.142')]: { PTR: ['host142.andrews-arnold.test'] } });
    });

    afterEach(async () => {
      await dns.close();
    });

    const ipLookup = (lookupTimeoutMs: number): IpLookup => {
      const options = resolveOptions({ store: 'memory://', dnsServers: [dns.address], lookupTimeoutMs });
      const createResolver = systemDnsResolverFactory([parseHostPort(dns.address, 53)!], options.lookupTimeoutMs);
      return new IpLookup({ ...options, createResolver }, { timeoutMs: options.lookupTimeoutMs });
    };

    it(`caches an answer ${IP_CACHE_SECONDS.answer} s, or ${IP_CACHE_SECONDS.dnsFailed} s when reverse DNS failed`, async () => {
      // Answers that must come in time get a deadline far from them; the one that must see it fire, a
      // silent server (the question hangs) and a short one.
      const lookup = ipLookup(10_000);
      const answered = await lookup.run('81.2.69.142', new AbortController().signal);
      expect(answered).to.deep.include({ ttlSeconds: IP_CACHE_SECONDS.answer });
      expect(answered.data.hostname).to.equal('host142.andrews-arnold.test');
      expect((await lookup.run('9.9.9.9', new AbortController().signal)).ttlSeconds).to.equal(IP_CACHE_SECONDS.answer);
      dns.silent = true;
      const failed = await ipLookup(400).run('81.2.69.142', new AbortController().signal);
      expect(failed.ttlSeconds).to.equal(IP_CACHE_SECONDS.dnsFailed);
      expect(failed.data.hostname).to.equal(null);
    });

    it('cancels the reverse-DNS question when the lookup is aborted, and answers hostname null', async function () {
      dns.silent = true;
      // A deadline far beyond the test's own timeout: only the abort can end the question in time.
      this.timeout(10_000);
      const options = resolveOptions({ store: 'memory://', dnsServers: [dns.address], lookupTimeoutMs: 120_000 });
      const system = systemDnsResolverFactory([parseHostPort(dns.address, 53)!], options.lookupTimeoutMs);
      let cancelled = 0;
      const createResolver = (): DnsResolver => {
        const resolver = system();
        return Object.assign(Object.create(resolver) as DnsResolver, {
          reverse: (ip: string) => resolver.reverse(ip),
          cancel: () => {
            cancelled += 1;
            resolver.cancel();
          },
        });
      };
      const controller = new AbortController();
      const pending = new IpLookup({ ...options, createResolver }, { timeoutMs: options.lookupTimeoutMs }).run(
        '81.2.69.142',
        controller.signal,
      );
      await until(() => dns.questions > 0, 'the DNS server was asked');
      expect(dns.questions).to.equal(1);
      expect(cancelled).to.equal(0);
      controller.abort();
      const { data, ttlSeconds } = await pending;
      expect(cancelled).to.equal(1);
      expect(data.hostname).to.equal(null);
      expect(ttlSeconds).to.equal(IP_CACHE_SECONDS.dnsFailed);
    });
  });

  describe('GET /api/ip without databases', () => {
    let dns: TestDnsServer;
    let server: TestServer;

    beforeEach(async () => {
      dns = await startDnsServer({ [reverseName('81.2.69.142')]: { PTR: ['host142.andrews-arnold.test'] } });
      server = await startTestServer({ dnsServers: [dns.address], lookupTimeoutMs: 1000 });
    });

    afterEach(async () => {
      await server.close();
      await dns.close();
    });

    it('still answers hostname, is_private and network, with location fields null', async () => {
      const key = await server.key();
      const pub = await (await server.get('/api/ip?ip=81.2.69.142', key)).json();
      expect(pub.data).to.deep.equal({
        ...NOTHING,
        ip: '81.2.69.142',
        version: 4,
        is_private: false,
        hostname: 'host142.andrews-arnold.test',
      });
      const priv = await (await server.get('/api/ip?ip=192.168.7.7', key)).json();
      expect(priv.data).to.deep.equal({ ...NOTHING, ip: '192.168.7.7', version: 4, is_private: true, network: '192.168.0.0/16' });
    });
  });

  describe('GET /api/ip with a database file that is missing or damaged', () => {
    const broken = join(MAXMIND_TEST_DATA, 'GeoIP2-City-Test-Broken-Double-Format.mmdb');

    const expectUpstreamError = async (server: TestServer): Promise<void> => {
      const key = await server.key();
      const response = await server.get('/api/ip?ip=10.0.0.1', key);
      const body = await response.json();
      expect(response.status).to.equal(502);
      expect(body.code).to.equal('upstream_error');
      expect(body.message).not.to.include('/');
      expect((await server.get('/api/ip?ip=10.0.0.1', key)).status).to.equal(502);
      expect((await server.get('/api/ip?ip=', key)).status).to.equal(400);
    };

    it('answers 502 upstream_error, without the path, for a City file removed after start-up, and keeps serving', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dossier-gone-'));
      const path = join(dir, 'city.mmdb');
      await writeFile(path, 'placeholder');
      const server = await startTestServer({ geoipCity: path });
      try {
        await rm(dir, { recursive: true, force: true });
        await expectUpstreamError(server);
      } finally {
        await server.close();
      }
    });

    it("answers 502 upstream_error for MaxMind's broken test database (doubles of the wrong size)", async () => {
      const server = await startTestServer({ geoipCity: broken });
      try {
        await expectUpstreamError(server);
      } finally {
        await server.close();
      }
    });
  });

  /** MaxMind's own test databases and the JSON they were built from. */
  describe("GET /api/ip against MaxMind's test databases", () => {
    const dir = MAXMIND_TEST_DATA;
    let dns: TestDnsServer | undefined;
    let server: TestServer;
    let key: string;
    let cityJson: Record<string, Record<string, unknown>>[];
    let asnJson: Record<string, Record<string, unknown>>[];

    before(async () => {
      cityJson = JSON.parse(await readFile(join(dir, 'GeoIP2-City-Test.json'), 'utf8')) as typeof cityJson;
      asnJson = JSON.parse(await readFile(join(dir, 'GeoLite2-ASN-Test.json'), 'utf8')) as typeof asnJson;
      // No address of these databases has a PTR name: a DNS server that answers NXDOMAIN to everything.
      dns = await startDnsServer({});
      server = await startTestServer({
        geoipCity: join(dir, 'GeoIP2-City-Test.mmdb'),
        geoipAsn: join(dir, 'GeoLite2-ASN-Test.mmdb'),
        dnsServers: [dns.address],
        lookupTimeoutMs: 1000,
      });
      key = await server.key();
    });

    after(async () => {
      await server?.close();
      await dns?.close();
    });

    /** The record of the most specific network of `source` holding `ip`, and that network. */
    const expected = (source: Record<string, Record<string, unknown>>[], ip: string): [Record<string, unknown>, string] => {
      // The JSON writes some IPv4 networks as IPv6 at ::/96 (`::81.2.69.142/127`): compare in IPv6 space.
      const asV6 = (text: string): ipaddr.IPv6 => (text.includes(':') ? ipaddr.IPv6.parse(text) : ipaddr.IPv6.parse(`::${text}`));
      const address = asV6(ip);
      let best: [Record<string, unknown>, string, number] | undefined;
      for (const entry of source) {
        for (const [cidr, record] of Object.entries(entry)) {
          const [network, length = ''] = cidr.split('/');
          const bits = Number(length) + (network!.includes(':') ? 0 : 96);
          if (!address.match(asV6(network!), bits)) continue;
          if (best === undefined || bits > best[2]) best = [record, cidr, bits];
        }
      }
      if (best === undefined) throw new Error(`${ip} is in no network of the JSON`);
      return [best[0], best[1]];
    };
    const en = (value: unknown): unknown => (value as { names?: { en?: string } } | undefined)?.names?.en ?? null;

    for (const ip of ['81.2.69.142', '2.125.160.216', '89.160.20.112', '216.160.83.56', '2001:218::1']) {
      it(`gives the City values of the source JSON for ${ip}`, async () => {
        const { data } = await (await server.get(`/api/ip?ip=${ip}`, key)).json();
        const [record] = expected(cityJson, ip);
        const location = (record.location ?? {}) as Record<string, unknown>;
        const subdivision = ((record.subdivisions ?? []) as Record<string, unknown>[])[0];
        expect(data).to.include({
          city: en(record.city),
          country: en(record.country),
          country_code: (record.country as { iso_code?: string } | undefined)?.iso_code ?? null,
          continent: en(record.continent),
          continent_code: (record.continent as { code?: string } | undefined)?.code ?? null,
          region: en(subdivision),
          region_code: (subdivision?.iso_code as string | undefined) ?? null,
          postal_code: (record.postal as { code?: string } | undefined)?.code ?? null,
          latitude: location.latitude ?? null,
          longitude: location.longitude ?? null,
          accuracy_radius: location.accuracy_radius ?? null,
          timezone: location.time_zone ?? null,
        });
        expect(data.city ?? data.country).to.be.a('string');
      });
    }

    for (const ip of ['1.128.0.0', '1.0.0.1', '12.81.92.7', '2600:6000::1']) {
      it(`gives the ASN values and network of the source JSON for ${ip}`, async () => {
        const { data } = await (await server.get(`/api/ip?ip=${ip}`, key)).json();
        const [record, cidr] = expected(asnJson, ip);
        expect(data).to.include({
          asn: record.autonomous_system_number,
          organization: record.autonomous_system_organization ?? null,
          isp: null,
          network: cidr,
        });
      });
    }

    it('takes isp from a GeoIP2-ISP database given as the ASN database', async function () {
      const isp = await startTestServer({ geoipAsn: join(dir, 'GeoIP2-ISP-Test.mmdb'), dnsServers: [dns!.address] });
      try {
        const { data } = await (await isp.get('/api/ip?ip=1.128.0.0', await isp.key())).json();
        expect(data).to.include({ asn: 1221, organization: 'Telstra Pty Ltd', isp: 'Telstra Internet', network: '1.128.0.0/11' });
      } finally {
        await isp.close();
      }
    });
  });
});
