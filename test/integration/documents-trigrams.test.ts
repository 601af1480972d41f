import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import type { DocumentListOptions } from '../../lib/index.js';
import { until } from '../support/until.js';

const postgres = process.env.DOSSIER_TEST_POSTGRES;

describe(`documents on a PostgreSQL database where the role may not create pg_trgm${postgres ? '' : ' (skipped: set DOSSIER_TEST_POSTGRES to run it)'}`, () => {
  const name = `dossier_trgm_${randomBytes(5).toString('hex')}`;
  let admin: pg.Client;
  let url: string;
  let warnings: string[];

  before(async function () {
    if (!postgres) this.skip();
    this.timeout(30_000);
    admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
    // A database of its own, without pg_trgm, and a role that may create tables in it but not extensions.
    await admin.query(`CREATE ROLE ${name} LOGIN`);
    await admin.query(`CREATE DATABASE ${name}`);
    const inside = new URL(postgres!);
    inside.pathname = `/${name}`;
    inside.searchParams.delete('options');
    const owner = new pg.Client({ connectionString: inside.href });
    await owner.connect();
    await owner.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${name}`);
    await owner.end();
    inside.username = name;
    url = inside.href;
  });

  after(async () => {
    if (!admin) return;
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${name}`);
    await admin.end();
  });

  function open(): Dossier {
    return createDossier({ store: url, logger: { info() {}, error() {}, warn: (message) => warnings.push(message) } });
  }

  async function expectSearches(dossier: Dossier): Promise<void> {
    const found = async (query: DocumentListOptions) => (await dossier.documents.list('alice', query)).data.map((d) => d.name);
    expect(await found({ search: 'APPLE' })).to.deep.equal(['apple 100%', 'Apple pie']);
    expect(await found({ search: '100%' })).to.deep.equal(['apple 100%']);
    expect(await found({ search: 'ÉCL', searchBy: 'result' })).to.deep.equal(['Apple pie']);
    expect(await found({ search: 'zz', searchBy: 'result' })).to.deep.equal([]);
  }

  it('lists and searches the same without it (reading the rows), says so, and builds the trigram indexes once it is there', async function () {
    this.timeout(30_000);
    warnings = [];
    let dossier = open();
    try {
      await dossier.documents.create('alice', { name: 'Apple pie', prompt: 'p' });
      const pie = (await dossier.documents.list('alice', {})).data[0]!;
      await dossier.documents.update('alice', pie.id, { result: 'with an éclair' });
      await dossier.documents.create('alice', { name: 'apple 100%', prompt: 'p' });
      await expectSearches(dossier);
      expect(warnings.join('\n')).to.match(/pg_trgm/);
    } finally {
      await dossier.close();
    }
    const inside = new URL(url);
    inside.username = 'postgres';
    const superuser = new pg.Client({ connectionString: inside.href });
    await superuser.connect();
    try {
      await superuser.query('CREATE EXTENSION pg_trgm');
      warnings = [];
      dossier = open();
      try {
        await expectSearches(dossier);
        await until(async () => {
          const { rows } = await superuser.query(
            `SELECT count(*) AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE c.relname LIKE 'dossier_documents_%_trigrams' AND i.indisvalid`,
          );
          return Number(rows[0].n) === 2;
        }, 'both trigram indexes were built');
        await expectSearches(dossier);
        expect(warnings).to.deep.equal([]);
      } finally {
        await dossier.close();
      }
    } finally {
      await superuser.end();
    }
  });
});
