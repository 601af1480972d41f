import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DossierError } from '../../lib/errors.js';
import type { DnsResolver } from '../../lib/ports/dns-resolver.js';
import { systemDnsResolverFactory } from '../../lib/lookup/net/system-dns-resolver.js';
import { RangeTargetGuard } from '../../lib/lookup/net/target-guard.js';
import { WhoisLookup } from '../../lib/lookup/whois/whois-lookup.js';
import { parseHostPort, type HostPort } from '../../lib/lookup/net/host-port.js';
import { TLD_SERVER_CACHE, TldWhoisServers } from '../../lib/lookup/whois/tld-servers.js';
import type { Reach } from '../../lib/lookup/net/reach.js';
import type { DossierOptions } from '../../lib/options.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { until } from '../support/until.js';
import { whoisLookupOnLoopback } from '../support/whois-lookup.js';
import { WHOIS_CORPUS } from '../support/whois-corpus.js';
import { RDAP_NOT_FOUND, rdapDomain, startRdapServer, type RdapReply, type TestRdapServer } from '../support/rdap-server.js';
import {
  closedPort,
  registrarWhois,
  startWhoisServer,
  verisignNoMatch,
  verisignWhois,
  type TestWhoisServer,
} from '../support/whois-server.js';

const DOMAIN = 'example.com';

/** The answer for a registered domain whose registry gave everything (Verisign fixture). */
const REGISTRY_FACTS = {
  domain: DOMAIN,
  registered: true,
  registrar: 'MarkMonitor Inc.',
  registrar_url: 'http://www.markmonitor.com',
  registrar_iana_id: '292',
  registrar_abuse_email: 'abusecomplaints@markmonitor.com',
  registrant: { organization: null, country_code: null },
  created_at: '1997-09-15T04:00:00.000Z',
  updated_at: '2019-09-09T15:39:04.000Z',
  expires_at: '2028-09-14T04:00:00.000Z',
  name_servers: ['ns1.example.com', 'ns2.example.com'],
  status: ['clientDeleteProhibited', 'clientTransferProhibited', 'serverUpdateProhibited'],
  dnssec: false,
};

/** What the registrar's answer ({@link registrarWhois}) adds about the registrant. */
const REGISTRANT = { registrant: { organization: 'Example Holdings LLC', country_code: 'US' } };

/** The fields that are null in the answer for a domain no one holds. */
const NULL_FIELDS = [
  'registrar',
  'registrar_url',
  'registrar_iana_id',
  'registrar_abuse_email',
  'created_at',
  'updated_at',
  'expires_at',
  'dnssec',
];

/** The answer for a domain no one holds, but for its domain, whois_server, source and raw. */
const UNREGISTERED = {
  registered: false,
  ...Object.fromEntries(NULL_FIELDS.map((field) => [field, null])),
  registrant: { organization: null, country_code: null },
  name_servers: [],
  status: [],
};

