import { expect } from 'chai';
import { isDossierError } from '../../../../lib/errors.js';
import { isHttpPort, isWhoisPort, whoisPeer } from '../../../../lib/lookup/whois/peer.js';

describe('servers named by the network', () => {
  it('reads a whois server named by the network, port 43 by default', () => {
    expect(whoisPeer('whois.markmonitor.com')).to.deep.equal({ host: 'whois.markmonitor.com', port: 43 });
    expect(whoisPeer('whois.registrar.test:4343')).to.deep.equal({ host: 'whois.registrar.test', port: 4343 });
  });

  it('refuses, as an upstream failure, a value that is not a server or names a privileged port', () => {
    for (const named of ['not a host!', 'whois.example.com:25']) {
      expect(() => whoisPeer(named))
        .to.throw()
        .that.satisfies((error: unknown) => isDossierError(error, 'ERR_UPSTREAM_FAILED'));
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
