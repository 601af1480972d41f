import { expect } from 'chai';
import mysql from 'mysql2/promise';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { listKeys } from '../../lib/internal.js';
import type { ApiKey } from '../../lib/ports/key-store.js';
import { searchedText } from '../../lib/records/stored-key.js';
import { MysqlDatabase } from '../support/mysql-database.js';
import { LONG_PATIENCE_MS, until } from '../support/until.js';

const server = process.env.DOSSIER_TEST_MYSQL;

// The trigram index of the keys' search on MySQL (lib/stores/mysql/key-search.ts): every search answers
// what a plain scan of the keys answers, through creates, renames and revocations, and in a store whose
// keys were written before the index, while it is filled and after.

const NAMES = ['Production API', 'staging ÉCLAIR', 'Straße nightly', 'ΟΔΟΣ sync', 'grin 😀😃😄', 'billing', 'CI runner'];

/** Needles of one, two and three code points or more: in most keys, in some, in one, in none; across owner and id too. */
const NEEDLES = [
  'a',
  'ß',
  'api',
  'production',
  'éclair',
  'STRAßE',
  'οδοσ',
  '😀😃',
  '😃😄',
  'acct_1',
  'acct_',
  'key_',
  'ci r',
  'nowhere',
  'RENAMED',
];

/** The trigram rows of each key, as `id trigram` lines, sorted. */
async function indexRows(store: MysqlDatabase): Promise<string[]> {
  const rows = await store.query<{ id: Buffer; trigram: Buffer }>('SELECT id, trigram FROM dossier_key_trigrams');
  return rows.map(({ id, trigram }) => `${id.toString('utf8')} ${trigram.toString('utf8')}`).sort();
}

/** The rows the index must hold of `keys`: each distinct trigram of each key's searched text. */
function wantedRows(keys: ApiKey[]): string[] {
  return keys
    .flatMap((key) => {
      const points = Array.from(searchedText(key));
      return [...new Set(points.slice(2).map((_, i) => points.slice(i, i + 3).join('')))].map(
        (trigram) => `${key.id} ${trigram}`,
      );
    })
    .sort();
}

/** Every search of {@link NEEDLES}, with and without an owner, answers the keys a scan finds, newest first, with their total. */
async function expectSearches(dossier: Dossier): Promise<void> {
  const now = Date.now();
  const all = await dossier.keys.list();
  for (const needle of NEEDLES) {
    for (const owner of [undefined, 'acct_1']) {
      const want = all
        .filter((key) => (owner === undefined || key.owner === owner) && searchedText(key).includes(needle.toLowerCase()))
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
        .map((key) => key.id);
      const page = await listKeys(dossier.keys, { search: needle, limit: '500', ...(owner && { owner }) }, now);
      expect(
        page.items.map((key) => key.id),
        `${needle} of ${owner ?? 'every owner'}`,
      ).to.deep.equal(want);
      expect(page.total, `${needle} of ${owner ?? 'every owner'}`).to.equal(want.length);
    }
  }
}

/** Creates `count` keys of real-looking names over three owners; renames and revokes a few. */
async function writeKeys(dossier: Dossier, count: number): Promise<void> {
  const made: ApiKey[] = [];
  for (let n = 0; n < count; n += 1) {
    made.push((await dossier.keys.create({ name: `${NAMES[n % NAMES.length]} ${n}`, owner: `acct_${n % 3}` })).key);
  }
  for (const key of made.filter((_, n) => n % 9 === 4)) await dossier.keys.update(key.id, { name: `renamed ${key.name}` });
  for (const key of made.filter((_, n) => n % 11 === 5)) await dossier.keys.revoke(key.id);
}

(server ? describe : describe.skip)('the keys search index on MySQL', function () {
  this.timeout(LONG_PATIENCE_MS + 120_000);
  let store: MysqlDatabase;

  beforeEach(async () => {
    store = await MysqlDatabase.open(server!, 'keys');
  });

  afterEach(async () => {
    await store.close();
  });

  it('holds the trigrams of every key as it is now, and answers every search as a scan does', async () => {
    const dossier = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await writeKeys(dossier, 120);
      await expectSearches(dossier);
      expect(await indexRows(store)).to.deep.equal(wantedRows(await dossier.keys.list()));
    } finally {
      await dossier.close();
    }
  });

  it('fills the index of keys written before it, searching exactly meanwhile', async () => {
    const first = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await writeKeys(first, 120);
    } finally {
      await first.close();
    }
    // The store as the release before the index left it, but that the first half of the fill was done by a
    // process stopped then: the rows of the keys past it gone, the fill's row where it stopped.
    const [{ middle }] = (await store.query<{ middle: number }>(
      'SELECT seq AS middle FROM dossier_keys ORDER BY seq LIMIT 1 OFFSET 60',
    )) as [{ middle: number }];
    await store.query('DELETE t FROM dossier_key_trigrams t JOIN dossier_keys k ON k.id = t.id WHERE k.seq > ?', [middle]);
    await store.query(
      "UPDATE dossier_key_fills SET done_through = ?, last_seq = (SELECT MAX(seq) FROM dossier_keys) WHERE name = 'dossier_key_trigrams'",
      [middle],
    );
    const second = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await expectSearches(second);
      await until(
        async () => {
          await listKeys(second.keys, { search: 'production' }, Date.now());
          const [fill] = await store.query<{ done_through: number; last_seq: number }>(
            'SELECT done_through, last_seq FROM dossier_key_fills',
          );
          return Number(fill!.done_through) >= Number(fill!.last_seq);
        },
        'the fill was done',
        LONG_PATIENCE_MS,
      );
      expect(await indexRows(store)).to.deep.equal(wantedRows(await second.keys.list()));
      await writeKeys(second, 20);
      await expectSearches(second);
      expect(await indexRows(store)).to.deep.equal(wantedRows(await second.keys.list()));
    } finally {
      await second.close();
    }
  });

  it('fills the index of a store whose keys were all written before it', async () => {
    const first = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await writeKeys(first, 60);
    } finally {
      await first.close();
    }
    await store.query('DROP TABLE dossier_key_trigrams, dossier_key_fills');
    const second = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await expectSearches(second);
      await until(
        async () => {
          await listKeys(second.keys, { search: 'production' }, Date.now());
          const [fill] = await store.query<{ done_through: number; last_seq: number }>(
            'SELECT done_through, last_seq FROM dossier_key_fills',
          );
          return Number(fill!.done_through) >= Number(fill!.last_seq);
        },
        'the fill was done',
        LONG_PATIENCE_MS,
      );
      expect(await indexRows(store)).to.deep.equal(wantedRows(await second.keys.list()));
      await expectSearches(second);
    } finally {
      await second.close();
    }
  });
});