eachAdapter(() => {
  describe('GET /api/whois against RDAP and whois servers on loopback', function () {
    let dns: TestDnsServer;
    /** The registry's whois server (the operator's DOSSIER_WHOIS_SERVER). */
    let registry: TestWhoisServer;
    /** The registrar's whois server, reached by referral as whois.registrar.test:PORT. */
    let registrar: TestWhoisServer;
    /** The registry's RDAP server (the operator's DOSSIER_RDAP_URL). */
    let rdap: TestRdapServer;
    /** The registrar's RDAP server, reached by a `related` link to rdap.registrar.test:PORT. */
    let registrarRdap: TestRdapServer;
    let server: TestServer | undefined;
    let key: string;

    const referralTo = (port: number, host = 'whois.registrar.test'): string => `${host}:${port}`;
    const relatedTo = (port: number, host = 'rdap.registrar.test'): string => `http://${host}:${port}/domain/${DOMAIN}`;

    /** Serves a Dossier asking the loopback servers; loopback is allowed unless the test says otherwise. */
    async function start(options: DossierOptions = {}): Promise<TestServer> {
      server = await startTestServer({
        dnsServers: [dns.address],
        whoisServer: registry.address,
        rdapUrl: `${rdap.url}/rdap/`,
        allowPrivateTargets: true,
        lookupTimeoutMs: 2000,
        ...options,
      });
      key = await server.key();
      return server;
    }

    async function whois(
      domain: string,
    ): Promise<{ status: number; body: Record<string, unknown> & { data: Record<string, unknown> } }> {
      const response = await server!.get(`/api/whois?domain=${encodeURIComponent(domain)}`, key);
      return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
    }

    beforeEach(async () => {
      dns = await startDnsServer({
        'whois.registrar.test': { A: [{ address: '127.0.0.1' }] },
        'rdap.registrar.test': { A: [{ address: '127.0.0.1' }] },
        'whois.metadata.test': { A: [{ address: '169.254.169.254' }] },
      });
      registrar = await startWhoisServer((query) => (query === DOMAIN ? registrarWhois({ domain: DOMAIN }) : 'No match\r\n'));
      registry = await startWhoisServer((query) =>
        query === DOMAIN ? verisignWhois({ domain: DOMAIN, registrarWhois: referralTo(registrar.port) }) : verisignNoMatch(query),
      );
      registrarRdap = await startRdapServer(() => ({
        body: rdapDomain({
          domain: DOMAIN,
          registrar: 'MarkMonitor, Inc.',
          registrarUrl: 'http://www.markmonitor.com',
          port43: 'whois.markmonitor.com',
        }),
      }));
      rdap = await startRdapServer((path) =>
        path === `/rdap/domain/${DOMAIN}`
          ? { body: rdapDomain({ domain: DOMAIN, related: relatedTo(registrarRdap.port) }) }
          : RDAP_NOT_FOUND,
      );
    });

    afterEach(async () => {
      await server?.close();
      server = undefined;
      await Promise.all([dns.close(), registry.close(), registrar.close(), rdap.close(), registrarRdap.close()]);
    });

    describe('RDAP', () => {
      it('answers from the registry RDAP, completed by the registrar RDAP it links to', async () => {
        await start();
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(200);
        expect(body.status).to.equal('success');
        expect(body.cached).to.equal(false);
        const { raw, ...data } = body.data;
        expect(data).to.deep.equal({ ...REGISTRY_FACTS, whois_server: 'whois.markmonitor.com', source: 'rdap' });
        expect(JSON.parse(raw as string)).to.deep.equal(rdapDomain({ domain: DOMAIN, related: relatedTo(registrarRdap.port) }));
        expect(rdap.requests.map((r) => r.path)).to.deep.equal([`/rdap/domain/${DOMAIN}`]);
        expect(rdap.requests[0]!.accept).to.contain('application/rdap+json');
        // rdap.registrar.test exists only in the loopback DNS server, so the system resolver could not have
        // found it: the socket went to the address Dossier resolved and checked, the name kept for Host.
        expect(registrarRdap.requests.map((r) => r.host)).to.deep.equal([`rdap.registrar.test:${registrarRdap.port}`]);
        expect(registry.queries).to.deep.equal([]);
      });

      it("fills docs/contract.md §10's fields from RDAP: the registrant's vCard, the registrar's abuse contact and expiration, RFC 9537 redactions", async () => {
        const answer = (redacted: boolean): Record<string, unknown> => {
          const object = rdapDomain({ domain: DOMAIN });
          (object.entities as unknown[]).push({
            objectClassName: 'entity',
            roles: ['registrant'],
            vcardArray: [
              'vcard',
              [
                ['version', {}, 'text', '4.0'],
                ['fn', {}, 'text', ''],
                ['org', {}, 'text', 'Example Holdings LLC'],
                ['adr', {}, 'text', ['', '', '', 'Seoul', '', '', 'Korea, Republic of']],
              ],
            ],
          });
          object.events = [{ eventAction: 'registrar expiration', eventDate: '2030-01-02T03:04:05Z' }];
          object.status = ['CLIENT TRANSFER PROHIBITED', 'active'];
          if (redacted) object.redacted = [{ name: { type: 'Registrant Organization' }, method: 'removal' }];
          return object;
        };
        rdap.reply = (path) => ({ body: answer(path.includes('redacted')) });
        await start();
        const { body } = await whois(DOMAIN);
        expect(body.data).to.include({
          registrar_abuse_email: 'abusecomplaints@markmonitor.com',
          expires_at: '2030-01-02T03:04:05.000Z',
          source: 'rdap',
        });
        expect(body.data.registrant).to.deep.equal({ organization: 'Example Holdings LLC', country_code: 'KR' });
        expect(body.data.status).to.deep.equal(['clientTransferProhibited', 'ok']);
        const { body: withheld } = await whois('redacted.com');
        expect(withheld.data.registrant).to.deep.equal({ organization: null, country_code: 'KR' });
      });

      it('takes the registrar name, URL and IANA id from the registrar RDAP when the registry has no registrar entity', async () => {
        rdap.reply = () => ({
          body: rdapDomain({ domain: DOMAIN, related: relatedTo(registrarRdap.port), withoutRegistrar: true }),
        });
        await start();
        const { body } = await whois(DOMAIN);
        expect(body.data).to.include({
          registrar: 'MarkMonitor, Inc.',
          registrar_url: 'http://www.markmonitor.com',
          registrar_iana_id: '292',
        });
      });

      it('answers registered: false for an RDAP 404, without asking whois', async () => {
        await start();
        const { status, body } = await whois('free.com');
        expect(status).to.equal(200);
        const { raw, ...data } = body.data;
        expect(data).to.deep.equal({ domain: 'free.com', ...UNREGISTERED, whois_server: null, source: 'rdap' });
        expect(JSON.parse(raw as string)).to.have.property('errorCode', 404);
        expect(registry.queries).to.deep.equal([]);
      });

      it('follows a redirect of the RDAP server to another host, resolved by Dossier', async () => {
        rdap.reply = () => ({ status: 302, body: '', headers: { location: relatedTo(registrarRdap.port) } });
        await start();
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(200);
        expect(body.data).to.include({ source: 'rdap', registrar: 'MarkMonitor, Inc.', whois_server: 'whois.markmonitor.com' });
        expect(registrarRdap.requests.map((r) => r.host)).to.deep.equal([`rdap.registrar.test:${registrarRdap.port}`]);
      });

      it('reads dnssec: true from secureDNS.delegationSigned', async () => {
        rdap.reply = () => ({ body: rdapDomain({ domain: DOMAIN, signed: true }) });
        await start();
        expect((await whois(DOMAIN)).body.data.dnssec).to.equal(true);
      });

      for (const [name, reply] of [
        ['malformed JSON', { body: '{"objectClassName":"domain", "ldhName": ' }],
        ['an HTTP 500', { status: 500, body: { errorCode: 500, title: 'Internal Server Error' } }],
        ['an answer that is not a domain object', { body: { objectClassName: 'entity', handle: 'X' } }],
        ['an answer that never ends (cut off at the byte cap)', { endless: true as const }],
      ] as const) {
        it(`falls back to whois when RDAP answers ${name}`, async () => {
          rdap.reply = () => reply;
          await start();
          const { status, body } = await whois(DOMAIN);
          expect(status).to.equal(200);
          expect(body.data).to.include({
            source: 'whois',
            registrar: 'MarkMonitor Inc.',
            created_at: '1997-09-15T04:00:00.000Z',
          });
          expect(registry.queries).to.deep.equal([DOMAIN]);
          await rdap.idle();
        });
      }

      it('falls back to whois when the RDAP server never answers, within the deadline', async () => {
        rdap.reply = () => ({ silent: true });
        await start();
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(200);
        expect(body.data.source).to.equal('whois');
        await rdap.idle();
      });

      for (const [name, related] of [
        ['is unreachable', async () => relatedTo(await closedPort())],
        ['never answers', async () => ((registrarRdap.reply = () => ({ silent: true })), relatedTo(registrarRdap.port))],
        [
          'answers garbage',
          async () => ((registrarRdap.reply = () => ({ body: '<html>oops</html>' })), relatedTo(registrarRdap.port)),
        ],
        ['answers 404', async () => ((registrarRdap.reply = () => RDAP_NOT_FOUND), relatedTo(registrarRdap.port))],
        ['has no address', async () => relatedTo(registrarRdap.port, 'nowhere.registrar.test')],
      ] as const) {
        it(`answers with the registry RDAP data when the registrar RDAP ${name}`, async () => {
          const link = await related();
          rdap.reply = () => ({ body: rdapDomain({ domain: DOMAIN, related: link, port43: 'whois.verisign-grs.com' }) });
          await start();
          const { status, body } = await whois(DOMAIN);
          expect(status).to.equal(200);
          const { raw, ...data } = body.data;
          expect(data).to.deep.equal({
            ...REGISTRY_FACTS,
            registrar_url: null,
            whois_server: 'whois.verisign-grs.com',
            source: 'rdap',
          });
          expect(raw).to.be.a('string');
          await registrarRdap.idle();
        });
      }
    });

    describe('whois (port 43)', () => {
      it('follows the Registrar WHOIS Server referral: the registry answers, the registrar completes', async () => {
        registry.reply = (query) => verisignWhois({ domain: query, registrarWhois: referralTo(registrar.port), thin: true });
        rdap.reply = () => ({ status: 503, body: 'down' });
        await start();
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(200);
        const { raw, ...data } = body.data;
        // The registry's answer has no registrant; the registrar's does (docs/contract.md §10's registrant fields).
        expect(data).to.deep.equal({ ...REGISTRY_FACTS, ...REGISTRANT, whois_server: 'whois.markmonitor.com', source: 'whois' });
        expect(registry.queries).to.deep.equal([DOMAIN]);
        expect(registrar.queries).to.deep.equal([DOMAIN]);
        expect(raw).to.contain('Domain Name: EXAMPLE.COM').and.to.contain('Registrant Organization: Example Holdings LLC');
      });

      it('keeps the registry data over the registrar where both speak, and answers every field', async () => {
        registrar.reply = () =>
          registrarWhois({ domain: DOMAIN, registrar: 'Some Other Registrar', registrarWhois: referralTo(registrar.port) });
        rdap.reply = () => ({ status: 500, body: '' });
        await start();
        const { body } = await whois(DOMAIN);
        const { raw, ...data } = body.data;
        expect(data).to.deep.equal({
          ...REGISTRY_FACTS,
          ...REGISTRANT,
          whois_server: referralTo(registrar.port),
          source: 'whois',
        });
        expect(raw).to.be.a('string');
      });

      for (const [name, referral] of [
        ['is unreachable (connection refused)', async () => referralTo(await closedPort())],
        ['accepts and never answers', async () => ((registrar.reply = () => ({ silent: true })), referralTo(registrar.port))],
        ['answers garbage', async () => ((registrar.reply = () => ({ garbage: true })), referralTo(registrar.port))],
        [
          'answers "No match"',
          async () => ((registrar.reply = () => 'No match for domain "EXAMPLE.COM".\r\n'), referralTo(registrar.port)),
        ],
        ['never stops talking', async () => ((registrar.reply = () => ({ endless: true })), referralTo(registrar.port))],
        ['names a privileged port other than 43', async () => referralTo(25)],
        ['is not a host name', async () => 'not a host!'],
      ] as const) {
        it(`answers with the registry data when the registrar's whois server ${name}`, async () => {
          const target = await referral();
          const text = verisignWhois({ domain: DOMAIN, registrarWhois: target });
          registry.reply = () => text;
          rdap.reply = () => ({ status: 500, body: '' });
          await start({ lookupTimeoutMs: 1500 });
          const { status, body } = await whois(DOMAIN);
          expect(status).to.equal(200);
          const { raw, whois_server: _, ...data } = body.data;
          expect(data).to.deep.equal({ ...REGISTRY_FACTS, source: 'whois' });
          expect(raw).to.equal(text);
          await registrar.idle();
        });
      }

      it('answers registered: false for "No match" from the whois server set alone, without RDAP nor any DNS question', async () => {
        // DOSSIER_WHOIS_SERVER without DOSSIER_RDAP_URL: no RDAP bootstrap download (whose host the
        // loopback DNS server would be asked about), only the configured whois server.
        await start({ rdapUrl: undefined });
        const { status, body } = await whois('nobody-holds-this.com');
        expect(status).to.equal(200);
        expect(body.data).to.deep.equal({
          domain: 'nobody-holds-this.com',
          ...UNREGISTERED,
          whois_server: '127.0.0.1',
          source: 'whois',
          raw: verisignNoMatch('nobody-holds-this.com'),
        });
        expect(registry.queries).to.deep.equal(['nobody-holds-this.com']);
        expect(dns.questions).to.equal(0);
        expect(rdap.requests).to.deep.equal([]);
      });

      for (const text of [
        'NOT FOUND\n',
        'No Data Found\r\n\r\n>>> Last update of WHOIS database: 2026-01-15T10:00:00Z <<<\r\n',
        '%% NOT FOUND\n',
        'Domain not found.\n\nTerms of Use: ...\n',
        '% No entries found for the selected source(s).\n',
        'The queried object does not exist: DOMAIN NOT FOUND\n',
      ]) {
        it(`answers registered: false for ${JSON.stringify(text.split(/\r?\n/)[0])}`, async () => {
          registry.reply = () => text;
          rdap.reply = () => ({ status: 500, body: '' });
          await start();
          const { status, body } = await whois('free.org');
          expect(status).to.equal(200);
          expect(body.data).to.include({ registered: false, source: 'whois', raw: text });
        });
      }

      it('answers 502 upstream_error when the registry says nothing about the domain', async () => {
        registry.reply = () => 'Your connection limit exceeded. Please slow down and try again later.\r\n';
        rdap.reply = () => ({ status: 500, body: '' });
        await start();
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(502);
        expect(body.code).to.equal('upstream_error');
      });

      it('cuts off a whois server that never stops talking: 502 upstream_error, connection closed', async () => {
        registry.reply = () => ({ endless: true });
        rdap.reply = () => ({ status: 500, body: '' });
        await start({ lookupTimeoutMs: 5000 });
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(502);
        expect(body.code).to.equal('upstream_error');
        expect(body.message).to.match(/cut off/);
        await registry.idle();
      });

      it('answers 504 upstream_timeout within the deadline when no server answers, and leaves no socket open', async () => {
        registry.reply = () => ({ silent: true });
        rdap.reply = () => ({ silent: true });
        await start({ lookupTimeoutMs: 1000 });
        const started = Date.now();
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(504);
        expect(body.code).to.equal('upstream_timeout');
        expect(Date.now() - started).to.be.below(3000);
        await Promise.all([registry.idle(), rdap.idle()]);
      });

      it('answers 502 upstream_error when the registry whois server refuses the connection', async () => {
        rdap.reply = () => ({ status: 500, body: '' });
        await start({ whoisServer: `127.0.0.1:${await closedPort()}` });
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(502);
        expect(body.code).to.equal('upstream_error');
      });
    });

    describe('targets', () => {
      it('looks a subdomain up at its registrable domain', async () => {
        await start();
        const { status, body } = await whois('www.shop.Example.COM');
        expect(status).to.equal(200);
        expect(body.data.domain).to.equal(DOMAIN);
        expect(rdap.requests.map((r) => r.path)).to.deep.equal([`/rdap/domain/${DOMAIN}`]);
      });

      it('shares one cache entry among the subdomains of a domain', async () => {
        await start();
        await whois('a.example.com');
        const second = await whois('b.example.com');
        expect(second.body.cached).to.equal(true);
        expect(rdap.requests).to.have.length(1);
      });

      it('accepts an IDN in Unicode or in punycode, and asks the registry in punycode', async () => {
        const idn = 'xn--bcher-kva.com';
        registry.reply = (query) =>
          query === idn ? verisignWhois({ domain: idn, registrarWhois: referralTo(registrar.port) }) : verisignNoMatch(query);
        registrar.reply = (query) => registrarWhois({ domain: query });
        rdap.reply = () => ({ status: 500, body: '' });
        await start({ cache: 'memory://' });
        const unicode = await whois('www.Bücher.com');
        expect(unicode.status).to.equal(200);
        expect(unicode.body.data).to.include({ domain: idn, registered: true, source: 'whois' });
        expect(registry.queries).to.deep.equal([idn]);
        expect(registrar.queries).to.deep.equal([idn]);
        const punycode = await whois(idn);
        expect(punycode.body.data).to.include({ domain: idn, registered: true });
        expect(punycode.body.cached).to.equal(true);
      });

      it('answers 400 invalid_domain for a URL, without asking any server', async () => {
        await start();
        const { status, body } = await whois('http://example.com/');
        expect(status).to.equal(400);
        expect(body.code).to.equal('invalid_domain');
        expect(rdap.requests).to.have.length(0);
      });
    });

    describe('safety', () => {
      it('trusts the configured servers on loopback even when private targets are not allowed', async () => {
        await start({ allowPrivateTargets: false });
        const viaRdap = await whois('free.com');
        expect(viaRdap.status).to.equal(200);
        expect(viaRdap.body.data).to.include({ registered: false, source: 'rdap' });
        rdap.reply = () => ({ status: 500, body: '' });
        const viaWhois = await whois('free.net');
        expect(viaWhois.status).to.equal(200);
        expect(viaWhois.body.data).to.include({ registered: false, source: 'whois' });
        expect(registry.queries).to.deep.equal(['free.net']);
      });

      it('answers 400 target_not_allowed for a whois referral to a loopback address, without connecting', async () => {
        rdap.reply = () => ({ status: 500, body: '' });
        await start({ allowPrivateTargets: false });
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(400);
        expect(body.code).to.equal('target_not_allowed');
        expect(registry.queries).to.deep.equal([DOMAIN]);
        expect(registrar.queries).to.deep.equal([]);
      });

      it('answers 400 target_not_allowed for a whois referral to the cloud metadata address', async () => {
        registry.reply = () => verisignWhois({ domain: DOMAIN, registrarWhois: 'whois.metadata.test' });
        rdap.reply = () => ({ status: 500, body: '' });
        await start({ allowPrivateTargets: false });
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(400);
        expect(body.code).to.equal('target_not_allowed');
      });

      it('answers 400 target_not_allowed for an RDAP referral to a loopback address, without connecting', async () => {
        await start({ allowPrivateTargets: false });
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(400);
        expect(body.code).to.equal('target_not_allowed');
        expect(registrarRdap.requests).to.deep.equal([]);
      });

      it('answers 400 target_not_allowed when the configured RDAP server redirects to a loopback host', async () => {
        rdap.reply = () => ({ status: 301, body: '', headers: { location: relatedTo(registrarRdap.port) } });
        await start({ allowPrivateTargets: false });
        const { status, body } = await whois(DOMAIN);
        expect(status).to.equal(400);
        expect(body.code).to.equal('target_not_allowed');
        expect(registrarRdap.requests).to.deep.equal([]);
      });

      it('does not count a refused target against the quota', async () => {
        await start({ allowPrivateTargets: false });
        const response = await server!.get(`/api/whois?domain=${DOMAIN}`, key);
        expect(response.status).to.equal(400);
        expect(response.headers.get('x-ratelimit-remaining')).to.equal('1000');
      });
    });
  });

  describe('WhoisLookup with the IANA directories on loopback', () => {
    let dns: TestDnsServer;
    let directory: TestRdapServer;
    let registryRdap: TestRdapServer;
    let iana: TestWhoisServer;
    let registry: TestWhoisServer;

    beforeEach(async () => {
      dns = await startDnsServer({
        'data.iana.test': { A: [{ address: '127.0.0.1' }] },
        'rdap.registry.test': { A: [{ address: '127.0.0.1' }] },
        'whois.registry.test': { A: [{ address: '127.0.0.1' }] },
        'whois.centralnic.test': { A: [{ address: '127.0.0.1' }] },
        'rdap.port25.test': { A: [{ address: '127.0.0.1' }] },
      });
      registryRdap = await startRdapServer((path) =>
        path === '/v1/domain/example.test' ? { body: rdapDomain({ domain: 'example.test' }) } : RDAP_NOT_FOUND,
      );
      directory = await startRdapServer(() => BOOTSTRAP());
      registry = await startWhoisServer((query) => (query === 'example.org' ? verisignWhois({ domain: query }) : 'NOT FOUND\n'));
      centralnic = await startWhoisServer((query) => (query === 'bestb.uy.com' ? BESTB : 'DOMAIN NOT FOUND\n'));
      iana = await startWhoisServer((query) =>
        query === 'org'
          ? `% IANA WHOIS server\n\ndomain:       ORG\n\norganisation: Public Interest Registry (PIR)\n\nwhois:        whois.registry.test:${registry.port}\n\nstatus:       ACTIVE\n`
          : `% IANA WHOIS server\n\n% This query returned 0 objects.\n`,
      );
    });

    afterEach(async () => {
      await Promise.all([
        dns.close(),
        directory.close(),
        registryRdap.close(),
        iana.close(),
        registry.close(),
        centralnic.close(),
      ]);
    });

    /** Every name the lookups built by {@link lookup} resolved (A queries), in order. */
    let resolved: string[];

    /** The loopback stand-in for CentralNic's whois server, which `registryZones` names for `uy.com` in {@link lookup}. */
    let centralnic: TestWhoisServer;
    const BESTB = readFileSync(join(WHOIS_CORPUS, 'whois.centralnic.com', 'uy.com', 'status_registered.txt'));

    function lookup(options: DossierOptions = {}): WhoisLookup {
      resolved = [];
      return whoisLookupOnLoopback({
        dnsServer: dns.address,
        options,
        resolver: (resolver) => recording(resolver, resolved),
        bootstrapUrl: `http://data.iana.test:${directory.port}/rdap/dns.json`,
        ianaWhoisServer: parseHostPort(iana.address, 43)!,
        registryZones: [{ server: `whois.centralnic.test:${centralnic.port}`, zones: ['uy.com', 'us.com'] }],
      });
    }

    const BOOTSTRAP = (): RdapReply => ({
      contentType: 'application/json',
      body: {
        version: '1.0',
        publication: '2026-01-15T10:00:00Z',
        services: [
          [['net', 'com'], ['https://rdap.verisign.com/com/v1/']],
          [['test'], [`http://rdap.registry.test:${registryRdap.port}/v1`]],
        ],
      },
    });

    it('finds the RDAP server in the bootstrap registry, fetched once and kept', async () => {
      const whois = lookup();
      const first = await whois.run('example.test', new AbortController().signal);
      const second = await whois.run('example.test', new AbortController().signal);
      expect(first.data).to.include({ domain: 'example.test', registered: true, source: 'rdap', registrar: 'MarkMonitor Inc.' });
      expect(second.data.source).to.equal('rdap');
      expect(first.ttlSeconds).to.equal(3600);
      expect(directory.requests.map((r) => r.path)).to.deep.equal(['/rdap/dns.json']);
      expect(registryRdap.requests.map((r) => r.path)).to.deep.equal(['/v1/domain/example.test', '/v1/domain/example.test']);
    });

    it('caches a registered domain for an hour and a free one for five minutes', async () => {
      const whois = lookup();
      expect((await whois.run('example.test', new AbortController().signal)).ttlSeconds).to.equal(3600);
      const free = await whois.run('free.test', new AbortController().signal);
      expect(free.data.registered).to.equal(false);
      expect(free.ttlSeconds).to.equal(300);
    });

    it("asks whois at the server IANA names for the TLD when the bootstrap lists no RDAP server, and keeps IANA's answer", async () => {
      const whois = lookup();
      const first = await whois.run('example.org', new AbortController().signal);
      expect(first.data).to.include({ domain: 'example.org', registered: true, source: 'whois', registrar: 'MarkMonitor Inc.' });
      const free = await whois.run('free.org', new AbortController().signal);
      expect(free.data).to.include({ registered: false, source: 'whois', whoisServer: 'whois.registry.test' });
      expect(iana.queries).to.deep.equal(['org']);
      expect(registry.queries).to.deep.equal(['example.org', 'free.org']);
    });

    it('answers 502 when IANA names no whois server for the TLD', async () => {
      const error = await lookup()
        .run('example.nowhere', new AbortController().signal)
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DossierError).with.property('code', 'ERR_UPSTREAM_FAILED');
    });

    it('refuses the bootstrap server itself when it resolves to loopback and private targets are not allowed', async () => {
      const error = await lookup({ allowPrivateTargets: false })
        .run('example.test', new AbortController().signal)
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DossierError).with.property('code', 'ERR_LOOKUP_TARGET_NOT_ALLOWED');
      expect(directory.requests).to.deep.equal([]);
    });

    it('stops at once and closes the socket when the signal aborts', async () => {
      registry.reply = () => ({ silent: true });
      const controller = new AbortController();
      const running = lookup({ whoisServer: registry.address, lookupTimeoutMs: 60000 }).run('example.org', controller.signal);
      await until(() => registry.queries.length > 0, 'the registry was asked');
      const reason = new DossierError('ERR_UPSTREAM_TIMEOUT', 'deadline');
      controller.abort(reason);
      const error = await running.catch((e: unknown) => e);
      expect(error).to.equal(reason);
      await registry.idle();
    });

    describe('names under a registry-run second-level zone (bestb.uy.com)', () => {
      it("asks that zone's whois server about the name itself: not IANA, not the TLD's RDAP server", async () => {
        const whois = lookup();
        const domain = whois.parse('www.BestB.uy.com');
        expect(domain).to.equal('bestb.uy.com');
        const { data } = await whois.run(domain, new AbortController().signal);
        expect(data).to.include({
          domain: 'bestb.uy.com',
          registered: true,
          source: 'whois',
          whoisServer: 'whois.centralnic.test',
          createdAt: '2007-07-12T13:49:25.000Z',
        });
        expect(centralnic.queries).to.deep.equal(['bestb.uy.com']);
        // .com is in the bootstrap registry: its RDAP server knows uy.com, not the names under it.
        expect(directory.requests).to.deep.equal([]);
        expect(iana.queries).to.deep.equal([]);
        expect(registry.queries).to.deep.equal([]);
      });

      it("reads the zone's own \"not found\" as a free name, and leaves the zone's own name to its TLD's registry", async () => {
        const whois = lookup();
        const free = await whois.run(whois.parse('nobody.us.com'), new AbortController().signal);
        expect(free.data).to.include({ domain: 'nobody.us.com', registered: false, whoisServer: 'whois.centralnic.test' });
        expect(whois.parse('uy.com')).to.equal('uy.com');
        expect(whois.parse('www.example.co.uk')).to.equal('example.co.uk');
        expect(whois.parse('someone.github.io')).to.equal('github.io');
        expect(centralnic.queries).to.deep.equal(['nobody.us.com']);
      });

      it('sends the full name to whoisServer, and to rdapUrl, when they are set', async () => {
        registry.reply = (query) => (query === 'bestb.uy.com' ? BESTB : 'NOT FOUND\n');
        registryRdap.reply = () => RDAP_NOT_FOUND;
        const configured = await lookup({ whoisServer: registry.address }).run('bestb.uy.com', new AbortController().signal);
        expect(configured.data).to.include({ domain: 'bestb.uy.com', registered: true });
        expect(registry.queries).to.deep.equal(['bestb.uy.com']);
        const rdap = await lookup({ rdapUrl: `${registryRdap.url}/v1` }).run('bestb.uy.com', new AbortController().signal);
        expect(rdap.data).to.include({ domain: 'bestb.uy.com', registered: false, source: 'rdap' });
        expect(registryRdap.requests.map((r) => r.path)).to.deep.equal(['/v1/domain/bestb.uy.com']);
        expect(centralnic.queries).to.deep.equal([]);
      });
    });

    describe('which servers the configuration asks', () => {
      it('with only whoisServer set, asks that server alone: no bootstrap download, no question to IANA, no RDAP', async () => {
        registry.reply = (query) => verisignWhois({ domain: query, registrarWhois: 'whois.registry.test' });
        const whois = lookup({ whoisServer: registry.address });
        // .test has an RDAP server in the bootstrap registry: RDAP would answer if it were asked.
        const { data } = await whois.run('example.test', new AbortController().signal);
        expect(data).to.include({ domain: 'example.test', registered: true, source: 'whois', registrar: 'MarkMonitor Inc.' });
        expect(registry.queries).to.deep.equal(['example.test']);
        expect(directory.requests).to.deep.equal([]);
        expect(registryRdap.requests).to.deep.equal([]);
        expect(iana.queries).to.deep.equal([]);
      });

      it('with rdapUrl and whoisServer set, asks RDAP at rdapUrl, then that whois server, and neither directory', async () => {
        registryRdap.reply = () => ({ status: 500, body: '' });
        const whois = lookup({ rdapUrl: `${registryRdap.url}/v1`, whoisServer: registry.address });
        const { data } = await whois.run('example.org', new AbortController().signal);
        expect(data).to.include({ registered: true, source: 'whois' });
        expect(registryRdap.requests.map((r) => r.path)).to.deep.equal(['/v1/domain/example.org']);
        expect(registry.queries).to.deep.equal(['example.org']);
        expect(directory.requests).to.deep.equal([]);
        expect(iana.queries).to.deep.equal([]);
      });

      it('with only rdapUrl set, asks RDAP at rdapUrl, then the whois server IANA names for the TLD', async () => {
        registryRdap.reply = () => ({ status: 500, body: '' });
        const whois = lookup({ rdapUrl: `${registryRdap.url}/v1` });
        const { data } = await whois.run('example.org', new AbortController().signal);
        expect(data).to.include({ registered: true, source: 'whois' });
        expect(registryRdap.requests.map((r) => r.path)).to.deep.equal(['/v1/domain/example.org']);
        expect(iana.queries).to.deep.equal(['org']);
        expect(registry.queries).to.deep.equal(['example.org']);
        expect(directory.requests).to.deep.equal([]);
      });
    });

    describe('the shared bootstrap download', () => {
      it('goes on for the other lookups when the lookup that started it is aborted, and is not taken for a failure', async () => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        directory.reply = async () => (await gate, BOOTSTRAP());
        const whois = lookup({ lookupTimeoutMs: 10000 });
        const first = new AbortController();
        const firstRun = whois.run('example.test', first.signal);
        await until(() => directory.requests.length > 0, 'the bootstrap registry was asked');
        const secondRun = whois.run('example.test', new AbortController().signal);
        const reason = new DossierError('ERR_UPSTREAM_TIMEOUT', 'the first caller gave up');
        first.abort(reason);
        expect(await firstRun.catch((e: unknown) => e)).to.equal(reason);
        release();
        expect((await secondRun).data).to.include({ registered: true, source: 'rdap' });
        expect((await whois.run('free.test', new AbortController().signal)).data).to.include({ source: 'rdap' });
        expect(directory.requests).to.have.length(1);
      });

      it('is waited for by each lookup only until its own RDAP deadline; a later lookup uses it once it arrives', async () => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        directory.reply = async () => (await gate, BOOTSTRAP());
        const whois = lookup({ lookupTimeoutMs: 4000 });
        // The bootstrap is slow: the first lookup stops waiting at its RDAP share and asks whois instead.
        const first = await whois.run('example.org', new AbortController().signal);
        expect(first.data).to.include({ registered: true, source: 'whois' });
        release();
        const second = await whois.run('example.test', new AbortController().signal);
        expect(second.data).to.include({ registered: true, source: 'rdap' });
        expect(directory.requests).to.have.length(1);
      });

      it('has a deadline of its own: a registry that never answers is dropped, remembered as failed, and its socket closed', async () => {
        directory.reply = () => ({ silent: true });
        // The silent directory takes the RDAP half of the deadline; the other half is the whois server's,
        // far beyond what a loopback answer needs on a loaded machine.
        const whois = lookup({ lookupTimeoutMs: 3000 });
        expect((await whois.run('example.org', new AbortController().signal)).data).to.include({ source: 'whois' });
        await directory.idle();
        // Failed a moment ago: .test gets no RDAP server (and IANA names no whois server for it).
        const error = await whois.run('example.test', new AbortController().signal).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DossierError).with.property('code', 'ERR_UPSTREAM_FAILED');
        expect(directory.requests).to.have.length(1);
      });
    });

    describe('ports of servers named by the network', () => {
      it('drops an RDAP related link to a privileged port other than 80 and 443, without resolving its host', async () => {
        registryRdap.reply = () => ({
          body: rdapDomain({ domain: 'example.test', related: 'http://rdap.port25.test:25/domain/example.test' }),
        });
        const { data } = await lookup().run('example.test', new AbortController().signal);
        expect(data).to.include({ registered: true, source: 'rdap', registrar: 'MarkMonitor Inc.' });
        expect(resolved).to.include('rdap.registry.test').and.not.to.include('rdap.port25.test');
      });

      it('takes a redirect of the configured RDAP server to such a port for a failure and asks whois', async () => {
        registryRdap.reply = () => ({
          status: 302,
          body: '',
          headers: { location: 'http://rdap.port25.test:22/domain/example.org' },
        });
        const whois = lookup({ rdapUrl: `${registryRdap.url}/v1`, whoisServer: registry.address });
        const { data } = await whois.run('example.org', new AbortController().signal);
        expect(data).to.include({ registered: true, source: 'whois' });
        expect(registryRdap.requests).to.have.length(1);
        expect(resolved).not.to.include('rdap.port25.test');
      });

      it('follows a related link on an unprivileged port', async () => {
        registryRdap.reply = (path) =>
          path === '/v1/domain/example.test'
            ? { body: rdapDomain({ domain: 'example.test', related: `http://rdap.port25.test:${registryRdap.port}/registrar` }) }
            : { body: rdapDomain({ domain: 'example.test', registrarUrl: 'https://registrar.example' }) };
        const { data } = await lookup().run('example.test', new AbortController().signal);
        expect(data).to.include({ source: 'rdap', registrarUrl: 'https://registrar.example' });
        expect(resolved).to.include('rdap.port25.test');
      });

      it('answers 502 without any configuration error when IANA names a whois server that is not host[:port]', async () => {
        iana.reply = () => 'domain: ORG\n\nwhois:        whois.registry.test:99999\n';
        const error = await lookup()
          .run('example.org', new AbortController().signal)
          .catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DossierError).with.property('code', 'ERR_UPSTREAM_FAILED');
        for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
          expect(cause).not.to.have.property('code', 'ERR_CONFIG_INVALID');
        }
      });
    });
  });

  describe("TldWhoisServers: the cache of IANA's answers", () => {
    let iana: TestWhoisServer;
    let now: number;
    const clock = { now: (): number => now };
    const reach = (): Reach => ({
      resolver: systemDnsResolverFactory([], 1000)(),
      guard: new RangeTargetGuard(true),
      signal: AbortSignal.timeout(5000),
    });

    beforeEach(async () => {
      now = Date.parse('2026-01-15T10:00:00Z');
      iana = await startWhoisServer((query) =>
        query.startsWith('none') ? '% This query returned 0 objects.\n' : `whois:        whois.nic.${query}\n`,
      );
    });

    afterEach(() => iana.close());

    const peer = (): HostPort => ({ host: '127.0.0.1', port: iana.port });

    it(`keeps at most ${TLD_SERVER_CACHE.entries} TLDs, dropping the oldest first`, async () => {
      const servers = new TldWhoisServers(peer(), clock);
      const tlds = Array.from({ length: TLD_SERVER_CACHE.entries + 1 }, (_, i) => `t${i}`);
      for (const tld of tlds) await servers.serverFor(tld, reach());
      expect(iana.queries).to.have.length(tlds.length);
      expect(await servers.serverFor('t1', reach())).to.equal('whois.nic.t1');
      expect(await servers.serverFor(tlds.at(-1)!, reach())).to.equal(`whois.nic.${tlds.at(-1)!}`);
      expect(iana.queries).to.have.length(tlds.length);
      // t0 was the oldest when t1000 came in.
      expect(await servers.serverFor('t0', reach())).to.equal('whois.nic.t0');
      expect(iana.queries.slice(tlds.length)).to.deep.equal(['t0']);
    });

    it('keeps a refreshed TLD as the newest', async () => {
      const servers = new TldWhoisServers(peer(), clock, 2);
      await servers.serverFor('a', reach());
      now += 1000;
      await servers.serverFor('b', reach());
      // a expires first and is asked again: it becomes the newest, so c pushes b out, not a.
      now += TLD_SERVER_CACHE.serverMs - 999;
      await servers.serverFor('a', reach());
      await servers.serverFor('c', reach());
      await servers.serverFor('a', reach());
      await servers.serverFor('b', reach());
      expect(iana.queries).to.deep.equal(['a', 'b', 'a', 'c', 'b']);
    });

    it('keeps "no whois server" for five minutes, and a named server for a day', async () => {
      const servers = new TldWhoisServers(peer(), clock);
      expect(await servers.serverFor('none', reach())).to.equal(null);
      expect(await servers.serverFor('org', reach())).to.equal('whois.nic.org');
      now += TLD_SERVER_CACHE.noServerMs - 1;
      await servers.serverFor('none', reach());
      await servers.serverFor('org', reach());
      expect(iana.queries).to.deep.equal(['none', 'org']);
      now += 2;
      expect(await servers.serverFor('none', reach())).to.equal(null);
      await servers.serverFor('org', reach());
      expect(iana.queries).to.deep.equal(['none', 'org', 'none']);
      now += TLD_SERVER_CACHE.serverMs;
      await servers.serverFor('org', reach());
      expect(iana.queries).to.deep.equal(['none', 'org', 'none', 'org']);
    });

    it('does not keep a failure to ask IANA', async () => {
      const servers = new TldWhoisServers(peer(), clock);
      const reply = iana.reply;
      iana.reply = () => '';
      const error = await servers.serverFor('org', reach()).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DossierError).with.property('code', 'ERR_UPSTREAM_FAILED');
      iana.reply = reply;
      expect(await servers.serverFor('org', reach())).to.equal('whois.nic.org');
      expect(iana.queries).to.deep.equal(['org', 'org']);
    });
  });

  /** `resolver`, noting in `names` every name it is asked A records of. */
  function recording(resolver: DnsResolver, names: string[]): DnsResolver {
    return new Proxy(resolver, {
      get(target, property): unknown {
        if (property === 'resolve4') {
          return (host: string, options: { ttl: true }) => {
            names.push(host);
            return target.resolve4(host, options);
          };
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
});
