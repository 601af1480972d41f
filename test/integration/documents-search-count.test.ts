import Database from 'better-sqlite3';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DocumentQuery, NewStoredDocument, StoredDocument } from '../../lib/ports/document-store.js';
import { nameSortKey, searchText } from '../../lib/records/stored-document.js';
import type { Backend } from '../../lib/ports/backend.js';
import { openBackend } from '../../lib/stores/open-backend.js';

const postgres = process.env.DOSSIER_TEST_POSTGRES;

/** Document `n`: "draft" in a quarter of the names, "harbor" in a fifth of the results, one "quetzal", LIKE's own characters in a few. */
function documentNumber(n: number): NewStoredDocument {
  return {
    owner: n % 7 === 6 ? 'other' : 'owner',
    name: `${n % 4 === 1 ? 'Draft' : 'Notes'} ${n % 9 === 0 ? '100%' : n % 11 === 0 ? 'a_b' : 'ab'} ${(n * 7919) % 1000}`,
    template_id: n % 10 === 9 ? 6 : 1,
    prompt: 'p',
    creativity: 0.5,
    result: `Plan the work ${n % 5 === 2 ? 'at the HARBOR' : 'in town'}${n === 100 ? ' quetzal' : ''}${n % 13 === 0 ? ' back\\slash' : ''}`,
    words: 6,
    favorite: n % 3 === 0,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

/** What a search answers when every document of the owner is read and checked (`includes`), in the listing's order. */
function scanned(documents: StoredDocument[], query: DocumentQuery & { search: string }): StoredDocument[] {
  const direction = query.sort === 'asc' ? 1 : -1;
  return documents
    .filter(
      (document) =>
        document.owner === 'owner' &&
        document.template_id === query.templateId &&
        (query.favorite === undefined || document.favorite === query.favorite) &&
        searchText(query.searchBy === 'name' ? document.name : document.result).includes(query.search),
    )
    .sort((a, b) => {
      if (query.sortBy === 'name') {
        const [ka, kb] = [nameSortKey(a.name), nameSortKey(b.name)];
        if (ka !== kb) return (ka < kb ? -1 : 1) * direction;
      }
      return (a.id - b.id) * direction;
    });
}

const SEARCHES: { search: string; searchBy: 'name' | 'result' }[] = [
  { search: 'draft', searchBy: 'name' },
  { search: 'harbor', searchBy: 'result' },
  { search: 'quetzal', searchBy: 'result' },
  { search: 'the', searchBy: 'result' },
  { search: 'ha', searchBy: 'result' },
  { search: '100%', searchBy: 'name' },
  { search: 'a_b', searchBy: 'name' },
  { search: 'k\\s', searchBy: 'result' },
  { search: 'nowhere', searchBy: 'name' },
];

const STORES: { label: string; open(): Promise<{ url: string; drop(): Promise<void> }> }[] = [
  {
    label: 'SQLite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'dossier-search-count-'));
      return { url: `sqlite://${join(dir, 'store.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    label: 'PostgreSQL',
    async open() {
      const schema = `search_count_${randomBytes(5).toString('hex')}`;
      const admin = async (sql: string) => {
        const client = new pg.Client({ connectionString: postgres });
        await client.connect();
        await client.query(sql).finally(() => client.end());
      };
      await admin(`CREATE SCHEMA ${schema}`);
      const url = new URL(postgres!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return { url: url.href, drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
    },
  },
];

for (const store of STORES) {
  const skipped = store.label === 'PostgreSQL' && !postgres;
  describe(`a search's count and page on ${store.label}, a common needle or a rare one${skipped ? ' (skipped: set DOSSIER_TEST_POSTGRES to run it)' : ''}`, () => {
    let backend: Backend;
    let drop: () => Promise<void>;
    let url: string;
    const written: StoredDocument[] = [];

    before(async function () {
      if (skipped) this.skip();
      this.timeout(120_000);
      ({ url, drop } = await store.open());
      backend = openBackend(url, { namespace: 'dossier', clock: { now: () => Date.now() } });
      for (let n = 0; n < 700; n += 1) written.push(await backend.documents!.create(documentNumber(n)));
    });

    after(async () => {
      await backend?.close();
      await drop?.();
    });

    it('answers the same total and pages as a scan of every document, whichever way the count and the page go', async function () {
      this.timeout(60_000);
      for (const { search, searchBy } of SEARCHES)
        for (const favorite of [undefined, true, false])
          for (const [sortBy, sort, page] of [
            ['id', 'desc', 1],
            ['name', 'asc', 2],
            ['id', 'asc', 9],
          ] as const) {
            const query = {
              search,
              searchBy,
              templateId: 1,
              sortBy,
              sort,
              perPage: 10,
              page,
              ...(favorite === undefined ? {} : { favorite }),
            };
            const expected = scanned(written, query);
            const listed = await backend.documents!.list('owner', query);
            const label = JSON.stringify(query);
            expect(listed.total, label).to.equal(expected.length);
            expect(
              listed.documents.map(({ id }) => id),
              label,
            ).to.deep.equal(expected.slice((page - 1) * 10, page * 10).map(({ id }) => id));
          }
    });

    it('pages a common needle by result in name order from the index of names and the phrase, reading no result (SQLite)', async function () {
      if (store.label !== 'SQLite') this.skip();
      // The results blanked behind the store's back (its trigger, which would follow them into the FTS
      // table, taken away for it): only a page that reads no result still finds the matches.
      const db = new Database(new URL(url).pathname);
      try {
        db.exec('DROP TRIGGER dossier_documents_rewritten');
        db.exec("UPDATE dossier_documents SET result_lower = ''");
      } finally {
        db.close();
      }
      for (const favorite of [undefined, true])
        for (const page of [1, 2, 5]) {
          const query = {
            search: 'harbor',
            searchBy: 'result' as const,
            templateId: 1,
            sortBy: 'name' as const,
            sort: 'asc' as const,
            perPage: 10,
            page,
            ...(favorite === undefined ? {} : { favorite }),
          };
          const expected = scanned(written, query);
          const listed = await backend.documents!.list('owner', query);
          expect(listed.total, JSON.stringify(query)).to.equal(expected.length);
          expect(
            listed.documents.map(({ id }) => id),
            JSON.stringify(query),
          ).to.deep.equal(expected.slice((page - 1) * 10, page * 10).map(({ id }) => id));
        }
    });

    it('counts the matches without reading the whole table (PostgreSQL: no sequential scan)', async function () {
      if (store.label !== 'PostgreSQL') this.skip();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('ANALYZE dossier_documents');
        const plans: string[] = [];
        client.on('notice', (notice) => plans.push(notice.message ?? ''));
        await client.query("LOAD 'auto_explain'");
        await client.query(
          'SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice',
        );
        for (const [column, pattern] of [
          ['result_lower', '%harbor%'],
          ['result_lower', '%the%'],
          ['name_lower', '%draft%'],
        ]) {
          plans.length = 0;
          const { rows } = await client.query('SELECT dossier_documents_matches($1, 1, NULL, $2, $3) AS n', [
            'owner',
            column,
            pattern,
          ]);
          const needle = pattern!.slice(1, -1);
          expect(Number(rows[0].n)).to.equal(
            written.filter(
              (d) =>
                d.owner === 'owner' &&
                d.template_id === 1 &&
                searchText(column === 'name_lower' ? d.name : d.result).includes(needle),
            ).length,
          );
          const counted = plans.find((plan) => plan.includes('SELECT count(*) FROM dossier_documents'));
          expect(counted, plans.join('\n')).to.be.a('string');
          expect(counted).not.to.include('Seq Scan');
        }
      } finally {
        await client.end();
      }
    });
  });
}
