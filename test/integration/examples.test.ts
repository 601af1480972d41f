import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createDossier } from '../../lib/dossier.js';
import { lookUp } from '../../examples/embed.js';
import { createApp } from '../../examples/mount-router.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

describe('the examples', () => {
  let dns: TestDnsServer;
  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
  });
  after(() => dns.close());

  it('embed: looks up a domain, and the second answer comes from the cache', async () => {
    const { first, cached } = await lookUp('example.test', { DOSSIER_DNS_SERVERS: dns.address });
    expect(first.A).to.deep.equal([{ address: '93.184.216.34', ttl: 600 }]);
    expect(cached).to.equal(true);
  });

  it('mount-router: serves the host app’s own route and Dossier’s API side by side', async () => {
    const dossier = createDossier({ store: 'memory://', dnsServers: [dns.address] });
    const server = createApp(dossier).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await (await fetch(`${url}/health`)).json()).to.deep.equal({ ok: true });
      const { secret } = await dossier.keys.create({ name: 'example' });
      const response = await fetch(`${url}/api/dns?domain=example.test`, { headers: { Authorization: `Bearer ${secret}` } });
      expect(response.status).to.equal(200);
      const unauthenticated = await fetch(`${url}/api/dns?domain=example.test`);
      expect(unauthenticated.status).to.equal(401);
      expect((await unauthenticated.json()).code).to.equal('missing_key');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dossier.close();
    }
  });

  it('the package exports what the README imports: createDossier from "dossier", createKoaApp from "dossier/koa"', async () => {
    // Package self-reference goes through package.json "exports", as a dependent project's import would.
    const lib = (await import(String('dossier'))) as Record<string, unknown>;
    const koa = (await import(String('dossier/koa'))) as Record<string, unknown>;
    expect(lib.createDossier).to.be.a('function');
    expect(lib.optionsFromEnv).to.be.a('function');
    expect(koa.createKoaApp).to.be.a('function');
    expect(koa.createDossierRouter).to.be.a('function');
  });
});
