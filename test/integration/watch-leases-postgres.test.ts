import { expect } from 'chai';
import pg from 'pg';
import { createPostgresBackend } from '../../lib/stores/postgres/backend.js';
import type { Backend } from '../../lib/ports/backend.js';

// The leases of a PostgreSQL store (each check of a watch takes, renews and gives back its own) are an
// unlogged table: their commits wait for no WAL flush, and a crash of the database server frees them all.
describe('the leases of a PostgreSQL store', function () {
  const url = process.env.DOSSIER_TEST_POSTGRES;
  let backend: Backend | undefined;
  let client: pg.Client | undefined;

  beforeEach(async function () {
    if (!url) this.skip();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('DROP TABLE IF EXISTS dossier_leases');
  });

  afterEach(async () => {
    await backend?.close();
    await client?.end();
    backend = client = undefined;
  });

  /** `u` (unlogged) or `p` (logged), as the catalog says of the table of leases of the test's schema. */
  async function persistence(): Promise<string> {
    const { rows } = await client!.query<{ p: string }>(
      `SELECT relpersistence AS p FROM pg_class WHERE oid = 'dossier_leases'::regclass`,
    );
    return rows[0]!.p;
  }

  it('are made unlogged before the first watch is read, in a store whose table of an older release was logged, and work as before', async () => {
    backend = createPostgresBackend({ url: url! });
    // Made by the counters at their first call, as the releases before made it: logged.
    expect(await backend.counters.acquireLease('lease:a', 'one', 10_000)).to.equal(true);
    expect(await persistence()).to.equal('p');
    await backend.watches!.get('wat_0000000000000000');
    expect(await persistence()).to.equal('u');
    // The lease taken before is still held; another takes it once it is given back.
    expect(await backend.counters.acquireLease('lease:a', 'two', 10_000)).to.equal(false);
    await backend.counters.releaseLease('lease:a', 'one');
    expect(await backend.counters.acquireLease('lease:a', 'two', 10_000)).to.equal(true);
  });
});
