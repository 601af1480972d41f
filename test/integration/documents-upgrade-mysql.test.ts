import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { nameSortKey, searchText } from '../../lib/records/stored-document.js';
import { projectRoot } from '../support/paths.js';
import { LONG_PATIENCE_MS, until } from '../support/until.js';
import { succeeded } from '../support/cli.js';
import { MysqlDatabase } from '../support/mysql-database.js';

const server = process.env.DOSSIER_TEST_MYSQL;

/**
 * The tables of documents as the release before the results' trigrams made them (lib/stores/mysql/
 * documents.ts then), word for word.
 */
const OLD_TABLES = [
  `CREATE TABLE dossier_documents (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, owner VARBINARY(512) NOT NULL, name TEXT NOT NULL,
  name_lower VARBINARY(2048) NOT NULL, name_key VARBINARY(1200) NOT NULL, template_id INT NOT NULL,
  prompt TEXT NOT NULL, creativity DOUBLE NOT NULL, result MEDIUMTEXT NOT NULL, words DOUBLE NOT NULL,
  favorite TINYINT NOT NULL, created_at VARCHAR(32) NOT NULL, updated_at VARCHAR(32) NOT NULL,
  KEY dossier_documents_by_id (owner, template_id, id), KEY dossier_documents_favorites_by_id (owner, template_id, favorite, id), KEY dossier_documents_by_name (owner, template_id, name_key, id), KEY dossier_documents_favorites_by_name (owner, template_id, favorite, name_key, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4`,
  `CREATE TABLE dossier_document_results (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, id BIGINT NOT NULL, favorite TINYINT NOT NULL,
  name_key VARBINARY(1200) NOT NULL, result_lower MEDIUMBLOB NOT NULL,
  PRIMARY KEY (owner, template_id, id), UNIQUE KEY dossier_document_results_of (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4`,
  `CREATE TABLE dossier_document_counts (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, total BIGINT NOT NULL, favorites BIGINT NOT NULL,
  PRIMARY KEY (owner, template_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4`,
  `CREATE TABLE dossier_document_name_trigrams (
  owner VARBINARY(512) NOT NULL, trigram VARBINARY(12) NOT NULL, id BIGINT NOT NULL,
  PRIMARY KEY (owner, trigram, id), KEY dossier_document_name_trigrams_of (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4`,
];

/** The statements of a create in that release, for one document: its row, searched result, counts and name's trigrams. */
const OLD_CREATE = `INSERT INTO dossier_documents (owner, name, name_lower, name_key, template_id, prompt, creativity, result, words, favorite, created_at, updated_at) VALUES (?);
  INSERT INTO dossier_document_results (owner, template_id, id, favorite, name_key, result_lower)
    VALUES (?, ?, LAST_INSERT_ID(), ?, ?, ?);
  INSERT INTO dossier_document_counts (owner, template_id, total, favorites) VALUES (?, ?, 1, ?)
    ON DUPLICATE KEY UPDATE total = total + 1, favorites = favorites + VALUES(favorites);
  INSERT INTO dossier_document_name_trigrams (owner, trigram, id) VALUES ?`;

/** An old document: what the searches below look for, in results of a few hundred characters. */
interface OldDocument {
  owner: string;
  name: string;
  templateId: number;
  result: string;
  favorite: boolean;
}

const WORDS = ['Quarterly', 'plan', 'ÉCLAIR', 'straße', 'ΟΔΟΣ', 'grin 😀😃😄', 'banana', 'team', 'review', 'Zephyr'];

function oldDocuments(count: number): OldDocument[] {
  let state = 7;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, n) => {
    const words = Array.from({ length: 60 }, () => WORDS[Math.floor(random() * WORDS.length)]!);
    // Letters of their own, so that each document has trigrams few others have.
    words.push(Array.from({ length: 40 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(''));
    if (n % 50 === 7) words.push('quetzal');
    return {
      owner: n % 3 === 0 ? 'bob' : 'alice',
      name: `Notes ${n}`,
      templateId: n % 4 === 0 ? 6 : 1,
      result: words.join(' '),
      favorite: n % 5 === 0,
    };
  });
}

/** The needles searched by result: one or two code points (read as before), three or more (through the trigrams). */
const NEEDLES = ['a', 'ß', 'quetzal', 'QUETZAL', 'éclair', 'STRAßE', 'ΟΔΟΣ', '😀😃😄', 'Bananana', 'zephyr ban', 'nowhere'];

