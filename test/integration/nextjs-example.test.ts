import { expect } from 'chai';
import { cpSync, existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exampleSuite } from '../support/example-app.js';

/**
 * examples/nextjs, a Next.js App Router app with Dossier under /dossier (one catch-all route module),
 * installed from its lockfile with the packed tarball: `next build` (Turbopack) opens no store, then the
 * build is served by `next start` and, copied to another folder with the project moved away, by the
 * standalone output's `server.js`; each is driven over HTTP (test/support/drive-mounted.ts).
 */
describe('examples/nextjs: Dossier in a Next.js production build', function () {
  // Installing Next.js the first time (then cached) and building take minutes on a busy machine.
  this.timeout(1_800_000);
  const example = exampleSuite('nextjs', '192.0.2.10');

  before(async () => {
    // Built with the environment it runs with: still, no store is opened.
    await example.app.run('npx', ['next', 'build'], 1_200_000, { DOSSIER_STORE: `sqlite://${example.store('build')}` });
    expect(existsSync(example.store('build')), 'next build opened the store').to.equal(false);
  });

  it('serves all of Dossier under /dossier with next start, and logs a line a request', async () => {
    const server = await example.serve('npx', (port) => ['next', 'start', '-p', String(port), '-H', '127.0.0.1'], 'start');
    try {
      await server.drive();
      expect(server.output).to.match(/"msg":"request"/);
    } finally {
      await server.stop();
    }
  });

  it("serves it from output: 'standalone' copied to another folder, the project moved away", async () => {
    const { dir } = example.app;
    const elsewhere = join(dirname(dirname(dir)), 'deployed');
    // As `cp -r` or Docker's COPY copies it: Next links its externals (.next/node_modules) relatively.
    cpSync(join(dir, '.next', 'standalone'), elsewhere, { recursive: true, verbatimSymlinks: true });
    // Nothing of the build's folder is left to read: only what the tracer copied.
    renameSync(dir, `${dir}-moved`);
    try {
      const server = await example.serve(process.execPath, () => ['server.js'], 'deployed', elsewhere);
      try {
        await server.drive();
      } finally {
        await server.stop();
      }
    } finally {
      renameSync(`${dir}-moved`, dir);
    }
  });
});
