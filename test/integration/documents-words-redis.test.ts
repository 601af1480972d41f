import { expect } from 'chai';
import type { DocumentQuery, DocumentStore, NewStoredDocument } from '../../lib/ports/document-store.js';
import { WORD_KEYS } from '../../lib/stores/redis/document-words.js';
import { comparedDocuments, expectListedAlike } from '../support/compared-documents.js';
import { suiteRedis } from '../support/redis-client.js';

const redisUrl = process.env.DOSSIER_TEST_REDIS;

/** Needles of every kind: common words and parts of them, rare ones, one or two characters, accents, digits, others. */
const NEEDLES = [
  'draft',
  'raf',
  'notes',
  'harbor',
  'harb',
  'master',
  'e',
  'ea',
  'é',
  'éclair',
  'crème',
  'straße',
  'ss',
  '2026',
  '20',
  '42',
  '😀',
  '中文',
  'zz',
  'draft a',
  'e-mail',
  '100%',
  'snake_case',
  'brûlée.',
];

describe(`the words of documents on Redis${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const redis = suiteRedis({ flush: true });
  const documents = comparedDocuments(redisUrl!);
  const keys = 'dossier:documents:5:words:1:';

  /**
   * Document `n`: "draft" in half the names and "harbor" in half the results (more documents than a set of
   * a gram or a word keeps), "harbors" and "harbormaster" in fewer (sets), accents, digits, an astral code
   * point, and words joined by punctuation.
   */
  function document(n: number): NewStoredDocument {
    const results = [
      n % 2 ? 'the team' : 'Harbor lights',
      n % 3 ? 'Crème brûlée.' : 'harbors, straße',
      n % 11 ? 'e-mail 100%' : 'HarborMaster snake_case',
      n % 13 ? 'plan' : '😀 中文 42',
    ];
    return {
      owner: 'words',
      name: `${['Quarterly', 'Éclair', 'Launch', 'Café 2026', 'Straße'][n % 5]} ${n % 2 ? 'draft' : 'notes'} ${(n * 7919).toString(36)}`,
      template_id: 1,
      prompt: 'p',
      creativity: 0.5,
      result: results.join(' '),
      words: 8,
      favorite: n % 4 === 0,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }

  /** Writes documents to Redis and to the memory store alike, then changes and deletes some; answers Redis's ids to the other's. */
  async function written(tested: DocumentStore, expected: DocumentStore): Promise<Map<number, number>> {
    const ids = new Map<number, number>();
    for (let start = 0; start < 1300; start += 100) {
      const made = await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          Promise.all([tested.create(document(start + n)), expected.create(document(start + n))]),
        ),
      );
      for (const [mine, theirs] of made) ids.set(mine.id, theirs.id);
    }
    let n = 0;
    for (const [id, kept] of ids) {
      n += 1;
      if (n % 9 === 0) {
        const changes = { name: 'Harbor draftsman', result: 'No harbour here', favorite: n % 2 === 0, updated_at: 'later' };
        await Promise.all([tested.update('words', id, changes), expected.update('words', kept, changes)]);
      } else if (n % 10 === 0) {
        await Promise.all([tested.delete('words', id), expected.delete('words', kept)]);
        ids.delete(id);
      }
    }
    return ids;
  }

  /** Checks that every search of `needles` lists what the memory store lists: totals, first and last pages. */
  async function compare(
    tested: DocumentStore,
    expected: DocumentStore,
    ids: Map<number, number>,
    needles: string[],
    searchBys: ('name' | 'result')[] = ['name', 'result'],
  ): Promise<void> {
    for (const search of needles)
      for (const searchBy of searchBys)
        for (const favorite of [undefined, true, false])
          for (const sortBy of ['id', 'name'] as const)
            for (const sort of ['asc', 'desc'] as const) {
              const query: DocumentQuery = {
                search,
                searchBy,
                templateId: 1,
                ...(favorite === undefined ? {} : { favorite }),
                sortBy,
                sort,
                perPage: 40,
                page: 1,
              };
              const want = await expected.list('words', query);
              for (const page of [1, Math.max(1, Math.ceil(want.total / 40))]) {
                await expectListedAlike({ tested, expected }, ids, 'words', { ...query, page });
              }
            }
  }

  /** Empties the searched texts that Redis checks a candidate on, so that only the words can find what a search lists. */
  async function withoutTexts(): Promise<void> {
    for (const hash of ['texts', 'names']) {
      const fields = await redis.client.hKeys(keys + hash);
      await redis.client.hSet(keys + hash, Object.fromEntries(fields.map((field) => [field, ''])));
    }
    await redis.client.del(keys + 'name-chunks');
  }

  it('lists what the memory store lists for every needle, and finds a common word from its words alone', async function () {
    this.timeout(120_000);
    const { tested, expected } = documents;
    const ids = await written(tested, expected);
    // A bitmap (more documents hold it than a set keeps) and a set, each listed under its word.
    expect(await redis.client.type(`${keys}rw:harbor`)).to.equal('string');
    expect(await redis.client.type(`${keys}rw:harbors`)).to.equal('set');
    expect(await redis.client.type(`${keys}nw:draft`)).to.equal('string');
    await compare(tested, expected, ids, NEEDLES);
    expect(await redis.client.keys(`${keys}union:*`), 'the unions made are dropped').to.deep.equal([]);
    await withoutTexts();
    // These needles' grams are bitmaps, and their words few: the words alone answer them.
    await compare(tested, expected, ids, ['harbor', 'harb', 'brûlée', 'crème'], ['result']);
    await compare(tested, expected, ids, ['draft', 'raf', 'no'], ['name']);
  });

  it('fills the words of documents written before they were kept, searching as before meanwhile', async function () {
    this.timeout(120_000);
    const { tested, expected } = documents;
    const ids = await written(tested, expected);
    // What a store of the release before holds: the same indexes, without the words.
    const words: string[] = [];
    for await (const found of redis.client.scanIterator({ MATCH: `${keys}[nr]w:*`, COUNT: 1000 })) words.push(...found);
    await redis.client.del([...words, ...WORD_KEYS.map((name) => keys + name)]);
    await redis.client.hDel(`${keys}bitmaps`, words);
    // A document written by this release before the fill: its words are kept as it is written.
    const [made, kept] = await Promise.all([tested.create(document(7)), expected.create(document(7))]);
    ids.set(made.id, kept.id);
    expect(Number(await redis.client.get(`${keys}words-to-fill`)), 'the ordinals before it are to be filled').to.equal(
      Number(await redis.client.get(`${keys}ordinal`)) - 1,
    );
    await compare(tested, expected, ids, NEEDLES);
    // The first searches started the fill; the searches went on without the words meanwhile.
    while ((await redis.client.get(`${keys}words-to-fill`)) !== '0') await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await redis.client.type(`${keys}rw:harbor`)).to.equal('string');
    await compare(tested, expected, ids, NEEDLES);
    await withoutTexts();
    await compare(tested, expected, ids, ['harbor', 'harb'], ['result']);
    await compare(tested, expected, ids, ['draft', 'no'], ['name']);
  });
});