/** The distinct trigrams (three code points each) of a searched form. */
function distinctTrigrams(searched: string): string[] {
  const points = Array.from(searched);
  return [...new Set(points.slice(2).map((_, i) => points.slice(i, i + 3).join('')))];
}

/** A MySQL database of its own, with documents as the release before the results' trigrams wrote them. */
class OldStore {
  private constructor(
    readonly database: MysqlDatabase,
    readonly documents: (OldDocument & { id: number })[],
  ) {}

  /** The URL of the database, for a store on it. */
  get url(): string {
    return this.database.url;
  }

  static async open(count: number): Promise<OldStore> {
    const database = await MysqlDatabase.open(server!, 'upgrade', { multipleStatements: true });
    for (const sql of OLD_TABLES) await database.query(sql);
    const documents: (OldDocument & { id: number })[] = [];
    for (const document of oldDocuments(count)) {
      const trigrams = distinctTrigrams(searchText(document.name));
      const [inserted] = await database.query<{ insertId: number }>(OLD_CREATE, [
        [
          document.owner,
          document.name,
          searchText(document.name),
          nameSortKey(document.name),
          document.templateId,
          'p',
          0.5,
          document.result,
          1,
          document.favorite ? 1 : 0,
          '2026-01-01T00:00:00.000Z',
          '2026-01-01T00:00:00.000Z',
        ],
        document.owner,
        document.templateId,
        document.favorite ? 1 : 0,
        nameSortKey(document.name),
        searchText(document.result),
        document.owner,
        document.templateId,
        document.favorite ? 1 : 0,
        trigrams.map((trigram) => [document.owner, trigram, { toSqlString: () => 'LAST_INSERT_ID()' }]),
      ]);
      documents.push({ ...document, id: inserted!.insertId });
    }
    return new OldStore(database, documents);
  }

  /** How far the fill of the results' trigrams is: the highest id done, and the last to do. */
  async fill(): Promise<{ done: number; last: number }> {
    const [row] = await this.database
      .query<{ done_through: number; last_id: number }>(
        "SELECT done_through, last_id FROM dossier_document_fills WHERE name = 'dossier_document_result_trigrams'",
      )
      .catch(() => []);
    return { done: Number(row?.done_through ?? 0), last: Number(row?.last_id ?? -1) };
  }

  async filled(): Promise<boolean> {
    const { done, last } = await this.fill();
    return done >= last;
  }

  /** Waits until `dossier`'s fill is done, searching by result meanwhile (a search starts a fill again after a failed step). */
  async untilFilled(dossier: Dossier): Promise<void> {
    await until(
      async () => {
        await dossier.documents.list('alice', { search: 'quetzal', searchBy: 'result' });
        return this.filled();
      },
      'the fill was done',
      LONG_PATIENCE_MS,
    );
  }

  /** The trigrams of document `id`'s result in the table, in order. */
  async resultTrigrams(id: number): Promise<string[]> {
    const rows = await this.database.query<{ trigram: Buffer }>(
      'SELECT trigram FROM dossier_document_result_trigrams WHERE id = ?',
      [id],
    );
    return rows.map((row) => row.trigram.toString('utf8')).sort();
  }

  close(): Promise<void> {
    return this.database.close();
  }
}

/** Each search of {@link NEEDLES} answers every old document whose result holds it, and no other. */
async function expectSearches(store: string | Dossier, documents: (OldDocument & { id: number })[]): Promise<void> {
  const dossier = typeof store === 'string' ? createDossier({ store, storeTimeoutMs: 15_000 }) : store;
  try {
    for (const owner of ['alice', 'bob']) {
      for (const templateId of [1, 6]) {
        for (const needle of NEEDLES) {
          for (const favorite of [undefined, true]) {
            const want = documents
              .filter(
                (document) =>
                  document.owner === owner &&
                  document.templateId === templateId &&
                  (favorite === undefined || document.favorite) &&
                  searchText(document.result).includes(searchText(needle)),
              )
              .map((document) => document.id)
              .sort((a, b) => b - a);
            const answer = await dossier.documents.list(owner, {
              search: needle,
              searchBy: 'result',
              templateId,
              ...(favorite === undefined ? {} : { favorite }),
              perPage: 100,
            });
            const what = `${owner}, template ${templateId}, ${JSON.stringify(needle)}${favorite ? ', favorites' : ''}`;
            expect(answer.total, what).to.equal(want.length);
            expect(
              answer.data.map((document) => document.id),
              what,
            ).to.deep.equal(want.slice(0, 100));
          }
        }
      }
    }
  } finally {
    if (typeof store === 'string') await dossier.close();
  }
}

