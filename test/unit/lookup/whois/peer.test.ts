import { expect } from 'chai';
import { isHttpPort, isWhoisPort, parsePeer } from '../../../../lib/lookup/whois/peer.js';

describe('servers named by the network', () => {
  describe('parsePeer', () => {
    for (const [given, expected] of [
      ['whois.markmonitor.com', { host: 'whois.markmonitor.com', port: 43 }],
      ['whois.registrar.test:4343', { host: 'whois.registrar.test', port: 4343 }],
      ['  whois.nic.io  ', { host: 'whois.nic.io', port: 43 }],
      ['192.0.2.7:43', { host: '192.0.2.7', port: 43 }],
      ['[2001:db8::1]:4343', { host: '2001:db8::1', port: 4343 }],
      ['[2001:db8::1]', { host: '2001:db8::1', port: 43 }],
    ] as const) {
      it(`reads ${JSON.stringify(given)}`, () => expect(parsePeer(given, 43)).to.deep.equal(expected));
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
      '2001:db8::1',
      '-leading.example.com',
      `${'a'.repeat(400)}.com`,
    ]) {
      it(`gives null, and throws nothing, for ${JSON.stringify(given.length > 40 ? `${given.slice(0, 20)}…` : given)}`, () => {
        expect(parsePeer(given, 43)).to.equal(null);
      });
    }
  });

  it('allows whois on port 43 or an unprivileged port only', () => {
    expect([43, 1024, 4343, 65535].map(isWhoisPort)).to.deep.equal([true, true, true, true]);
    expect([22, 25, 80, 443, 1023].map(isWhoisPort)).to.deep.equal([false, false, false, false, false]);
  });

  it('allows HTTP on ports 80, 443 or an unprivileged port only', () => {
    expect([80, 443, 1024, 8080, 65535].map(isHttpPort)).to.deep.equal([true, true, true, true, true]);
    expect([21, 22, 25, 43, 1023].map(isHttpPort)).to.deep.equal([false, false, false, false, false]);
  });
});
