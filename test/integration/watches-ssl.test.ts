import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:tls';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { createTestPki, daysFromNow, type TestCertificate, type TestPki } from '../support/certificates.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';
import { startWatchRig, testClock, type WatchRig } from '../support/watch-rig.js';

const DAY = 86_400_000;

/**
 * An SSL watch against a real TLS server on loopback whose certificate the test renews, with Dossier's
 * clock moved day by day: every threshold once per certificate, a change, and a certificate that turns
 * invalid, all through the lookups and the webhook.
 */
describe('an SSL watch against a TLS server on loopback, over weeks of the Clock', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let first: TestCertificate;
  let renewed: TestCertificate;
  let otherName: TestCertificate;
  let dns: TestDnsServer;
  let receiver: TestReceiver;
  let tls: Server;
  let rig: WatchRig;

  before(async () => {
    pki = await createTestPki();
    [first, renewed, otherName] = await Promise.all([
      pki.issue({ dnsNames: ['tls.test'], notBefore: daysFromNow(-1), notAfter: daysFromNow(40.5) }),
      pki.issue({ dnsNames: ['tls.test'], notBefore: daysFromNow(-1), notAfter: daysFromNow(90.5) }),
      pki.issue({ dnsNames: ['elsewhere.test'], notBefore: daysFromNow(-1), notAfter: daysFromNow(90.5) }),
    ]);
  });

  beforeEach(async () => {
    dns = await startDnsServer({ 'tls.test': { A: [{ address: '127.0.0.1', ttl: 60 }] } });
    receiver = await startReceiver();
    tls = createServer(identity(first), (socket) => socket.end());
    tls.on('tlsClientError', () => {});
    tls.listen(0, '127.0.0.1');
    await new Promise((resolve) => tls.once('listening', resolve));
    rig = await startWatchRig({
      dnsServers: [dns.address],
      allowPrivateTargets: true,
      sslPort: (tls.address() as AddressInfo).port,
      sslCaCertificates: [pki.root.pem],
      // The certificates' dates are real ones: the clock starts at the real time, then moves alone.
      clock: testClock(Date.now()),
    });
  });

  afterEach(async () => {
    await rig.close();
    await new Promise((resolve) => tls.close(resolve));
    await receiver.close();
    await dns.close();
  });

  function identity(leaf: TestCertificate): { key: string; cert: string } {
    return { key: leaf.keyPem, cert: [leaf.pem, pki.intermediate.pem].join('\n') };
  }

  const sent = (): [string, Record<string, unknown>][] =>
    receiver.received.map((hook) => {
      const event = JSON.parse(hook.body) as WatchEvent;
      return [event.type, event.data];
    });

  it('announces 30 and then 14 days once each, the renewal as a change, and the wrong name as invalid', async () => {
    const fingerprint = (leaf: TestCertificate) => new X509Certificate(leaf.der).fingerprint256;
    await rig.watches.create({
      type: 'ssl',
      domain: 'tls.test',
      webhookUrl: `http://tls.test:${receiver.port}/`,
      intervalSeconds: 86_400,
    });
    await rig.advance(0); // 40 days left: the baseline, nothing to say
    expect(sent()).to.deep.equal([]);
    await rig.advance(10 * DAY); // 30 days left
    await rig.advance(DAY); // 29: the same threshold
    expect(sent().map(([type, data]) => [type, data.threshold, data.days_remaining])).to.deep.equal([['ssl.expiring', 30, 30]]);
    await rig.advance(16 * DAY); // 13: jumps to 14
    await rig.advance(DAY);
    expect(sent().map(([type, data]) => [type, data.threshold])).to.deep.equal([
      ['ssl.expiring', 30],
      ['ssl.expiring', 14],
    ]);
    expect(sent()[1]![1]).to.include({ fingerprint_sha256: fingerprint(first) });

    tls.setSecureContext(identity(renewed));
    await rig.advance(DAY); // the renewed certificate, 62 days left
    const changed = sent()[2]!;
    expect(changed[0]).to.equal('ssl.changed');
    expect((changed[1].previous as Record<string, unknown>).fingerprint_sha256).to.equal(fingerprint(first));
    expect((changed[1].current as Record<string, unknown>).fingerprint_sha256).to.equal(fingerprint(renewed));
    expect(sent()).to.have.length(3);

    tls.setSecureContext(identity(otherName));
    await rig.advance(DAY);
    await rig.advance(DAY);
    expect(
      sent()
        .slice(3)
        .map(([type, data]) => [type, data.hostname_matches]),
    ).to.deep.equal([
      ['ssl.changed', undefined],
      ['ssl.invalid', false],
    ]);
  });
});
