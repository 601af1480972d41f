import { expect } from 'chai';
import Router from '@koa/router';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { createDossierRouter, errorMiddleware } from '../../adapters/koa/index.js';
import { createDossier } from '../../lib/dossier.js';
import { lookUp } from '../../examples/embed.js';
import { meteredLookups } from '../../examples/metered.js';
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

  it('metered: counts lookups against a key from a plain script, refuses the one past the limit, and reports usage', async () => {
    const lines = await meteredLookups('example.test', { DOSSIER_DNS_SERVERS: dns.address });
    expect(lines).to.deep.equal([
      'ok (cached: false), 1 left today',
      'ok (cached: true), 0 left today',
      'ERR_QUOTA_EXCEEDED: This key has used its 2 lookups for today.',
      'used today: 2 of 2',
    ]);
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

  it("keeps each interface's bodies and links when the router is mounted under a prefix", async () => {
    const dossier = createDossier({ store: 'memory://' });
    const app = new Koa();
    const parent = new Router({ prefix: '/dossier' });
    parent.use(createDossierRouter(dossier).routes());
    app.use(errorMiddleware(dossier.options.logger));
    app.use(parent.routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dossier`;
    const { secret } = await dossier.keys.create({ name: 'example' });
    const headers = { Authorization: `Bearer ${secret}` };
    try {
      const missing = await fetch(`${url}/api/v1/documents/999`, { headers });
      expect(missing.status).to.equal(404);
      expect(await missing.json()).to.deep.equal({ message: 'Resource not found.', status: 404 });
      const anonymous = await fetch(`${url}/api/v1/documents`);
      expect(await anonymous.json()).to.deep.equal({ message: 'Unauthenticated.', status: 401 });
      const invalid = await fetch(`${url}/api/v1/documents`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(invalid.status).to.equal(422);
      expect((await invalid.json()).errors).to.have.keys('name', 'prompt');
      const list = await (await fetch(`${url}/api/v1/documents?favorite=1`, { headers })).json();
      expect(list.meta.path).to.equal(`${url}/api/v1/documents`);
      expect(list.links.first).to.equal(`${url}/api/v1/documents?favorite=1&page=1`);
      const lookup = await fetch(`${url}/api/dns?domain=bad_domain!`, { headers });
      expect((await lookup.json()).code).to.equal('invalid_domain');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dossier.close();
    }
  });
});
