import { expect } from 'chai';
import { KeyvDocumentStore } from '../../lib/documents/keyv-document-store.js';
import type { Backend } from '../../lib/ports/backend.js';
import type { DocumentQuery, DocumentStore, NewStoredDocument } from '../../lib/ports/document-store.js';
import { searchText } from '../../lib/records/stored-document.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { uniqueName, type BackendCase, CONTRACT_STORE_TIMEOUT_MS } from './backends.js';

/** Characters that case folding, accents, collations and LIKE patterns treat each their own way. */
const TRICKY = [
  'a',
  'A',
  'b',
  'B',
  'e',
  'é',
  'e\u0301',
  'É',
  'E',
  'ß',
  'SS',
  'ss',
  'ẞ',
  'İ',
  'i',
  'ı',
  'I',
  'Σ',
  'σ',
  'ς',
  'Ω',
  '%',
  '_',
  '\\',
  "'",
  '"',
  ' ',
  '  ',
  '-',
  '.',
  '0',
  '9',
  '😀',
  '中',
  '文',
  'ǅ',
  'ﬁ',
  'Ａ',
  '\u00ad',
  '\u200b',
  'ŉ',
  'ǰ',
];

/** What is searched for: substrings of the names and results, and strings in none. */
const NEEDLES = [
  'a',
  'A',
  'é',
  'e\u0301',
  'É',
  'ß',
  'ss',
  'SS',
  'İ',
  'i\u0307',
  'ı',
  'σ',
  'ς',
  'Σ',
  '%',
  '_',
  '\\',
  '%_',
  'a%',
  '_b',
  "'",
  '"',
  ' ',
  '😀',
  // Astral code points in runs of three UTF-16 code units, whole and split.
  'a😀',
  '😀😀',
  '中文',
  'ﬁ',
  'fi',
  'Ａ',
  '\u00ad',
  'ab',
  'aB',
  'aba',
  'abab',
  'e\u0301b',
  'ss ',
  'zzz-not-there',
  'The quick',
  'QUICK BROWN',
  'brown fox',
  // Each of its runs of three is in some result, the whole in few or none.
  'over the quick',
  'x'.repeat(40),
  // Three code points or more, which a trigram index narrows (on MySQL, the results' trigram table):
  // accents, other scripts, astral code points and case variants.
  'éclair',
  'ÉcLaI',
  'STRAßE',
  'strasse',
  'ΟΔΟΣ',
  'οδοσ',
  '😀😃😄',
  'GRIN 😀',
  '😄 wIdE',
  // Every trigram of it is in "banana", but it is in no result.
  'Bananana',
  'anana',
];

