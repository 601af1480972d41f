import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createDossier } from '../../lib/dossier.js';
import { KeyvDocumentStore } from '../../lib/documents/keyv-document-store.js';
import type { Document } from '../../lib/ports/document-service.js';
import type { DocumentQuery, DocumentRows, NewStoredDocument } from '../../lib/ports/document-store.js';
import { openBackend } from '../../lib/stores/open-backend.js';
import { projectRoot } from '../support/paths.js';
import { LONG_PATIENCE_MS, until } from '../support/until.js';
import { succeeded } from '../support/cli.js';
import { suiteRedis } from '../support/redis-client.js';

/**
 * What release 36ab26c, the last to keep documents as key-value records, wrote into a store: its keyv and
 * dossier_counters rows (documents, per-owner indexes, counters) and every document as it answered it,
 * made by test/fixtures/documents-kv/make-fixture.mjs with that release's build.
 */
interface Fixture {
  namespace: string;
  keyv: [string, string][];
  counters: [string, number, number | null][];
  documents: Record<string, Document[]>;
}

/** A document as that release answered it (the wire's shape), in the library's form. */
function libraryForm({
  created_at,
  updated_at,
  ...rest
}: Omit<Document, 'createdAt' | 'updatedAt'> & { created_at: string; updated_at: string }): Document {
  return { ...rest, createdAt: created_at, updatedAt: updated_at };
}

const RAW_FIXTURE = JSON.parse(readFileSync(join(projectRoot(), 'test/fixtures/documents-kv/store.json'), 'utf8')) as Fixture;
const FIXTURE: Fixture = {
  ...RAW_FIXTURE,
  documents: Object.fromEntries(
    Object.entries(RAW_FIXTURE.documents).map(([owner, documents]) => [
      owner,
      documents.map((document) => libraryForm(document as never)),
    ]),
  ),
};
const OWNERS = Object.keys(FIXTURE.documents);
const ID_COUNTER = FIXTURE.counters.find(([name]) => name === 'documents:id')![1];

/** The fixture's records, with `copies` more of each document under ids above the counter (old records all the same). */
function records(copies: number): {
  keyv: [string, string][];
  counters: [string, number, number | null][];
  documents: Record<string, Document[]>;
} {
  const keyv = [...FIXTURE.keyv];
  const documents = Object.fromEntries(OWNERS.map((owner) => [owner, [...FIXTURE.documents[owner]!]]));
  for (let copy = 1; copy <= copies; copy += 1) {
    for (const [key, value] of FIXTURE.keyv) {
      if (!key.startsWith(`${FIXTURE.namespace}:doc:`)) continue;
      const record = JSON.parse(value) as { value: { id: number; owner: string } };
      const id = record.value.id + copy * ID_COUNTER;
      keyv.push([`${FIXTURE.namespace}:doc:${id}`, JSON.stringify({ ...record, value: { ...record.value, id } })]);
      const listed = FIXTURE.documents[record.value.owner]!.find((document) => document.id === record.value.id)!;
      documents[record.value.owner]!.push({ ...listed, id });
    }
  }
  const counters = FIXTURE.counters.map(([name, value, expires]): [string, number, number | null] => [
    name,
    name === 'documents:id' ? value + copies * ID_COUNTER : value,
    expires,
  ]);
  return { keyv, counters, documents };
}

