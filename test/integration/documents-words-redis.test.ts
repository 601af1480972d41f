import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { expect } from 'chai';
import { seededRandom } from '../../lib/generators/prompt-text.js';
import type { DocumentQuery, DocumentStore, NewStoredDocument, StoredChanges } from '../../lib/ports/document-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { FILL, WORD_KEYS } from '../../lib/stores/redis/document-words.js';
import { comparedDocuments, expectListedAlike } from '../support/compared-documents.js';
import { suiteRedis } from '../support/redis-client.js';
import { until } from '../support/until.js';

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

/**
 * What a write during the fill changes of a document: its name, result or favorite flag (each of which a
 * step of the fill compares), several at once, or none of them (the step then adds the same words again).
 */
const CHANGES: StoredChanges[] = [
  { name: 'Harbor draftsman', updated_at: 'later' },
  { name: 'Éclair notes 2026 zz', updated_at: 'later' },
  { result: 'No harbour here', updated_at: 'later' },
  { result: 'Harbor lights, crème brûlée 😀', updated_at: 'later' },
  { favorite: true, updated_at: 'later' },
  { favorite: false, updated_at: 'later' },
  { name: 'Straße draft', result: 'harbors 42 draft', favorite: true, updated_at: 'later' },
  { updated_at: 'touched' },
];

/** A line of the script of a step's write of the fill ({@link FILL}) that no other script holds. */
const FILL_MARKER = FILL.split('\n').find((line) => line.startsWith('-- KEYS'))!;

/** A TCP proxy on loopback to a Redis server (see {@link holdingProxy}). */
interface HoldingProxy {
  /** The server's URL (its database too) through the proxy. */
  url: string;
  /** Resolves once every hold begun so far has ended; rejects with the first failure of one. */
  settled(): Promise<void>;
  /** Stops taking connections and drops those open. */
  close(): Promise<void>;
}

/**
 * Forwards each connection to the Redis server of `target`, but holds what a client sends from the chunk
 * in which `marker` ends (a script's text, which EVAL sends whole) while `held()` runs: a test does what it
 * wants between two commands of a store, whatever the timing. The command cannot run before (Redis waits
 * for all of it), and neither can those the client sends after it, on the same connection.
 */
