import { expect } from 'chai';
import { formatHostPort, parseHostPort } from '../../../../lib/lookup/net/host-port.js';

describe('host:port values', () => {
  describe('parseHostPort', () => {
    for (const [given, expected] of [
      ['whois.markmonitor.com', { host: 'whois.markmonitor.com', port: 43 }],
      ['whois.registrar.test:4343', { host: 'whois.registrar.test', port: 4343 }],
      ['  whois.nic.io  ', { host: 'whois.nic.io', port: 43 }],
      ['192.0.2.7:43', { host: '192.0.2.7', port: 43 }],
      ['[2001:db8::1]:4343', { host: '2001:db8::1', port: 4343 }],
      ['[2001:db8::1]', { host: '2001:db8::1', port: 43 }],
      // A bare IPv6 address: its colons are not a port.
      ['2001:db8::1', { host: '2001:db8::1', port: 43 }],
      ['_dns.resolver.test:853', { host: '_dns.resolver.test', port: 853 }],
    ] as const) {
      it(`reads ${JSON.stringify(given)}`, () => expect(parseHostPort(given, 43)).to.deep.equal(expected));
    }

    for (const given of [
      '',
      'not a host!',
      'whois.example.com:0',
      'whois.example.com:65536',
      'whois.example.com:99999',
      'whois.example.com:',
      'whois.example.com:43:44',
      'http://whois.example.com/',
      'whois.example.com/path',
      '[not-ipv6]:43',
      '2001:db8::1]:53',
      'a b',
      '-leading.example.com',
      `${'a'.repeat(400)}.com`,
    ]) {
      it(`gives null, and throws nothing, for ${JSON.stringify(given.length > 40 ? `${given.slice(0, 20)}…` : given)}`, () => {
        expect(parseHostPort(given, 43)).to.equal(null);
      });
    }
  });

  it('writes an IPv6 address in brackets, as resolver lists and messages want', () => {
    expect(formatHostPort('2001:db8::1', 53)).to.equal('[2001:db8::1]:53');
    expect(formatHostPort('192.0.2.1', 53)).to.equal('192.0.2.1:53');
    expect(formatHostPort('dns.example', 53)).to.equal('dns.example:53');
  });
});
