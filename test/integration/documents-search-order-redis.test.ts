import { expect } from 'chai';
import type { DocumentQuery, NewStoredDocument } from '../../lib/ports/document-store.js';
import { comparedDocuments, expectListedAlike } from '../support/compared-documents.js';
import { suiteRedis } from '../support/redis-client.js';

const redisUrl = process.env.DOSSIER_TEST_REDIS;

describe(`searches of common words in the order of names on Redis${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const redis = suiteRedis({ flush: true });
  const documents = comparedDocuments(redisUrl!);

  /**
   * Document `n`: names by topic (so that the matches of a needle gather in parts of the listing by name,
   * which a walk from one end meets early and from the other late), "draft" in two names in three and
   * "drafts" in some (a needle of two words), "harbor" in the results of two topics in five; more documents
   * than a word's set keeps, so that the words' postings are bitmaps.
   */
  function document(n: number): NewStoredDocument {
    return {
      owner: 'order',
      name: `${['Quarterly', 'Éclair', 'Launch', 'Café 2026', 'Straße', 'Zeta'][n % 6]} ${n % 7 === 0 ? 'drafts' : n % 3 ? 'draft' : 'notes'} ${(n * 7919).toString(36)}`,
      template_id: 1,
      prompt: 'p',
      creativity: 0.5,
      result: `${n % 5 < 2 ? 'Harbor lights' : 'The team'} ${n % 11 ? 'plan' : 'harbormaster'}`,
      words: 3,
      favorite: n % 4 === 0,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }

  /** Calls of `command` Redis has run (scripts' calls included). */
  async function calls(command: string): Promise<number> {
    const stats = await redis.client.info('commandstats');
    return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  }

  it('lists the first, middle and last pages as the memory store does, by a walk of the listing or a sort', async function () {
    this.timeout(180_000);
    const { tested, expected } = documents;
    const ids = new Map<number, number>();
    for (let start = 0; start < 1500; start += 100) {
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
        await Promise.all([tested.update('order', id, changes), expected.update('order', kept, changes)]);
      } else if (n % 10 === 0) {
        await Promise.all([tested.delete('order', id), expected.delete('order', kept)]);
        ids.delete(id);
      }
    }
    // The words' postings are bitmaps: the walk's way is open.
    expect(
      Number(await redis.client.hExists('dossier:documents:5:order:1:bitmaps', 'dossier:documents:5:order:1:nw:draft')),
    ).to.equal(1);
    expect(
      Number(await redis.client.hExists('dossier:documents:5:order:1:bitmaps', 'dossier:documents:5:order:1:rw:harbor')),
    ).to.equal(1);
    let walks = 0;
    let sorts = 0;
    for (const [search, searchBy] of [
      ['draft', 'name'],
      ['harbor', 'result'],
      ['lights', 'result'],
    ] as const)
      for (const favorite of [undefined, true, false])
        for (const sortBy of ['name', 'id'] as const)
          for (const sort of ['asc', 'desc'] as const) {
            const query: DocumentQuery = {
              search,
              searchBy,
              templateId: 1,
              ...(favorite === undefined ? {} : { favorite }),
              sortBy,
              sort,
              perPage: 25,
              page: 1,
            };
            const last = Math.max(1, Math.ceil((await expected.list('order', query)).total / 25));
            for (const page of [1, 2, Math.ceil(last / 2), last - 1, last, last + 1]) {
              const paged = { ...query, page: Math.max(1, page) };
              const walked = await calls('zrange');
              await expectListedAlike(documents, ids, 'order', paged);
              if (sortBy === 'name') {
                if ((await calls('zrange')) > walked) walks += 1;
                else sorts += 1;
              }
            }
          }
    // Both ways were taken: the walk for pages near an end the matches reach early, the sort for the others.
    expect(walks).to.be.greaterThan(10);
    expect(sorts).to.be.greaterThan(10);
  });
});
