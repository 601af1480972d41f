import { expect } from 'chai';
import mysql from 'mysql2/promise';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { searchText } from '../../lib/records/stored-document.js';
import { wordsOf } from '../../lib/stores/mysql/document-words.js';
import { MysqlDatabase } from '../support/mysql-database.js';
import { LONG_PATIENCE_MS, until } from '../support/until.js';

const server = process.env.DOSSIER_TEST_MYSQL;

// The words of the documents on MySQL (lib/stores/mysql/document-words.ts): a search of a needle made of
// word characters is answered from them, and answers what the key-value path (the memory store, which
// reads every text) answers, through creates, changes and deletes, and in a store whose documents were
// written before the words were kept, while they are filled and after.

const WORDS = ['Harbor', 'harbors', 'ÉCLAIR', 'éclairs', 'straße', 'ΟΔΟΣ', 'plan', 'team', 'review', '2026', 'x1y2'];
/** A word longer than the longest kept as it is: found by the needles in its middle too. */
const LONG = `${'ab'.repeat(60)}quetzal${'cd'.repeat(30)}`;

/** Needles of word characters (in most documents, in some, in one, in none), and some of other characters. */
const NEEDLES = [
  'a',
  'ß',
  'harbor',
  'HARB',
  'arbors',
  'éclair',
  'Straße',
  'οδοσ',
  '202',
  'x1',
  'quetzal',
  'babq',
  'ab',
  'lc',
  'nowhere',
  'plan team',
  'a-b',
  '😀',
];

/** Text `n`: some words of {@link WORDS} with punctuation between, a long word in one of 7. */
function textOf(n: number, length: number): string {
  let state = n * 7919 + 3;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  if (n % 7 === 3) words.push(LONG);
  if (n % 13 === 5) words.push('😀 plan team a-b');
  return words.join(n % 2 === 0 ? ' ' : ', ');
}

/** A name of text `n`: as many of its first code points as 120 bytes of UTF-8 hold (a name has 128 at the most). */
function nameOf(n: number, length: number): string {
  let name = '';
  for (const point of textOf(n, length)) {
    if (Buffer.byteLength(name + point) > 120) break;
    name += point;
  }
  return name;
}

/** The word rows of each document, as `id field word` lines, sorted. */
async function wordRows(store: MysqlDatabase): Promise<string[]> {
  const rows = await store.query<{ id: number; field: number; word: Buffer }>(
    'SELECT id, field, word FROM dossier_document_words',
  );
  return rows.map(({ id, field, word }) => `${id} ${field} ${word.toString('utf8')}`).sort();
}

async function fillDone(store: MysqlDatabase): Promise<boolean> {
  const [fill] = await store.query<{ done_through: number; last_id: number }>(
    "SELECT done_through, last_id FROM dossier_document_fills WHERE name = 'dossier_document_words'",
  );
  return Number(fill!.done_through) >= Number(fill!.last_id);
}

/** The same writes on each store: `count` documents over two owners and templates, then changes and deletes of some. */
async function writeDocuments(stores: Dossier[], count: number, from = 0): Promise<void> {
  for (let n = from; n < from + count; n += 1) {
    const owner = n % 5 === 0 ? 'bob' : 'alice';
    for (const dossier of stores) {
      const made = await dossier.documents.create(owner, {
        name: nameOf(n + 1000, 3),
        prompt: 'p',
        templateId: n % 4 === 0 ? 6 : 1,
      });
      await dossier.documents.update(owner, made.id, { result: textOf(n, 6), favorite: n % 3 === 0 });
    }
  }
  for (const dossier of stores) {
    const { data } = await dossier.documents.list('alice', { perPage: 100 });
    for (const [n, document] of data.entries()) {
      if (n % 9 === 1) await dossier.documents.update('alice', document.id, { name: nameOf(n + 500, 2) });
      if (n % 9 === 2) await dossier.documents.update('alice', document.id, { result: textOf(n + 700, 5) });
      if (n % 9 === 3) await dossier.documents.delete('alice', document.id);
    }
  }
}

/** Every search of {@link NEEDLES} (each field, template, favorite filter and order) answers as the memory store does. */
async function expectSearches(dossier: Dossier, reference: Dossier): Promise<void> {
  for (const owner of ['alice', 'bob']) {
    for (const searchBy of ['name', 'result'] as const) {
      for (const templateId of [1, 6]) {
        for (const needle of NEEDLES) {
          for (const [favorite, sortBy, sort] of [
            [undefined, 'id', 'desc'],
            [true, 'id', 'asc'],
            [undefined, 'name', 'asc'],
            [false, 'name', 'desc'],
          ] as const) {
            const options = { search: needle, searchBy, templateId, favorite, sortBy, sort, perPage: 100 };
            const [got, want] = await Promise.all([
              dossier.documents.list(owner, options),
              reference.documents.list(owner, options),
            ]);
            const what = JSON.stringify({ owner, ...options });
            expect(got.total, what).to.equal(want.total);
            expect(
              got.data.map((document) => document.id),
              what,
            ).to.deep.equal(want.data.map((document) => document.id));
          }
        }
      }
    }
  }
}