async function holdingProxy(target: string, marker: string, held: () => Promise<void>): Promise<HoldingProxy> {
  const server = new URL(target);
  const needle = Buffer.from(marker);
  const sockets = new Set<Socket>();
  const holds: Promise<void>[] = [];
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const proxy = createServer((client) => {
    const upstream = connect(Number(server.port || 6379), server.hostname);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    upstream.pipe(client);
    // The marker may straddle two chunks: the end of the one before is searched again with the next.
    let tail = Buffer.alloc(0);
    let forwarded = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const seen = Buffer.concat([tail, chunk]);
      tail = seen.subarray(Math.max(0, seen.length - needle.length + 1));
      const holding = seen.includes(needle);
      forwarded = forwarded.then(async () => {
        if (holding) {
          const hold = held();
          holds.push(hold);
          await hold.catch(() => {});
        }
        upstream.write(chunk);
      });
    });
    client.on('end', () => void forwarded.then(() => upstream.end()));
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.toString(),
    settled: async () => {
      await Promise.all(holds);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

describe(`the words of documents on Redis${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const clock = { now: () => Date.now() };
  const redis = suiteRedis({ flush: true });
  const documents = comparedDocuments(redisUrl!);
  const keysOf = (templateId: number): string => `dossier:documents:5:words:${templateId}:`;
  const keys = keysOf(1);

  /**
   * Document `n` (of template `templateId`): "draft" in half the names and "harbor" in half the results (more
   * documents than a set of a gram or a word keeps), "harbors" and "harbormaster" in fewer (sets), accents,
   * digits, an astral code point, and words joined by punctuation.
   */
  function document(n: number, templateId = 1): NewStoredDocument {
    const results = [
      n % 2 ? 'the team' : 'Harbor lights',
      n % 3 ? 'Crème brûlée.' : 'harbors, straße',
      n % 11 ? 'e-mail 100%' : 'HarborMaster snake_case',
      n % 13 ? 'plan' : '😀 中文 42',
    ];
    return {
      owner: 'words',
      name: `${['Quarterly', 'Éclair', 'Launch', 'Café 2026', 'Straße'][n % 5]} ${n % 2 ? 'draft' : 'notes'} ${(n * 7919).toString(36)}`,
      template_id: templateId,
      prompt: 'p',
      creativity: 0.5,
      result: results.join(' '),
      words: 8,
      favorite: n % 4 === 0,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }

  /**
   * Writes documents (of template `templateId`) to Redis and to the memory store alike, then changes and
   * deletes some; answers Redis's ids to the other's.
   */
  async function written(tested: DocumentStore, expected: DocumentStore, templateId = 1): Promise<Map<number, number>> {
    const ids = new Map<number, number>();
    for (let start = 0; start < 1300; start += 100) {
      const made = await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          Promise.all([tested.create(document(start + n, templateId)), expected.create(document(start + n, templateId))]),
        ),
      );
      for (const [mine, theirs] of made) ids.set(mine.id, theirs.id);
    }
    // Each document's write at once: they change different documents.
    await Promise.all(
      [...ids].map(async ([id, kept], index) => {
        const n = index + 1;
        if (n % 9 === 0) {
          const changes = { name: 'Harbor draftsman', result: 'No harbour here', favorite: n % 2 === 0, updated_at: 'later' };
          await Promise.all([tested.update('words', id, changes), expected.update('words', kept, changes)]);
        } else if (n % 10 === 0) {
          await Promise.all([tested.delete('words', id), expected.delete('words', kept)]);
          ids.delete(id);
        }
      }),
    );
    return ids;
  }

  /** Checks that every search of `needles` lists what the memory store lists: totals, first and last pages. */
  async function compare(
    tested: DocumentStore,
    expected: DocumentStore,
    ids: Map<number, number>,
    needles: string[],
    searchBys: ('name' | 'result')[] = ['name', 'result'],
    templateId = 1,
  ): Promise<void> {
    for (const search of needles)
      for (const searchBy of searchBys)
        for (const favorite of [undefined, true, false])
          for (const sortBy of ['id', 'name'] as const)
            for (const sort of ['asc', 'desc'] as const) {
              const query: DocumentQuery = {
                search,
                searchBy,
                templateId,
                ...(favorite === undefined ? {} : { favorite }),
                sortBy,
                sort,
                perPage: 40,
                page: 1,
              };
              const want = await expected.list('words', query);
              for (const page of new Set([1, Math.max(1, Math.ceil(want.total / 40))]))
                await expectListedAlike({ tested, expected }, ids, 'words', { ...query, page });
            }
  }

  /**
   * Empties the searched texts that Redis checks a candidate on (of template `templateId`), so that only the
   * words can find what a search lists.
   */
  async function withoutTexts(templateId = 1): Promise<void> {
    for (const hash of ['texts', 'names']) {
      const fields = await redis.client.hKeys(keysOf(templateId) + hash);
      await redis.client.hSet(keysOf(templateId) + hash, Object.fromEntries(fields.map((field) => [field, ''])));
    }
    await redis.client.del(keysOf(templateId) + 'name-chunks');
  }

  /** Makes the templates' indexes what a store of the release before holds: the same, without the words. */
  async function withoutWords(templateIds: number[]): Promise<void> {
    for (const templateId of templateIds) {
      const words: string[] = [];
      for await (const found of redis.client.scanIterator({ MATCH: `${keysOf(templateId)}[nr]w:*`, COUNT: 1000 }))
        words.push(...found);
      await redis.client.del([...words, ...WORD_KEYS.map((name) => keysOf(templateId) + name)]);
      await redis.client.hDel(`${keysOf(templateId)}bitmaps`, words);
    }
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
    await withoutWords([1]);
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

  it('fills the words while two processes fill at once and both write, then lists what the memory store lists from the words', async function () {
    this.timeout(120_000);
    const { tested: first, expected } = documents;
    const ids = new Map(
      (await Promise.all([1, 2].map((templateId) => written(first, expected, templateId)))).flatMap((one) => [...one]),
    );
    await withoutWords([1, 2]);
    const toFill = (templateId: number): Promise<string | null> => redis.client.get(keysOf(templateId) + 'words-to-fill');
    const search = (templateId: number, needle: string): DocumentQuery => ({
      search: needle,
      searchBy: 'result',
      templateId,
      sortBy: 'id',
      sort: 'asc',
      perPage: 40,
      page: 1,
    });

    // Each write of a document, then the same in the memory store, while no other write of it is under way
    // (so that both stores see a document's writes in the same order); creates one at a time, so that ids
    // come in the same order in both.
    const busy = new Set<number>();
    async function change(tested: DocumentStore, id: number, changes: StoredChanges | 'delete'): Promise<boolean> {
      const kept = ids.get(id);
      if (kept === undefined || busy.has(id)) return false;
      busy.add(id);
      try {
        if (changes === 'delete') {
          expect(await tested.delete('words', id)).to.equal(true);
          await expected.delete('words', kept);
          ids.delete(id);
        } else {
          await tested.update('words', id, changes);
          await expected.update('words', kept, changes);
        }
        return true;
      } finally {
        busy.delete(id);
      }
    }
    let creating = Promise.resolve();
    let made = 0;
    function create(tested: DocumentStore): Promise<void> {
      const n = 5000 + made++;
      const created = creating.then(async () => {
        const mine = await tested.create(document(n, 1 + (n % 2)));
        const theirs = await expected.create(document(n, 1 + (n % 2)));
        ids.set(mine.id, theirs.id);
      });
      creating = created.catch(() => {});
      return created;
    }

    // The steps of the second store: between the read of each and its write, the first store changes and
    // deletes documents of the step (which the step must then leave to their writes); at the third, the first
    // store starts filling too, and takes the step first (which the held one must then leave alone).
    let holds = 0;
    let raced = 0;
    async function held(): Promise<void> {
      holds += 1;
      if (holds === 3) {
        const before = await Promise.all([1, 2].map(toFill));
        await Promise.all([1, 2].map((templateId) => first.list('words', search(templateId, 'harbor'))));
        await until(
          async () => (await Promise.all([1, 2].map(toFill))).every((now, n) => now !== before[n] || now === '0'),
          'the first store to take a step of the fill of each template',
        );
        return;
      }
      for (const templateId of [1, 2]) {
        const last = Number((await toFill(templateId)) ?? 0);
        if (last === 0) continue;
        const ordinals = Array.from({ length: Math.min(200, last) }, (_, n) => String(last - n));
        const entries = await redis.client.hmGet(keysOf(templateId) + 'entries', ordinals);
        const inStep = entries.filter((entry) => entry !== null).map((entry) => (JSON.parse(entry) as [number])[0]);
        await Promise.all(
          [...CHANGES, 'delete' as const].map(async (changes, n) => {
            const id = inStep[n * 17];
            if (id !== undefined && (await change(first, id, changes))) raced += 1;
          }),
        );
      }
    }

    const proxy = await holdingProxy(redisUrl!, FILL_MARKER, held);
    const other = openBackend(proxy.url, { namespace: 'dossier', clock, timeoutMs: 15_000 });
    const second = other.documents!;
    let filled = false;
    const writes = { first: 0, second: 0 };
    const random = seededRandom('the words filled while written');
    async function stream(tested: DocumentStore, through: keyof typeof writes): Promise<void> {
      do {
        const roll = random.next();
        if (roll < 0.2) {
          await create(tested);
        } else {
          const free = [...ids.keys()].filter((id) => !busy.has(id));
          await change(tested, free[Math.floor(random.next() * free.length)]!, roll < 0.3 ? 'delete' : random.pick(CHANGES));
        }
        writes[through] += 1;
      } while (!filled);
    }
    try {
      const streams = Promise.all([
        stream(first, 'first'),
        stream(second, 'second'),
        stream(first, 'first'),
        stream(second, 'second'),
      ]);
      streams.catch(() => {});
      // Searches through the second store start its fills, of both templates at once.
      await Promise.all([1, 2].map((templateId) => second.list('words', search(templateId, 'draft'))));
      await until(
        async () => (await Promise.all([1, 2].map(toFill))).every((left) => left === '0'),
        'the fill of both templates to end (words-to-fill 0)',
        30_000,
      );
      filled = true;
      await streams;
      await proxy.settled();
      expect(holds, 'steps of the second store held between their read and their write').to.be.at.least(3);
      expect(raced, 'documents written between the read of a step and its write').to.be.at.least(10);
      expect(writes.first, 'writes through the first store').to.be.above(0);
      expect(writes.second, 'writes through the second store').to.be.above(0);

      // Each template's searches through one store, both at once.
      await Promise.all([
        compare(first, expected, ids, NEEDLES, ['name', 'result'], 1),
        compare(second, expected, ids, NEEDLES, ['name', 'result'], 2),
      ]);
      await withoutTexts(1);
      await withoutTexts(2);
      await Promise.all(
        [first, second].map(async (tested, n) => {
          await compare(tested, expected, ids, ['harbor', 'harb', 'brûlée', 'crème'], ['result'], 2 - n);
          await compare(tested, expected, ids, ['draft', 'raf', 'no'], ['name'], 2 - n);
        }),
      );
    } finally {
      filled = true;
      await other.close();
      await proxy.close();
    }
  });
});
