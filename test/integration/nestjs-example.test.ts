import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { driveMounted, EXAMPLE_ADMIN_TOKEN } from '../support/drive-mounted.js';
import { npmEnv, prepareExample, type ExampleApp } from '../support/example-app.js';
import { Started, waitUntilServing } from '../support/snippets.js';

/** A loopback port free now, for a server that takes its port from the environment. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * examples/nestjs, a NestJS app on its Express platform compiled to CommonJS, with Dossier under /dossier
 * and a route of its own that calls Dossier: installed from its lockfile with the packed tarball, its
 * Jest tests pass (`npm test`, Nest's default Jest and ts-jest setup), and `npm run build` then
 * `npm start` serve it, driven over HTTP.
 */
describe('examples/nestjs: Dossier in a NestJS app (Express, CommonJS, Jest)', function () {
  this.timeout(1_800_000);
  let dns: TestDnsServer;
  let app: ExampleApp;
  let data: string;

  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '192.0.2.20', ttl: 600 }] } });
    app = prepareExample('nestjs');
    data = join(dirname(dirname(app.dir)), 'data');
    mkdirSync(data);
  });
  after(async () => {
    await dns?.close();
    app?.remove();
  });

  it('passes its Jest tests, which call a route that calls Dossier (npm test)', async () => {
    await app.run('npm', ['test'], 600_000, {
      DOSSIER_STORE: 'memory://',
      DOSSIER_DNS_SERVERS: dns.address,
      LOOKUP_DOMAIN: 'example.test',
      LOOKUP_ADDRESS: '192.0.2.20',
    });
  });

  it('builds to CommonJS and serves all of Dossier under /dossier beside its own routes (npm run build, npm start)', async () => {
    await app.run('npm', ['run', 'build'], 600_000);
    const port = await freePort();
    const server = new Started('npm', ['start'], {
      cwd: app.dir,
      env: {
        ...npmEnv(),
        PORT: String(port),
        HOST: '127.0.0.1',
        DOSSIER_STORE: `sqlite://${join(data, 'nest.sqlite')}`,
        DOSSIER_DNS_SERVERS: dns.address,
        DOSSIER_ADMIN_TOKEN: EXAMPLE_ADMIN_TOKEN,
      },
    });
    try {
      await waitUntilServing(server, `http://127.0.0.1:${port}/dossier/healthz`);
      const own = await fetch(`http://127.0.0.1:${port}/lookup/example.test`);
      expect(own.status).to.equal(200);
      expect(await own.json()).to.deep.equal({ domain: 'example.test', a: ['192.0.2.20'], cached: false });
      await driveMounted(`http://127.0.0.1:${port}/dossier`, 'example.test', '192.0.2.20');
      expect(server.output).to.match(/"msg":"request"/);
    } finally {
      await server.stop();
    }
  });
});