/** Every old document has exactly the distinct trigrams of its searched result in the table. */
async function expectEveryTrigram(old: OldStore): Promise<void> {
  const rows = await old.database.query<{ id: number; owner: string; template_id: number; trigrams: number }>(
    `SELECT id, owner, template_id, COUNT(*) AS trigrams FROM dossier_document_result_trigrams GROUP BY id, owner, template_id`,
  );
  const got = new Map(rows.map((row) => [Number(row.id), `${String(row.owner)} ${row.template_id} ${row.trigrams}`]));
  for (const document of old.documents) {
    const distinct = distinctTrigrams(searchText(document.result)).length;
    expect(got.get(document.id), `the trigrams of document ${document.id}`).to.equal(
      `${document.owner} ${document.templateId} ${distinct}`,
    );
  }
  const probe = old.documents.find((document) => document.result.includes('quetzal'))!;
  const [probed] = await old.database.query<{ found: number }>(
    "SELECT COUNT(*) AS found FROM dossier_document_result_trigrams WHERE id = ? AND trigram IN ('que', 'tza', 'zal')",
    [probe.id],
  );
  expect(Number(probed?.found)).to.equal(3);
}

/** A process of its own on `url` that searches by result, then waits for the fill to be done. */
function startProcess(url: string): ChildProcess {
  const library = join(projectRoot(), 'dist/lib/index.js');
  const script = `import { createDossier } from ${JSON.stringify(library)};
    import mysql from 'mysql2/promise';
    const dossier = createDossier({ store: process.env.STORE, storeTimeoutMs: 30000 });
    const connection = await mysql.createConnection({ uri: process.env.STORE });
    for (;;) {
      await dossier.documents.list('alice', { search: 'quetzal', searchBy: 'result' });
      const [[row]] = await connection.query("SELECT done_through >= last_id AS done FROM dossier_document_fills WHERE name = 'dossier_document_result_trigrams'");
      if (Number(row.done) === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await connection.end();
    await dossier.close();`;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: projectRoot(),
    env: { ...process.env, STORE: url },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

describe(`upgrading a MySQL store whose documents were written before their results' trigrams were kept${server ? '' : ' (skipped: set DOSSIER_TEST_MYSQL to run it)'}`, () => {
  let old: OldStore | undefined;
  before(function () {
    if (!server) this.skip();
  });
  afterEach(async () => {
    await old?.close();
    old = undefined;
  });

  it('searches by result as before while the trigrams are filled in, then through them, with the same answers', async function () {
    this.timeout(60_000);
    old = await OldStore.open(400);
    // The fill waits behind the first document's searched result, held here, until it is let go.
    const holder = await mysql.createConnection({ uri: old.url });
    try {
      await holder.query('START TRANSACTION');
      await holder.query('SELECT id FROM dossier_document_results WHERE id = ? FOR UPDATE', [old.documents[0]!.id]);
      const dossier = createDossier({ store: old.url, storeTimeoutMs: 15_000 });
      try {
        await dossier.documents.list('alice', {});
        await expectSearches(dossier, old.documents);
        // A document made meanwhile has its trigrams from the start, and is found either way.
        const made = await dossier.documents.create('alice', { name: 'new', prompt: 'p' });
        const result = 'A QUETZAL in a banana tree';
        await dossier.documents.update('alice', made.id, { result });
        old.documents.push({ owner: 'alice', name: 'new', templateId: 1, result, favorite: false, id: made.id });
        await expectSearches(dossier, old.documents);
        expect(await old.filled(), 'the fill is not done').to.equal(false);
      } finally {
        await holder.query('ROLLBACK');
        await dossier.close();
      }
    } finally {
      await holder.end();
    }
    const dossier = createDossier({ store: old.url, storeTimeoutMs: 15_000 });
    try {
      await old.untilFilled(dossier);
    } finally {
      await dossier.close();
    }
    await expectEveryTrigram(old);
    await expectSearches(old.url, old.documents);
  });

  it('keeps no trigram of a result changed or deleted, written by the fill or by a create', async function () {
    this.timeout(60_000);
    old = await OldStore.open(60);
    const dossier = createDossier({ store: old.url, storeTimeoutMs: 15_000 });
    try {
      await old.untilFilled(dossier);
      const expectTrigrams = async (id: number, result: string) =>
        expect(await old!.resultTrigrams(id), `the trigrams of document ${id}`).to.deep.equal(
          distinctTrigrams(searchText(result)).sort(),
        );
      const found = async (needle: string) =>
        (await dossier.documents.list('alice', { search: needle, searchBy: 'result', perPage: 100 })).data.map(
          (document) => document.id,
        );
      // Documents of the release before, whose trigrams the fill wrote: one changed, one deleted.
      const changed = old.documents.find(
        (document) => document.owner === 'alice' && document.templateId === 1 && document.result.includes('quetzal'),
      )!;
      const deleted = old.documents.find(
        (document) => document.owner === 'alice' && document.templateId === 1 && document !== changed,
      )!;
      // Letters of the deleted document's own (see oldDocuments).
      const own = deleted.result.split(' ').pop()!.slice(10, 16);
      expect(await found(own)).to.deep.equal([deleted.id]);
      await expectTrigrams(changed.id, changed.result);
      await dossier.documents.update('alice', changed.id, { result: 'A plain banana' });
      await expectTrigrams(changed.id, 'A plain banana');
      await dossier.documents.delete('alice', deleted.id);
      expect(await old.resultTrigrams(deleted.id)).to.deep.equal([]);
      expect(await found('quetzal')).to.deep.equal([]);
      expect(await found('etza')).to.deep.equal([]);
      expect(await found(own)).to.deep.equal([]);
      // A document made now, whose result has no trigram, then some, then none again.
      const made = await dossier.documents.create('alice', { name: 'new', prompt: 'p' });
      await dossier.documents.update('alice', made.id, { result: 'ab' });
      expect(await old.resultTrigrams(made.id)).to.deep.equal([]);
      await dossier.documents.update('alice', made.id, { result: 'A QUETZAL in a tree' });
      await expectTrigrams(made.id, 'A QUETZAL in a tree');
      expect(await found('quetzal')).to.deep.equal([made.id]);
      await dossier.documents.update('alice', made.id, { name: 'renamed', favorite: true });
      await expectTrigrams(made.id, 'A QUETZAL in a tree');
      await dossier.documents.update('alice', made.id, { result: 'xy' });
      expect(await old.resultTrigrams(made.id)).to.deep.equal([]);
      expect(await found('quetzal')).to.deep.equal([]);
      await dossier.documents.update('alice', made.id, { result: 'Ζέφυρος quetzal' });
      await dossier.documents.delete('alice', made.id);
      expect(await old.resultTrigrams(made.id)).to.deep.equal([]);
      expect(await found('quetzal')).to.deep.equal([]);
      // The other documents keep theirs.
      await expectSearches(
        dossier,
        old.documents.flatMap((document) =>
          document === deleted ? [] : document === changed ? [{ ...document, result: 'A plain banana' }] : [document],
        ),
      );
    } finally {
      await dossier.close();
    }
  });

  it('fills each document in once when two processes start at once', async function () {
    this.timeout(60_000);
    old = await OldStore.open(600);
    await Promise.all([succeeded(startProcess(old.url)), succeeded(startProcess(old.url))]);
    await expectEveryTrigram(old);
    await expectSearches(old.url, old.documents);
  });

  it('goes on where it stopped when a process is killed while filling', async function () {
    this.timeout(120_000);
    old = await OldStore.open(3000);
    const child = startProcess(old.url);
    const exited = once(child, 'exit');
    await until(async () => (await old!.fill()).done > 0, 'the first documents were filled in', LONG_PATIENCE_MS);
    child.kill('SIGKILL');
    await exited;
    const { done, last } = await old.fill();
    expect(done, 'stopped part of the way').to.be.below(last);
    await expectSearches(old.url, old.documents);
    await succeeded(startProcess(old.url));
    await expectEveryTrigram(old);
    await expectSearches(old.url, old.documents);
  });
});