/** A generator of the same pseudo-random choices in every run. */
function randomness(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Documents with tricky names and results: case variants of one name, accents composed and not, LIKE wildcards. */
function trickyDocuments(owner: string, count: number): NewStoredDocument[] {
  const random = randomness(29);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  const text = (length: number) => Array.from({ length }, () => pick(TRICKY)).join('');
  const words = [
    'The quick',
    'brown fox',
    'jumps',
    'over',
    'the lazy dog',
    'ÉCLAIR',
    'straße',
    'ΟΔΟΣ',
    '100%',
    'snake_case',
    'grin 😀😃😄 wide',
    'banana',
  ];
  return Array.from({ length: count }, (_, n): NewStoredDocument => {
    const name =
      n % 7 === 0 ? ['apple', 'Apple', 'APPLE', 'Éclair', 'eclair', 'Eclair'][n % 6]! : text(1 + Math.floor(random() * 10));
    const result = Array.from({ length: 1 + Math.floor(random() * 8) }, () => (random() < 0.5 ? pick(words) : text(4))).join(' ');
    return {
      owner,
      name,
      template_id: pick([1, 1, 2, 53]),
      prompt: 'p',
      creativity: 0.5,
      result,
      words: 1,
      favorite: random() < 0.3,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  });
}

/** Filters whose pages are compared at once: their round trips overlap, each filter's pages in order. */
const CONCURRENT_FILTERS = 8;

/** Runs `tasks`, `width` at a time; rejects with the first failure. */
async function inTurns(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/**
 * Every list query of docs/contract.md §3 answered by the backend's documents (its tables, on a SQL backend)
 * is the answer of the key-value path (lib/documents, the one memory:// and redis:// use) on the same
 * documents: search by name or result with tricky needles, template, favorite, sort by id or name in both
 * directions, every page size and page, and the total; also after renames, new results, favorites
 * flipped and deletes.
 */
export function documentListingContract(backend: BackendCase): void {
  describe('document listings, as the key-value path answers them', () => {
    let store: Backend;
    let reference: Backend;
    let owner: string;
    beforeEach(() => {
      const clock = { now: () => Date.now() };
      store = openBackend(backend.url(), { namespace: 'dossier', clock, timeoutMs: CONTRACT_STORE_TIMEOUT_MS });
      reference = openBackend('memory://', { namespace: 'reference', clock });
      owner = uniqueName('lister');
    });
    afterEach(async () => {
      await store.close();
      await reference.close();
    });

    const documentsOf = (opened: Backend): DocumentStore =>
      opened.documents ?? new KeyvDocumentStore(opened.kv, opened.counters, { now: () => Date.now() });

    /** Creates the documents in both stores, in the same order; answers each id of the store's by the reference's. */
    async function seed(
      documents: NewStoredDocument[],
    ): Promise<{ tested: DocumentStore; expected: DocumentStore; ids: Map<number, number> }> {
      const tested = documentsOf(store);
      const expected = documentsOf(reference);
      const ids = new Map<number, number>();
      for (const document of documents) {
        const [made, kept] = await Promise.all([tested.create(document), expected.create(document)]);
        ids.set(made.id, kept.id);
      }
      return { tested, expected, ids };
    }

    /** Compares the answers of every query: ids mapped to the reference's, totals, and each document whole. */
    async function compare(tested: DocumentStore, expected: DocumentStore, ids: Map<number, number>): Promise<number> {
      let queries = 0;
      const ask = async (query: DocumentQuery, what: string): Promise<void> => {
        const [got, want] = await Promise.all([tested.list(owner, query), expected.list(owner, query)]);
        queries += 1;
        expect(got.total, `total of ${what}`).to.equal(want.total);
        expect(
          got.documents.map((document) => ids.get(document.id)),
          what,
        ).to.deep.equal(want.documents.map((document) => document.id));
        const strip = ({ id: _id, ...fields }: { id: number }) => fields;
        expect(got.documents.map(strip), `documents of ${what}`).to.deep.equal(want.documents.map(strip));
      };
      // Each filter's pages in turn, several filters at once (the store answers each on its own).
      const filters: (() => Promise<void>)[] = [];
      for (const search of [undefined, ...NEEDLES.map(searchText)]) {
        for (const searchBy of search === undefined ? (['name'] as const) : (['name', 'result'] as const)) {
          for (const templateId of [1, 2, 53, 72]) {
            for (const favorite of [undefined, true, false]) {
              for (const sortBy of ['id', 'name'] as const) {
                for (const sort of ['asc', 'desc'] as const) {
                  const filter = {
                    ...(search === undefined ? {} : { search }),
                    searchBy,
                    templateId,
                    ...(favorite === undefined ? {} : { favorite }),
                    sortBy,
                    sort,
                  };
                  const what = JSON.stringify(filter);
                  filters.push(async () => {
                    // Every page of 100, then one more past the end.
                    const first = await expected.list(owner, { ...filter, perPage: 100, page: 1 });
                    for (let page = 1; page <= Math.ceil(first.total / 100) + 1; page += 1)
                      await ask({ ...filter, perPage: 100, page }, `${what} page ${page}`);
                    if (search === undefined && favorite === undefined) {
                      for (const perPage of [10, 25, 50])
                        for (const page of [1, 2, 7])
                          await ask({ ...filter, perPage, page }, `${what} ${perPage} a page, page ${page}`);
                    }
                  });
                }
              }
            }
          }
        }
      }
      await inTurns(filters, CONCURRENT_FILTERS);
      return queries;
    }

    it('answers a needle in every document, in some, and in one alike, however the store reaches it, and every page to the last', async function () {
      this.timeout(240_000);
      // Names and results holding "harbor" in all, half, a fifth, a fiftieth and one of 500 documents (a
      // store's index narrows the rare ones, and a scan reads the common ones), and another owner's too.
      const documents = (who: string, count: number) =>
        Array.from({ length: count }, (_, n): NewStoredDocument => {
          const words = [
            n % 2 === 0 ? 'Harbor' : 'hArBoUr',
            n % 5 === 0 ? 'harbors' : 'port',
            n % 50 === 0 ? 'harborage' : 'bay',
          ];
          const text = `${n === 123 ? 'harbormaster' : 'keeper'} ${words.join(' ')} ${n}`;
          return {
            owner: who,
            name: text,
            template_id: n % 9 === 8 ? 2 : 1,
            prompt: 'p',
            creativity: 0.5,
            result: `${text} ${'and the sea '.repeat(n % 4)}harbor`,
            words: 3,
            favorite: n % 3 === 0,
            created_at: '2026-01-01T00:00:00.000Z',
            updated_at: '2026-01-01T00:00:00.000Z',
          };
        });
      const { tested, expected, ids } = await seed(documents(owner, 500));
      await seed(documents(uniqueName('other'), 200));
      const filters: (() => Promise<void>)[] = [];
      for (const search of ['harbor', 'harbors', 'harborage', 'harbormaster', 'harbo', 'ha', 'hArBoUr', 'and the sea', 'nowhere'])
        for (const searchBy of ['name', 'result'] as const)
          for (const favorite of [undefined, true])
            for (const sortBy of ['id', 'name'] as const)
              for (const sort of ['asc', 'desc'] as const) {
                const filter = {
                  search: searchText(search),
                  searchBy,
                  templateId: 1,
                  ...(favorite === undefined ? {} : { favorite }),
                  sortBy,
                  sort,
                };
                filters.push(async () => {
                  const { total } = await expected.list(owner, { ...filter, perPage: 7, page: 1 });
                  // The first pages, the middle, the last and one past it.
                  const last = Math.max(1, Math.ceil(total / 7));
                  for (const page of new Set([1, 2, Math.ceil(last / 2), last, last + 1])) {
                    const query = { ...filter, perPage: 7, page };
                    const [got, want] = await Promise.all([tested.list(owner, query), expected.list(owner, query)]);
                    const what = `${JSON.stringify(filter)} page ${page}`;
                    expect(got.total, `total of ${what}`).to.equal(want.total);
                    expect(
                      got.documents.map(({ id }) => ids.get(id)),
                      what,
                    ).to.deep.equal(want.documents.map(({ id }) => id));
                  }
                });
              }
      await inTurns(filters, CONCURRENT_FILTERS);
      // Every page of the listing in each order, to the last: the same documents, each once.
      for (const sortBy of ['id', 'name'] as const)
        for (const sort of ['asc', 'desc'] as const) {
          const filter = { searchBy: 'name' as const, templateId: 1, sortBy, sort };
          const { total } = await expected.list(owner, { ...filter, perPage: 9, page: 1 });
          for (let page = 1; page <= Math.ceil(total / 9) + 1; page += 1) {
            const [got, want] = await Promise.all([
              tested.list(owner, { ...filter, perPage: 9, page }),
              expected.list(owner, { ...filter, perPage: 9, page }),
            ]);
            expect(got.total).to.equal(want.total);
            expect(
              got.documents.map(({ id }) => ids.get(id)),
              `${sortBy} ${sort} page ${page}`,
            ).to.deep.equal(want.documents.map(({ id }) => id));
          }
        }
    });

    it('answers every list query as the key-value path does, on 400 documents with tricky names and results, and after changes', async function () {
      this.timeout(240_000);
      const { tested, expected, ids } = await seed(trickyDocuments(owner, 400));
      // Another owner's documents are never listed.
      await seed(trickyDocuments(uniqueName('other'), 20));
      expect(await compare(tested, expected, ids)).to.be.above(1000);

      const random = randomness(26);
      for (const [id, kept] of [...ids].filter(() => random() < 0.25)) {
        const changes = {
          ...(random() < 0.5 ? { name: ['APPLE', 'zebra', 'Éclair', '%_\\', 'ß'][Math.floor(random() * 5)]! } : {}),
          ...(random() < 0.5 ? { result: 'The QUICK brown fox 100% snake_case', words: 6 } : {}),
          favorite: random() < 0.5,
          updated_at: '2026-01-02T00:00:00.000Z',
        };
        const [got, want] = await Promise.all([tested.update(owner, id, changes), expected.update(owner, kept, changes)]);
        expect(got && { ...got, id: ids.get(got.id) }).to.deep.equal(want);
      }
      for (const [id, kept] of [...ids].filter(() => random() < 0.15)) {
        expect(await tested.delete(owner, id)).to.equal(await expected.delete(owner, kept));
        expect(await tested.get(owner, id)).to.equal(undefined);
        ids.delete(id);
      }
      await compare(tested, expected, ids);
    });
  });
}
