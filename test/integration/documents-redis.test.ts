import { expect } from 'chai';
import { createClient } from '@keyv/redis';
import { KeyvDocumentStore } from '../../lib/documents/keyv-document-store.js';
import type { Backend } from '../../lib/ports/backend.js';
import type { DocumentQuery, DocumentStore, NewStoredDocument } from '../../lib/ports/document-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';

const redisUrl = process.env.DOSSIER_TEST_REDIS;

describe(`documents on Redis whose grams outgrow a set${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const clock = { now: () => Date.now() };
  let store: Backend;
  let reference: Backend;
  let redis: ReturnType<typeof createClient>;

  before(async function () {
    if (!redisUrl) this.skip();
    redis = createClient({ url: redisUrl });
    await redis.connect();
  });
  beforeEach(() => {
    store = openBackend(redisUrl!, { namespace: 'dossier', clock, timeoutMs: 15_000 });
    reference = openBackend('memory://', { namespace: 'reference', clock });
  });
  afterEach(async () => {
    await store?.close();
    await reference?.close();
  });
  after(async () => {
    await redis?.quit();
  });

  function document(n: number): NewStoredDocument {
    return {
      owner: 'many',
      name: `${n % 2 ? 'Apple' : 'apple'} ${n % 50}`,
      template_id: 1,
      prompt: 'p',
      creativity: 0.5,
      result: `${n % 3 ? 'zebra crossing' : 'Zebra'} ${n % 7}`,
      words: 2,
      favorite: n % 4 === 0,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }

  it('lists as the key-value path does once grams are bitmaps, after renames, new results and deletes too', async function () {
    this.timeout(60_000);
    const tested = store.documents!;
    const expected: DocumentStore = new KeyvDocumentStore(reference.kv, reference.counters, clock);
    const ids = new Map<number, number>();
    for (let n = 0; n < 1200; n += 1) {
      const [made, kept] = await Promise.all([tested.create(document(n)), expected.create(document(n))]);
      ids.set(made.id, kept.id);
    }
    // More documents hold `app` than a set keeps: it is a bitmap now.
    expect(await redis.type('dossier:documents:4:many:1:n:app')).to.equal('string');
    expect(await redis.type('dossier:documents:4:many:1:r:zeb')).to.equal('string');
    let n = 0;
    for (const [id, kept] of ids) {
      n += 1;
      if (n % 5 === 0) {
        const changes = { name: n % 2 ? 'Pear' : 'apple pie', result: 'no stripes', favorite: n % 3 === 0, updated_at: 'later' };
        await Promise.all([tested.update('many', id, changes), expected.update('many', kept, changes)]);
      } else if (n % 7 === 0) {
        await Promise.all([tested.delete('many', id), expected.delete('many', kept)]);
        ids.delete(id);
      }
    }
    for (const [search, searchBy] of [
      ['apple', 'name'],
      ['apple 4', 'name'],
      ['p', 'name'],
      ['pe', 'name'],
      ['pear', 'name'],
      ['zebra', 'result'],
      ['zebra crossing 3', 'result'],
      ['ze', 'result'],
      ['stripes', 'result'],
    ] as const)
      for (const favorite of [undefined, true])
        for (const sortBy of ['id', 'name'] as const)
          for (const sort of ['asc', 'desc'] as const)
            for (const page of [1, 4]) {
              const query: DocumentQuery = {
                search,
                searchBy,
                templateId: 1,
                ...(favorite ? { favorite } : {}),
                sortBy,
                sort,
                perPage: 50,
                page,
              };
              const [got, want] = await Promise.all([tested.list('many', query), expected.list('many', query)]);
              const what = JSON.stringify(query);
              expect(got.total, what).to.equal(want.total);
              expect(
                got.documents.map(({ id }) => ids.get(id)),
                what,
              ).to.deep.equal(want.documents.map(({ id }) => id));
            }
  });
});
