import { expect } from 'chai';
import { exampleSuite } from '../support/example-app.js';

/**
 * examples/nestjs, a NestJS app on its Express platform compiled to CommonJS, with Dossier under /dossier
 * and a route of its own that calls Dossier: installed from its lockfile with the packed tarball, its
 * Jest tests pass (`npm test`, Nest's default Jest and ts-jest setup), and `npm run build` then
 * `npm start` serve it, driven over HTTP.
 */
describe('examples/nestjs: Dossier in a NestJS app (Express, CommonJS, Jest)', function () {
  this.timeout(1_800_000);
  const example = exampleSuite('nestjs', '192.0.2.20');

  it('passes its Jest tests, which call a route that calls Dossier (npm test)', async () => {
    await example.app.run('npm', ['test'], 600_000, {
      DOSSIER_STORE: 'memory://',
      DOSSIER_DNS_SERVERS: example.dns.address,
      LOOKUP_DOMAIN: 'example.test',
      LOOKUP_ADDRESS: '192.0.2.20',
    });
  });

  it('builds to CommonJS and serves all of Dossier under /dossier beside its own routes (npm run build, npm start)', async () => {
    await example.app.run('npm', ['run', 'build'], 600_000);
    const server = await example.serve('npm', () => ['start'], 'nest');
    try {
      const own = await fetch(`${new URL(server.base).origin}/lookup/example.test`);
      expect(own.status).to.equal(200);
      expect(await own.json()).to.deep.equal({ domain: 'example.test', a: ['192.0.2.20'], cached: false });
      await server.drive();
      expect(server.output).to.match(/"msg":"request"/);
    } finally {
      await server.stop();
    }
  });
});
