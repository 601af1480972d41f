import { expect } from 'chai';
import type { DocumentQuery, NewStoredDocument } from '../../lib/ports/document-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { LeaseQueue } from '../../lib/stores/shared/lease.js';
import { comparedDocuments, expectListedAlike } from '../support/compared-documents.js';
import { suiteRedis } from '../support/redis-client.js';

const redisUrl = process.env.DOSSIER_TEST_REDIS;

describe(`documents on Redis whose grams outgrow a set${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const redis = suiteRedis();
  const documents = comparedDocuments(redisUrl!);

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
    const { tested, expected } = documents;
    const ids = new Map<number, number>();
    for (let n = 0; n < 1200; n += 1) {
      const [made, kept] = await Promise.all([tested.create(document(n)), expected.create(document(n))]);
      ids.set(made.id, kept.id);
    }
    // More documents hold `app` than a set keeps: it is a bitmap now.
    expect(await redis.client.type('dossier:documents:4:many:1:n:app')).to.equal('string');
    expect(await redis.client.type('dossier:documents:4:many:1:r:zeb')).to.equal('string');
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
              await expectListedAlike(documents, ids, 'many', query);
            }
  });
  it('finds by scanning the searched names what includes finds, in names with NUL, 2, digits and commas too', async function () {
    this.timeout(60_000);
    const { tested, expected } = documents;
    // Names that hold what the scanned chunks put between names (NUL, 2, digits, commas), most of them a
    // common needle's (more documents than a set of grams keeps, so that a search reads the chunks).
    const named = (n: number): NewStoredDocument => ({
      ...document(n),
      owner: 'scanned',
      name: `${n % 4 ? 'Odd' : 'even'} 1,${n % 8 ? 1 : 0},${n % 11}\u0000${n % 5}\u0002${n % 13 ? 'x' : 'y'}`,
      favorite: n % 3 === 0,
    });
    const ids = new Map<number, number>();
    for (let n = 0; n < 800; n += 1) {
      const [made, kept] = await Promise.all([tested.create(named(n)), expected.create(named(n))]);
      ids.set(made.id, kept.id);
    }
    // Bitmaps: a search of these reads the chunks (`1,1` is in what follows each name there too).
    for (const gram of ['odd', '1,1', 'x'])
      expect(await redis.client.type(`dossier:documents:7:scanned:1:n:${gram}`)).to.equal('string');
    let n = 0;
    for (const [id, kept] of ids) {
      n += 1;
      if (n % 9 === 0) {
        const changes = { name: `renamed ${n % 4},1`, updated_at: 'later' };
        await Promise.all([tested.update('scanned', id, changes), expected.update('scanned', kept, changes)]);
      } else if (n % 10 === 0) {
        await Promise.all([tested.delete('scanned', id), expected.delete('scanned', kept)]);
        ids.delete(id);
      }
    }
    const compare = async () => {
      for (const search of ['odd', 'even', '1,1', '1,', ',0', '0', 'x', 'd 1,1,3', '\u00002', '\u0002x', 'renamed 2', 'zzz'])
        for (const favorite of [undefined, false])
          for (const sortBy of ['id', 'name'] as const) {
            const query: DocumentQuery = {
              search,
              searchBy: 'name',
              templateId: 1,
              ...(favorite === undefined ? {} : { favorite }),
              sortBy,
              sort: 'desc',
              perPage: 30,
              page: 2,
            };
            await expectListedAlike(documents, ids, 'scanned', query);
          }
    };
    await compare();
    // A store written before the chunks and searched names were kept reads the grams, and checks names here.
    await redis.client.del(['dossier:documents:7:scanned:1:name-chunks', 'dossier:documents:7:scanned:1:names']);
    await compare();
  });
});

describe(`the leases of documents on Redis${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const clock = { now: () => Date.now() };
  const redis = suiteRedis({ flush: true });

  const query: DocumentQuery = { searchBy: 'name', templateId: 1, sortBy: 'id', sort: 'desc', perPage: 10, page: 1 };

  it('takes no indexing lease on a store with nothing to index, and waits for none a dead process left', async function () {
    this.timeout(30_000);
    // What a process killed while indexing would leave: the lease, held for a minute by no one alive.
    await redis.client.set('dossier:counter:lease:documents:indexing:fresh', 'a dead process', { PX: 60_000 });
    // A deadline far below the lease's minute: a list that waited for it would fail.
    const documents = openBackend(redisUrl!, { namespace: 'dossier', clock, timeoutMs: 2_000 });
    try {
      expect(await documents.documents!.list('fresh', query)).to.deep.equal({ documents: [], total: 0 });
      expect(await documents.documents!.list('other', query)).to.deep.equal({ documents: [], total: 0 });
    } finally {
      await documents.close();
    }
    const taken: string[] = [];
    for await (const keys of redis.client.scanIterator({ MATCH: 'dossier:counter:lease:*' })) taken.push(...keys);
    expect(taken, 'only the dead process left a lease').to.deep.equal(['dossier:counter:lease:documents:indexing:fresh']);
    expect(await redis.client.get('dossier:documents:5:fresh:indexed'), 'marked indexed').to.equal('1');
  });

  it("holds a document's lease as long as its holder runs, and never for more than a second past it", async function () {
    this.timeout(30_000);
    const backend = openBackend(redisUrl!, { namespace: 'dossier', clock, timeoutMs: 2_000 });
    try {
      const other = new LeaseQueue(backend.counters, { waitMs: 100 });
      const seen: number[] = [];
      let refused = 0;
      await new LeaseQueue(backend.counters).run('documents:lease:7', async () => {
        // Three times the lease's second: a holder this slow keeps it, renewed.
        for (let n = 0; n < 30; n += 1) {
          seen.push(await redis.client.pTTL('dossier:counter:lease:documents:lease:7'));
          await other.run('documents:lease:7', async () => expect.fail('taken while held')).catch(() => (refused += 1));
        }
      });
      expect(Math.min(...seen), 'held throughout').to.be.above(0);
      expect(Math.max(...seen), 'never more than a second ahead').to.be.at.most(1000);
      expect(refused).to.equal(30);
    } finally {
      await backend.close();
    }
    expect(await redis.client.exists('dossier:counter:lease:documents:lease:7'), 'freed').to.equal(0);
  });
});