/** A store of one kind (SQLite or PostgreSQL) as that release left it, and how to look into it. */
interface OldStore {
  url: string;
  /** Runs one statement on the store directly (`?` placeholders). */
  query(sql: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** The tables as that release made them, holding its records. */
const OLD_TABLES = [
  'CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)',
  'CREATE TABLE dossier_counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL, expires_at BIGINT)',
];

async function oldSqliteStore(copies: number): Promise<OldStore> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-upgrade-'));
  const file = join(dir, 'store.sqlite');
  const db = new Database(file);
  const { keyv, counters } = records(copies);
  db.pragma('journal_mode = WAL');
  db.transaction(() => {
    for (const sql of OLD_TABLES) db.exec(sql);
    const record = db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)');
    for (const row of keyv) record.run(...row);
    const counter = db.prepare('INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, ?, ?)');
    for (const row of counters) counter.run(...row);
  })();
  db.close();
  const reader = new Database(file, { readonly: true, timeout: 5000 });
  return {
    url: `sqlite://${file}`,
    query: async (sql, values = []) => reader.prepare(sql).all(...values) as Record<string, unknown>[],
    async close() {
      reader.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function oldPostgresStore(url: string, copies: number): Promise<OldStore> {
  const schema = `upgrade_${randomBytes(6).toString('hex')}`;
  const own = new URL(url);
  own.searchParams.set('options', `-c search_path=${schema}`);
  const client = new pg.Client({ connectionString: own.href });
  await client.connect();
  const query = async (sql: string, values: unknown[] = []) => {
    let n = 0;
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        values,
      )
    ).rows as Record<string, unknown>[];
  };
  await client.query(`CREATE SCHEMA ${schema}`);
  const { keyv, counters } = records(copies);
  for (const sql of OLD_TABLES) await client.query(sql);
  await query('INSERT INTO keyv (key, value) SELECT * FROM json_to_recordset(?::json) AS r(key text, value text)', [
    JSON.stringify(keyv.map(([key, value]) => ({ key, value }))),
  ]);
  for (const row of counters) await query('INSERT INTO dossier_counters (name, value, expires_at) VALUES (?, ?, ?)', row);
  return {
    url: own.href,
    query,
    async close() {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** Every document of every owner, as the store now answers them, by the listing and one by one. */
async function expectEveryDocument(url: string, expected: Record<string, Document[]>): Promise<void> {
  const dossier = createDossier({ store: url, storeTimeoutMs: 15_000 });
  try {
    for (const owner of OWNERS) {
      const want = [...expected[owner]!].sort((a, b) => a.template.id - b.template.id || a.id - b.id);
      const listed: Document[] = [];
      for (const template of [1, 6, 53, 72]) {
        for (let page = 1; ; page += 1) {
          const answer = await dossier.documents.list(owner, {
            templateId: template,
            perPage: 100,
            page,
            sort: 'asc',
          });
          listed.push(...answer.data);
          if (page >= answer.lastPage) break;
        }
      }
      expect(listed, `the documents of ${owner}`).to.deep.equal(want);
      for (const document of want.slice(0, 60)) expect(await dossier.documents.get(owner, document.id)).to.deep.equal(document);
      const favorites = await dossier.documents.list(owner, { favorite: true, perPage: 100 });
      expect(favorites.total).to.equal(want.filter((document) => document.favorite && document.template.id === 1).length);
    }
  } finally {
    await dossier.close();
  }
}

/** `dossier` started in a process of its own on `url`, listing a document (which moves the old ones first). */
function startProcess(url: string): ChildProcess {
  const library = join(projectRoot(), 'dist/lib/index.js');
  const script = `import { createDossier } from ${JSON.stringify(library)};
    const dossier = createDossier({ store: process.env.STORE, storeTimeoutMs: 30000 });
    await dossier.documents.list('alice', {});
    await dossier.close();`;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, STORE: url },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

const kinds: { name: string; open(copies: number): Promise<OldStore> }[] = [{ name: 'SQLite', open: oldSqliteStore }];
const postgres = process.env.DOSSIER_TEST_POSTGRES;
if (postgres) kinds.push({ name: 'PostgreSQL', open: (copies) => oldPostgresStore(postgres, copies) });

for (const kind of kinds) {
  describe(`upgrading a ${kind.name} store whose documents release 36ab26c kept as key-value records`, function () {
    // Each test starts Dossier in processes of its own (13 s for the killed one on a quiet machine).
    this.timeout(60_000);
    let old: OldStore;
    afterEach(async () => {
      await old.close();
    });

    it('moves every document into the table, with its id, owner, fields, dates and favorite flag, and ids go on from where they were', async () => {
      old = await kind.open(0);
      await expectEveryDocument(old.url, FIXTURE.documents);
      const dossier = createDossier({ store: old.url });
      try {
        // Documents 149 and 150 were deleted: the next id is still the counter's next.
        expect((await dossier.documents.create('alice', { name: 'after the upgrade', prompt: 'p' })).id).to.equal(ID_COUNTER + 1);
      } finally {
        await dossier.close();
      }
      const left = await old.query("SELECT key FROM keyv WHERE key LIKE 'dossier:doc:%' OR key LIKE 'dossier:documents:%'");
      expect(left, 'the old records, indexes included, are gone').to.deep.equal([]);
      const counters = await old.query("SELECT name FROM dossier_counters WHERE name LIKE 'documents:%' ORDER BY name");
      expect(counters.map((row) => row.name)).to.deep.equal(['documents:id']);
    });

    it('moves each document once when two processes start at once', async () => {
      old = await kind.open(8);
      const expected = records(8).documents;
      await Promise.all([succeeded(startProcess(old.url)), succeeded(startProcess(old.url))]);
      const [{ rows }] = (await old.query('SELECT count(*) AS rows FROM dossier_documents')) as [{ rows: number | string }];
      expect(Number(rows)).to.equal(Object.values(expected).flat().length);
      await expectEveryDocument(old.url, expected);
    });

    it('goes on where it stopped when a process is killed while moving', async () => {
      old = await kind.open(40);
      const expected = records(40).documents;
      const total = Object.values(expected).flat().length;
      const child = startProcess(old.url);
      const exited = once(child, 'exit');
      const moved = async () => {
        const tables = await old.query(
          kind.name === 'SQLite'
            ? "SELECT name FROM sqlite_master WHERE name = 'dossier_documents'"
            : "SELECT to_regclass('dossier_documents') AS name",
        );
        if (tables[0]?.name == null) return 0;
        const [{ rows }] = (await old.query('SELECT count(*) AS rows FROM dossier_documents')) as [{ rows: number | string }];
        return Number(rows);
      };
      await until(async () => (await moved()) > 0, 'the first batch was moved', LONG_PATIENCE_MS);
      child.kill('SIGKILL');
      await exited;
      const partly = await moved();
      const [{ left }] = (await old.query("SELECT count(*) AS left FROM keyv WHERE key LIKE 'dossier:doc:%'")) as [
        { left: number | string },
      ];
      expect(partly, 'stopped part of the way').to.be.below(total);
      expect(Number(left)).to.be.above(0);
      await expectEveryDocument(old.url, expected);
      const [{ rows }] = (await old.query('SELECT count(*) AS rows FROM dossier_documents')) as [{ rows: number | string }];
      expect(Number(rows)).to.equal(total);
    });
  });
}

const redisUrl = process.env.DOSSIER_TEST_REDIS;

describe(`upgrading a Redis store whose documents the key-value path kept with a log per owner, without indexes${redisUrl ? '' : ' (skipped: set DOSSIER_TEST_REDIS to run it)'}`, () => {
  const clock = { now: () => Date.now() };
  const OLD_OWNERS = ['alice', 'bob.smith@example.org', 'team:42'];
  const redis = suiteRedis({ flush: true });

  /** Document `n` of `owner`: names and results with accents, case variants and an astral code point. */
  function oldDocument(owner: string, n: number): NewStoredDocument {
    const names = ['Apple pie', 'apple', 'APPLE', 'Éclair', 'eclair', 'straße', '😀 party', 'Zebra', '中文 notes'];
    const words = ['The quick', 'brown fox', 'jumps', 'over', 'the lazy dog', 'ÉCLAIR', 'straße', '100%', 'snake_case'];
    return {
      owner,
      name: `${names[n % names.length]} ${n % 13}`,
      template_id: [1, 1, 6, 53][n % 4]!,
      prompt: 'p',
      creativity: 0.5,
      result: Array.from({ length: 1 + (n % 7) }, (_, w) => words[(n * 7 + w * 3) % words.length]).join(' '),
      words: 1,
      favorite: n % 3 === 0,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
  }

  /**
   * Writes documents as the key-value path (KeyvDocumentStore) does on Redis: records and each owner's log,
   * with renames, favorites flipped and deletes; answers what it lists for every query of `queries`.
   */
  async function writeOld(perOwner: Record<string, number>): Promise<Map<string, DocumentRows>> {
    const backend = openBackend(redisUrl!, { namespace: 'dossier', clock, timeoutMs: 15_000 });
    try {
      const old = new KeyvDocumentStore(backend.kv, backend.counters, clock);
      for (const [owner, count] of Object.entries(perOwner)) {
        const ids: number[] = [];
        for (let start = 0; start < count; start += 500) {
          const made = await Promise.all(
            Array.from({ length: Math.min(500, count - start) }, (_, n) => old.create(oldDocument(owner, start + n))),
          );
          ids.push(...made.map((document) => document.id));
        }
        for (const id of ids.filter((_, n) => n % 10 === 4))
          await old.update(owner, id, { name: 'Renamed ÉCLAIR', favorite: true, updated_at: '2026-01-02T00:00:00.000Z' });
        for (const id of ids.filter((_, n) => n % 20 === 7)) await old.delete(owner, id);
      }
      const answers = new Map<string, DocumentRows>();
      for (const owner of Object.keys(perOwner))
        for (const [what, query] of queries()) answers.set(`${owner} ${what}`, await old.list(owner, query));
      return answers;
    } finally {
      await backend.close();
    }
  }

  /** Every page of each listing, and searches by name and result with case variants, accents and an astral code point. */
  function* queries(): Generator<[string, DocumentQuery]> {
    const searches = [
      undefined,
      ...['apple', 'é', 'ss', '😀', '中文', 'e 1'].map((search) => ({ search, searchBy: 'name' as const })),
      ...['quick', 'é', 'brown fox jumps', '%'].map((search) => ({ search, searchBy: 'result' as const })),
    ];
    for (const search of searches)
      for (const templateId of [1, 6, 53])
        for (const favorite of [undefined, true, false])
          for (const sortBy of ['id', 'name'] as const)
            for (const sort of ['asc', 'desc'] as const)
              for (const page of [1, 3, 30]) {
                const query: DocumentQuery = {
                  searchBy: 'name',
                  ...search,
                  templateId,
                  ...(favorite === undefined ? {} : { favorite }),
                  sortBy,
                  sort,
                  perPage: 100,
                  page,
                };
                yield [JSON.stringify(query), query];
              }
  }

  /** What the upgraded store lists is what the key-value path listed before. */
  async function expectListed(expected: Map<string, DocumentRows>, owners: string[]): Promise<void> {
    // A deadline long enough for a list to wait for the upgrade of thousands of documents.
    const backend = openBackend(redisUrl!, { namespace: 'dossier', clock, timeoutMs: 60_000 });
    try {
      for (const owner of owners)
        for (const [what, query] of queries())
          expect(await backend.documents!.list(owner, query), `${owner} ${what}`).to.deep.equal(expected.get(`${owner} ${what}`));
    } finally {
      await backend.close();
    }
  }

  /** `dossier` in a process of its own on the Redis store, listing alice's documents (which indexes them first). */
  function startLister(): ChildProcess {
    const library = join(projectRoot(), 'dist/lib/index.js');
    const script = `import { createDossier } from ${JSON.stringify(library)};
      const dossier = createDossier({ store: process.env.STORE, storeTimeoutMs: 60000 });
      await dossier.documents.list('alice', {});
      await dossier.close();`;
    return spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, STORE: redisUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  }

  it('lists every document of every owner as before, takes ids on from the counter, and deletes the logs it read', async function () {
    this.timeout(60_000);
    const expected = await writeOld(Object.fromEntries(OLD_OWNERS.map((owner) => [owner, 300])));
    const highest = Number(await redis.client.get('dossier:counter:documents:id'));
    expect(await redis.client.keys('dossier::documents:*'), 'the logs, before').to.have.length(OLD_OWNERS.length * 300 * 1.15);
    await expectListed(expected, OLD_OWNERS);
    expect(await redis.client.keys('dossier::documents:*'), 'the logs, after').to.deep.equal([]);
    const dossier = createDossier({ store: redisUrl! });
    try {
      const created = await dossier.documents.create('alice', { name: 'after the upgrade', prompt: 'p' });
      expect(created.id).to.equal(highest + 1);
      expect((await dossier.documents.list('alice', { search: 'AFTER THE' })).data.map(({ id }) => id)).to.deep.equal([
        created.id,
      ]);
    } finally {
      await dossier.close();
    }
  });

  it('indexes each document once when two processes upgrade at once', async function () {
    this.timeout(60_000);
    const expected = await writeOld({ alice: 3000 });
    await Promise.all([succeeded(startLister()), succeeded(startLister())]);
    for (const template of [1, 6, 53]) {
      const keys = `dossier:documents:5:alice:${template}:`;
      const total = await redis.client.zCard(`${keys}id`);
      expect(total).to.equal(await redis.client.hLen(`${keys}ordinals`));
      expect(total).to.equal(await redis.client.hLen(`${keys}entries`));
      expect(Number(await redis.client.get(`${keys}ordinal`)), 'ordinals handed out').to.equal(total);
    }
    await expectListed(expected, ['alice']);
  });

  it('goes on where it stopped when a process is killed while indexing', async function () {
    this.timeout(60_000);
    const expected = await writeOld({ alice: 4000 });
    const child = startLister();
    const exited = once(child, 'exit');
    await until(
      async () => (await redis.client.get('dossier:documents:5:alice:indexed-to')) !== null,
      'a first batch was indexed',
      LONG_PATIENCE_MS,
    );
    child.kill('SIGKILL');
    await exited;
    expect(await redis.client.get('dossier:documents:5:alice:indexed'), 'stopped part of the way').to.equal(null);
    await expectListed(expected, ['alice']);
    expect(await redis.client.get('dossier:documents:5:alice:indexed')).to.equal('1');
  });
});