/** The rows every document must have in the words: each distinct word of its searched name and result. */
async function wantedRows(reference: Dossier): Promise<string[]> {
  const rows: string[] = [];
  for (const owner of ['alice', 'bob']) {
    for (const templateId of [1, 6]) {
      for (let page = 1; ; page += 1) {
        const { data } = await reference.documents.list(owner, { templateId, perPage: 100, page });
        for (const document of data) {
          for (const word of wordsOf(searchText(document.name))) rows.push(`${document.id} 0 ${word}`);
          for (const word of wordsOf(searchText(document.result ?? ''))) rows.push(`${document.id} 1 ${word}`);
        }
        if (data.length < 100) break;
      }
    }
  }
  return rows.sort();
}

/**
 * Every page of 7 that a reader asks for first (the first two, the middle, the last and one past it) of
 * each search of `needles` by its field, with each favorite filter, by name and by id in both directions,
 * answers as the memory store does.
 */
async function expectPages(dossier: Dossier, reference: Dossier, needles: [string, 'name' | 'result'][]): Promise<void> {
  for (const [search, searchBy] of needles) {
    for (const favorite of [undefined, true, false]) {
      for (const sortBy of ['name', 'id'] as const) {
        for (const sort of ['asc', 'desc'] as const) {
          const filter = { search, searchBy, favorite, sortBy, sort, perPage: 7 };
          const { total } = await reference.documents.list('alice', filter);
          const last = Math.max(1, Math.ceil(total / 7));
          for (const page of new Set([1, 2, Math.ceil(last / 2), last, last + 1])) {
            const [got, want] = await Promise.all([
              dossier.documents.list('alice', { ...filter, page }),
              reference.documents.list('alice', { ...filter, page }),
            ]);
            const what = `${JSON.stringify(filter)} page ${page}`;
            expect(got.total, what).to.equal(want.total);
            expect(
              got.data.map((document) => document.id),
              what,
            ).to.deep.equal(want.data.map((document) => document.id));
          }
        }
      }
    }
  }
}

(server ? describe : describe.skip)('the words of the documents on MySQL', function () {
  this.timeout(LONG_PATIENCE_MS + 300_000);
  let store: MysqlDatabase;
  let reference: Dossier;

  beforeEach(async () => {
    store = await MysqlDatabase.open(server!, 'words');
    reference = createDossier({ store: 'memory://' });
  });

  afterEach(async () => {
    await reference.close();
    await store.close();
  });

  it('holds the words of every document as it is now, and answers every search as a reading of every text does', async () => {
    const dossier = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await writeDocuments([dossier, reference], 90);
      expect(await wordRows(store)).to.deep.equal(await wantedRows(reference));
      await expectSearches(dossier, reference);
    } finally {
      await dossier.close();
    }
  });

  it('answers a common needle in the order of names or of ids, page by page, as a reading of every text does', async () => {
    const dossier = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      // "Draft" in a quarter of the names (its trigrams too common to narrow the search: the words answer
      // it), "harbor" in a fifth of the results (its trigrams narrow it; "rb" has none: the words answer
      // it); names in no order of the ids, some the same (ties broken by id), a third of them favorites.
      for (let n = 0; n < 400; n += 1) {
        const name = `${['Launch', 'hiring', 'Écho'][n % 3]} ${n % 4 === 1 ? 'Draft' : 'notes'} ${(n * 37) % 101}`;
        const result = `${textOf(n, 4)} ${n % 5 === 2 ? 'harbor' : 'port'}`;
        for (const made of [dossier, reference]) {
          const { id } = await made.documents.create('alice', { name, prompt: 'p', templateId: n % 10 === 9 ? 6 : 1 });
          await made.documents.update('alice', id, { result, favorite: n % 3 === 0 });
        }
      }
      await expectPages(dossier, reference, [
        ['draft', 'name'],
        ['dra', 'name'],
        ['harbor', 'result'],
        ['rb', 'result'],
      ]);
    } finally {
      await dossier.close();
    }
  });

  it('fills the words of documents written before them, searching exactly meanwhile', async () => {
    const first = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await writeDocuments([first, reference], 60);
    } finally {
      await first.close();
    }
    // As the release before the words left the store: no words, nor their vocabulary, nor their fill's row.
    await store.query('DROP TABLE dossier_document_words, dossier_document_vocabulary');
    await store.query("DELETE FROM dossier_document_fills WHERE name = 'dossier_document_words'");
    // The fill waits behind the first document, held here, until it is let go.
    const holder = await mysql.createConnection({ uri: store.url });
    const second = createDossier({ store: store.url, storeTimeoutMs: 15_000 });
    try {
      await holder.query('START TRANSACTION');
      await holder.query('SELECT id FROM dossier_document_results ORDER BY id LIMIT 1 FOR UPDATE');
      await expectSearches(second, reference);
      expect(await fillDone(store), 'the fill is not done').to.equal(false);
      await holder.query('ROLLBACK');
      await until(
        async () => {
          await second.documents.list('alice', { search: 'plan' });
          return fillDone(store);
        },
        'the fill was done',
        LONG_PATIENCE_MS,
      );
      expect(await wordRows(store)).to.deep.equal(await wantedRows(reference));
      await expectSearches(second, reference);
      await writeDocuments([second, reference], 20, 60);
      expect(await wordRows(store)).to.deep.equal(await wantedRows(reference));
      await expectSearches(second, reference);
    } finally {
      await holder.end();
      await second.close();
    }
  });
});
