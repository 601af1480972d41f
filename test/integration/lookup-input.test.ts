import { expect } from 'chai';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

// Every parameter of every lookup against hostile and malformed values: each gets its 400 and code,
// none a 500, none touches the network, none consumes quota.
const BAD_DOMAINS: [string, string][] = [
  ['empty', ''],
  ['254 characters', `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(9)}.com`],
  ['a 64-character label', `${'a'.repeat(64)}.com`],
  ['a URL', 'https://example.com'],
  ['a scheme-less URL', '//example.com'],
  ['a path', 'example.com/admin'],
  ['a query', 'example.com?x=1'],
  ['a fragment', 'example.com#top'],
  ['a port', 'example.com:443'],
  ['userinfo', 'user@example.com'],
  ['userinfo with password', 'user:pass@example.com'],
  ['a leading space', ' example.com'],
  ['an inner space', 'exa mple.com'],
  ['a tab', 'example.com\t'],
  ['a newline (header injection)', 'example.com\r\nX-Injected: 1'],
  ['a NUL byte', 'example.com\u0000.evil'],
  ['a DEL character', 'example\u007f.com'],
  ['percent-encoding', 'example%2ecom'],
  ['a zone id', 'fe80::1%eth0'],
  ['full-width letters', 'ｅｘａｍｐｌｅ.com'],
  ['a full-width dot', 'example．com'],
  ['an ideographic dot', 'example。com'],
  ['a bare TLD', 'com'],
  ['a lone dot', '.'],
  ['an empty label', 'example..com'],
  ['a leading hyphen', '-example.com'],
  ['a trailing hyphen', 'example-.com'],
  ['an IPv4 literal', '127.0.0.1'],
  ['a short IPv4 spelling', '127.1'],
  ['a hexadecimal IPv4 spelling', '0x7f.1'],
  ['an IPv6 literal', '::1'],
  ['a bracketed IPv6 literal', '[::1]'],
  ['a numeric TLD', 'example.123'],
  ['a backslash', 'example.com\\evil'],
  ['a zero-width space', 'exam\u200bple.com'],
  ['a soft hyphen', 'ex\u00adample.com'],
  ['a right-to-left override', 'example\u202e.com'],
  ['circled letters that fold to ASCII', 'ⓛⓞⓒⓐⓛⓗⓞⓢⓣ.com'],
  ['mathematical letters that fold to ASCII', '𝐞𝐱𝐚𝐦𝐩𝐥𝐞.com'],
];

const BAD_IPS: [string, string][] = [
  ['empty', ''],
  ['a domain', 'example.com'],
  ['a short IPv4 spelling', '127.1'],
  ['a hexadecimal IPv4', '0x7f.0.0.1'],
  ['an octal IPv4', '0177.0.0.1'],
  ['a leading zero', '010.0.0.1'],
  ['an out-of-range octet', '256.1.1.1'],
  ['an IPv4 with a port', '1.2.3.4:80'],
  ['a bracketed IPv6', '[2001:db8::1]'],
  ['a bracketed IPv6 with a port', '[2001:db8::1]:443'],
  ['a zone id', 'fe80::1%eth0'],
  ['a percent-encoded zone id', 'fe80::1%25eth0'],
  ['a URL', 'http://1.2.3.4/'],
  ['a CIDR', '10.0.0.0/8'],
  ['userinfo', 'user@1.2.3.4'],
  ['whitespace', ' 1.2.3.4'],
  ['a newline', '1.2.3.4\n'],
  ['a NUL byte', '1.2.3.4\u0000'],
  ['full-width digits', '１.２.３.４'],
  ['too many groups', '1:2:3:4:5:6:7:8:9'],
  ['two double colons', '1::2::3'],
  ['254 characters', '1'.repeat(254)],
];

eachAdapter(() => {
  describe('every lookup parameter against bad input', () => {
    let dns: TestDnsServer;
    let server: TestServer;
    let key: string;

    before(async () => {
      dns = await startDnsServer({});
      server = await startTestServer({ dnsServers: [dns.address], allowPrivateTargets: true, lookupTimeoutMs: 1000 });
    });
    beforeEach(async () => {
      key = await server.key({ dailyLimit: 5 });
    });
    after(async () => {
      await server.close();
      await dns.close();
    });

    // DNS names may carry underscores (`_dmarc.example.com`); hostnames for whois and TLS may not.
    const underscore: [string, string] = ['an underscore in a hostname', 'ex_ample.com'];
    const cases: [string, string, [string, string][], string][] = [
      ['dns', 'domain', BAD_DOMAINS, 'invalid_domain'],
      ['whois', 'domain', [...BAD_DOMAINS, underscore], 'invalid_domain'],
      ['ssl', 'domain', [...BAD_DOMAINS, underscore], 'invalid_domain'],
      ['ip', 'ip', BAD_IPS, 'invalid_ip'],
    ];
    for (const [kind, parameter, values, code] of cases) {
      describe(`/api/${kind}?${parameter}=`, () => {
        for (const [label, value] of values) {
          it(`refuses ${label} with 400 ${code}`, async () => {
            const asked = dns.questions;
            const response = await server.get(`/api/${kind}?${parameter}=${encodeURIComponent(value)}`, key);
            expect(response.status).to.equal(400);
            expect(await response.json()).to.deep.include({ status: 'error', code });
            expect(response.headers.get('X-RateLimit-Remaining')).to.equal('5');
            expect(dns.questions).to.equal(asked);
          });
        }
        it(`refuses a missing or repeated ${parameter} with 400 ${code}`, async () => {
          for (const query of ['', `?${parameter}=a.com&${parameter}=b.com`, `?other=x`]) {
            const response = await server.get(`/api/${kind}${query}`, key);
            expect(response.status, query).to.equal(400);
            expect((await response.json()).code).to.equal(code);
            expect(response.headers.get('X-RateLimit-Remaining')).to.equal('5');
          }
        });
      });
    }

    it('accepts underscore labels in DNS names, as DNS does', async () => {
      const response = await server.get('/api/dns?domain=_dmarc.example.test', key);
      expect(response.status).to.equal(200);
      expect((await response.json()).data.domain).to.equal('_dmarc.example.test');
    });
  });
});
