import { expect } from 'chai';
import { cpSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { driveMounted, EXAMPLE_ADMIN_TOKEN } from '../support/drive-mounted.js';
import { npmEnv, prepareExample, type ExampleApp } from '../support/example-app.js';
import { Started, waitUntilServing } from '../support/snippets.js';

/** A loopback port free now, for a server that takes its port from the command line. */
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
 * examples/nextjs, a Next.js App Router app with Dossier under /dossier (one catch-all route module),
 * installed from its lockfile with the packed tarball: `next build` (Turbopack) opens no store, then the
 * build is served by `next start` and, copied to another folder with the project moved away, by the
 * standalone output's `server.js`; each is driven over HTTP (test/support/drive-mounted.ts).
 */
describe('examples/nextjs: Dossier in a Next.js production build', function () {
  // Installing Next.js the first time (then cached) and building take minutes on a busy machine.
  this.timeout(1_800_000);
  let dns: TestDnsServer;
  let app: ExampleApp;
  /** A store of its own for each server: the folder holds none until a request. */
  const store = (name: string): string => join(dirname(dirname(app.dir)), 'data', `${name}.sqlite`);

  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '192.0.2.10', ttl: 600 }] } });
    app = prepareExample('nextjs');
    mkdirSync(dirname(store('build')));
    // Built with the environment it runs with: still, no store is opened.
    await app.run('npx', ['next', 'build'], 1_200_000, { DOSSIER_STORE: `sqlite://${store('build')}` });
    expect(existsSync(store('build')), 'next build opened the store').to.equal(false);
  });
  after(async () => {
    await dns?.close();
    app?.remove();
  });

  /** The environment the app runs with: a store, the test's DNS server, the panel on. */
  const env = (port: number, name: string): NodeJS.ProcessEnv => ({
    ...npmEnv(),
    PORT: String(port),
    HOSTNAME: '127.0.0.1',
    DOSSIER_STORE: `sqlite://${store(name)}`,
    DOSSIER_DNS_SERVERS: dns.address,
    DOSSIER_ADMIN_TOKEN: EXAMPLE_ADMIN_TOKEN,
  });

  /** Drives the app at `server`, failing with what the server printed. */
  async function drive(server: Started & { base: string }): Promise<void> {
    try {
      await driveMounted(server.base, 'example.test', '192.0.2.10');
    } catch (error) {
      (error as Error).message += `\nThe server printed:\n${server.output}`;
      throw error;
    }
  }

  async function serve(command: string, args: string[], cwd: string): Promise<Started> {
    const port = await freePort();
    const server = new Started(command, args.concat(command === 'npx' ? ['-p', String(port), '-H', '127.0.0.1'] : []), {
      cwd,
      env: env(port, basename(cwd)),
    });
    await waitUntilServing(server, `http://127.0.0.1:${port}/dossier/healthz`);
    return Object.assign(server, { base: `http://127.0.0.1:${port}/dossier` });
  }

  it('serves all of Dossier under /dossier with next start, and logs a line a request', async () => {
    const server = (await serve('npx', ['next', 'start'], app.dir)) as Started & { base: string };
    try {
      await drive(server);
      expect(server.output).to.match(/"msg":"request"/);
    } finally {
      await server.stop();
    }
  });

  it("serves it from output: 'standalone' copied to another folder, the project moved away", async () => {
    const elsewhere = join(dirname(dirname(app.dir)), 'deployed');
    // As `cp -r` or Docker's COPY copies it: Next links its externals (.next/node_modules) relatively.
    cpSync(join(app.dir, '.next', 'standalone'), elsewhere, { recursive: true, verbatimSymlinks: true });
    // Nothing of the build's folder is left to read: only what the tracer copied.
    renameSync(app.dir, `${app.dir}-moved`);
    try {
      const server = (await serve(process.execPath, ['server.js'], elsewhere)) as Started & { base: string };
      try {
        await drive(server);
      } finally {
        await server.stop();
      }
    } finally {
      renameSync(`${app.dir}-moved`, app.dir);
    }
  });
});
