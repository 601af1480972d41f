import { expect } from 'chai';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestPki, type TestPki } from '../support/certificates.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startWatchRig, type WatchRig } from '../support/watch-rig.js';

/** Webhooks to an `https` receiver on loopback whose certificate a private CA issued. */
describe('watches delivering to an https receiver', function () {
  this.timeout(30_000);
  let pki: TestPki;
  let dns: TestDnsServer;
  let https: Server;
  let received: { host: string | undefined; servername: string | false }[];
  let rig: WatchRig;

  before(async () => {
    pki = await createTestPki();
  });

  beforeEach(async () => {
    dns = await startDnsServer({
      'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
      'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
    });
    const leaf = await pki.issue({ dnsNames: ['hooks.test'] });
    received = [];
    https = createServer({ key: leaf.keyPem, cert: [leaf.pem, pki.intermediate.pem].join('\n') }, (req, res) => {
      received.push({ host: req.headers.host, servername: (req.socket as { servername?: string | false }).servername ?? false });
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    https.on('tlsClientError', () => {});
    https.listen(0, '127.0.0.1');
    await new Promise((resolve) => https.once('listening', resolve));
  });

  afterEach(async () => {
    await rig?.close();
    https.closeAllConnections();
    await new Promise((resolve) => https.close(resolve));
    await dns.close();
  });

  /** A DNS watch whose check finds a change, so that one delivery goes out; its record once attempted. */
  async function deliverOnce(): Promise<Record<string, unknown>> {
    const url = `https://hooks.test:${(https.address() as AddressInfo).port}/hooks`;
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: url });
    await rig.advance(0);
    dns.zone['example.test']!.A = [];
    await rig.advance(900_000);
    return (await rig.watches.deliveries(watch.id))[0] as unknown as Record<string, unknown>;
  }

  it('delivers to a receiver whose certificate chains to a CA of sslCaCertificates, naming the host for SNI', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true, sslCaCertificates: [pki.root.pem] });
    expect(await deliverOnce()).to.include({ status: 'delivered', attempts: 1, responseStatus: 204 });
    expect(received).to.deep.equal([{ host: `hooks.test:${(https.address() as AddressInfo).port}`, servername: 'hooks.test' }]);
  });

  it('refuses a certificate that chains to no trusted CA: a failed attempt, tried again later', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    expect(await deliverOnce()).to.include({ status: 'pending', attempts: 1, responseStatus: null });
    expect(received).to.deep.equal([]);
  });
});
