import type Database from 'better-sqlite3';
import type { StoredChanges, NewStoredDocument, StoredDocument } from '../../ports/document-store.js';
import type { Logger } from '../../ports/logger.js';
import { DOCUMENT_ID_COUNTER } from '../../records/stored-document.js';
import { INCREMENT_SQL, type SqlCounterStore } from '../sql/counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';
import {
  changesSql,
  DOCUMENT_COLUMNS,
  DOCUMENT_INDEXES,
  documentOf,
  documentValues,
  INSERTED_COLUMNS,
  migrateKeyvDocuments,
  SqlDocumentStore,
  trigramsOf,
  type DocumentDialect,
  type DocumentRow,
  type SearchedColumn,
} from '../sql/documents.js';
import { statementCache, type SqliteConnection } from './connection.js';
import { everyTrigramOf, exactPhrase, ftsFollowing, ftsPhrase, remakeFts } from './fts.js';

/**
 * The tables of documents on SQLite. Beside each searched column, a contentless FTS5 table with the
 * trigram tokenizer narrows a search of three characters or more: the names' (`detail=none`: which
 * trigrams a row has, not where, a fifth of the size) to the rows that have every trigram of it, checked
 * with `instr` on the column; the results' (`detail=full`, case-sensitive: where each trigram is, so that
 * a phrase query of the needle is the substring test itself) to the rows that hold it, so that their
 * count reads the index of the owner's ids, never a row. Triggers keep the FTS tables and the counts with
 * every write.
 */
const RESULTS_FTS = `CREATE VIRTUAL TABLE IF NOT EXISTS dossier_document_results USING fts5(
  text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1', detail = 'full')`;
const RESULTS_FILL = 'INSERT INTO dossier_document_results (rowid, text) SELECT id, result_lower FROM dossier_documents';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS dossier_documents (
    id INTEGER PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, name_lower TEXT NOT NULL, name_key TEXT NOT NULL,
    template_id INTEGER NOT NULL, prompt TEXT NOT NULL, creativity REAL NOT NULL, result TEXT NOT NULL,
    result_lower TEXT NOT NULL, words REAL NOT NULL, favorite INTEGER NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL)`,
  ...DOCUMENT_INDEXES.map(([name, columns]) => `CREATE INDEX IF NOT EXISTS ${name} ON dossier_documents (${columns})`),
  // What a scan of the owner's names reads (a count of a common needle's matches), without their rows.
  'CREATE INDEX IF NOT EXISTS dossier_documents_searched_names ON dossier_documents (owner, template_id, favorite, name_lower)',
  `CREATE TABLE IF NOT EXISTS dossier_document_counts (
    owner TEXT NOT NULL, template_id INTEGER NOT NULL, total INTEGER NOT NULL, favorites INTEGER NOT NULL,
    PRIMARY KEY (owner, template_id))`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS dossier_document_names USING fts5(
    text, content = '', contentless_delete = 1, tokenize = 'trigram', detail = 'none')`,
  RESULTS_FTS,
  `CREATE TRIGGER IF NOT EXISTS dossier_documents_inserted AFTER INSERT ON dossier_documents BEGIN
    INSERT INTO dossier_document_names (rowid, text) VALUES (new.id, new.name_lower);
    INSERT INTO dossier_document_results (rowid, text) VALUES (new.id, new.result_lower);
    INSERT INTO dossier_document_counts (owner, template_id, total, favorites) VALUES (new.owner, new.template_id, 1, new.favorite)
      ON CONFLICT (owner, template_id) DO UPDATE SET total = total + 1, favorites = favorites + new.favorite;
  END`,
  `CREATE TRIGGER IF NOT EXISTS dossier_documents_deleted AFTER DELETE ON dossier_documents BEGIN
    DELETE FROM dossier_document_names WHERE rowid = old.id;
    DELETE FROM dossier_document_results WHERE rowid = old.id;
    UPDATE dossier_document_counts SET total = total - 1, favorites = favorites - old.favorite
      WHERE owner = old.owner AND template_id = old.template_id;
  END`,
  ftsFollowing('dossier_documents_renamed', 'dossier_documents', 'id', 'name_lower', 'dossier_document_names'),
  ftsFollowing('dossier_documents_rewritten', 'dossier_documents', 'id', 'result_lower', 'dossier_document_results'),
  `CREATE TRIGGER IF NOT EXISTS dossier_documents_favored AFTER UPDATE OF favorite ON dossier_documents
    WHEN new.favorite IS NOT old.favorite BEGIN
    UPDATE dossier_document_counts SET favorites = favorites + new.favorite - old.favorite
      WHERE owner = old.owner AND template_id = old.template_id;
  END`,
];

/** The FTS table of a searched column. */
function ftsOf(column: SearchedColumn): string {
  return column === 'name_lower' ? 'dossier_document_names' : 'dossier_document_results';
}

/**
 * The FTS5 query of the rows of `column`'s table that may hold `needle`: those that hold it as a phrase in
 * the results' table (exactly the rows that hold it), every trigram of it in the names'.
 */
function ftsQueryOf(column: SearchedColumn, needle: string, trigrams: string[]): string {
  return column === 'result_lower' ? ftsPhrase(needle) : everyTrigramOf(trigrams);
}

const SQLITE_DOCUMENTS: DocumentDialect = {
  contains(column, needle, use, favorite) {
    const check = `instr(d.${column}, ?) > 0`;
    const trigrams = trigramsOf(needle);
    if (use === 'none' || trigrams.length === 0) return { sql: check, values: [needle] };
    const table = ftsOf(column);
    const values = [ftsQueryOf(column, needle, trigrams)];
    if (use === 'filter') {
      // The phrase's matches, gathered once, filter the entries of the listing's index read in its order
      // (`+` keeps SQLite from leading with them): no row is read. The names' trigrams are not the test, so
      // each name is checked on its row as a scan does.
      if (column !== 'result_lower' || !exactPhrase(needle)) return { sql: check, values: [needle] };
      return { sql: `+d.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`, values };
    }
    // CROSS JOIN: SQLite keeps this order, so that the FTS table's candidates lead, rather than a scan
    // of an index of the documents that checks each against them.
    if (column === 'result_lower' && exactPhrase(needle)) {
      // The phrase is the test: each match is looked up in the index of the owner's ids, not read.
      const index = favorite === undefined ? 'dossier_documents_by_id' : 'dossier_documents_favorites_by_id';
      return {
        from: {
          sql: `${table} f CROSS JOIN dossier_documents d INDEXED BY ${index} ON d.id = f.rowid AND f.${table} MATCH ?`,
          values,
        },
        sql: '1',
        values: [],
      };
    }
    return {
      from: { sql: `${table} f CROSS JOIN dossier_documents d ON d.id = f.rowid AND f.${table} MATCH ?`, values },
      sql: check,
      values: [needle],
    };
  },
  /** The rows of the FTS table that the needle's query finds (of every owner), up to `most`. */
  async candidates(read, column, needle, most) {
    const trigrams = trigramsOf(needle);
    if (trigrams.length === 0) return Infinity;
    const table = ftsOf(column);
    const [counted] = (await read(
      `SELECT count(*) AS candidates FROM (SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`,
      [ftsQueryOf(column, needle, trigrams), most],
    )) as { candidates: number }[];
    return counted!.candidates;
  },
  /**
   * Measured on 30,000 documents of one owner (names of ~25 characters, results of ~700): a candidate of
   * the names' FTS table costs some 2 µs to check on its row, a name counted through the covering index of
   * names ~0.25 µs (the scan wins above an eighth); a match of the results' phrase costs some 0.6 µs, looked
   * up in the index of ids (6,000 in 3.4 ms), a result read by a scan 2 to 3 µs (27,000 in 53 to 89 ms):
   * the index wins below four times the owner's documents (a phrase that other owners' documents hold).
   */
  indexedShare: { name_lower: 1 / 8, result_lower: 4 },
};

/** Settings of a {@link SqliteDocumentStore}. */
export interface SqliteDocumentStoreOptions {
  /** The Keyv namespace the key-value documents of older releases are under. */
  namespace: string;
  /** Where the move of those documents says what it could not move. @default nothing */
  logger?: Logger;
}

/**
 * Documents as rows of a SQLite file, written in the connection's group commits (a create takes its id
 * from the `documents:id` counter in the same transaction). Before its first call, the documents that
 * older releases kept as key-value records are moved into the table.
 */
export class SqliteDocumentStore extends SqlDocumentStore {
  private statement!: (sql: string) => Database.Statement;
  private readonly ready: SetUpOnce;

  constructor(
    private readonly connection: SqliteConnection,
    counters: SqlCounterStore,
    options: SqliteDocumentStoreOptions,
  ) {
    super(async (sql, values) => {
      if (!this.ready.done) await this.ready.run();
      return connection.run(() => this.statement(sql).all(...values));
    }, SQLITE_DOCUMENTS);
    connection.onOpen((db) => {
      this.statement = statementCache(db);
      db.transaction(() => {
        // The results' table of releases before (`detail=none`) cannot answer a phrase.
        remakeFts(db, 'dossier_document_results', RESULTS_FTS, RESULTS_FILL);
        for (const sql of SCHEMA) db.exec(sql);
      }).immediate();
    });
    this.ready = new SetUpOnce(async () => {
      await counters.tablesExist();
      await migrateKeyvDocuments(this.keyvRecords(), options.namespace, options.logger);
    });
  }

  async create(document: NewStoredDocument): Promise<StoredDocument> {
    if (!this.ready.done) await this.ready.run();
    return this.connection.write(() => {
      const { value } = this.statement(INCREMENT_SQL).get(DOCUMENT_ID_COUNTER, null, 0, Number.MAX_SAFE_INTEGER, 0) as {
        value: number;
      };
      this.statement(`INSERT INTO dossier_documents (id, ${INSERTED_COLUMNS}) VALUES (?${', ?'.repeat(13)})`).run(
        value,
        ...documentValues(document),
      );
      return { id: value, ...document };
    });
  }

  async update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined> {
    if (!this.ready.done) await this.ready.run();
    const { set, values } = changesSql(changes);
    const row = await this.connection.write(
      () =>
        this.statement(`UPDATE dossier_documents SET ${set} WHERE owner = ? AND id = ? RETURNING ${DOCUMENT_COLUMNS}`).get(
          ...values,
          owner,
          id,
        ) as DocumentRow | undefined,
    );
    return row === undefined ? undefined : documentOf(row);
  }

  async delete(owner: string, id: number): Promise<boolean> {
    if (!this.ready.done) await this.ready.run();
    return this.connection.write(
      () => this.statement('DELETE FROM dossier_documents WHERE owner = ? AND id = ?').run(owner, id).changes > 0,
    );
  }

  private keyvRecords(): Parameters<typeof migrateKeyvDocuments>[0] {
    return {
      records: (prefix, after, limit) =>
        this.connection.run(
          () =>
            this.statement('SELECT key, value FROM keyv WHERE key GLOB ? AND key > ? ORDER BY key LIMIT ?').all(
              `${prefix.replace(/[*?[]/g, '[$&]')}*`,
              after,
              limit,
            ) as { key: string; value: string }[],
        ),
      insert: (documents) =>
        this.connection.write(() => {
          const insert = this.statement(
            `INSERT OR IGNORE INTO dossier_documents (id, ${INSERTED_COLUMNS}) VALUES (?${', ?'.repeat(13)})`,
          );
          for (const { id, ...document } of documents) insert.run(id, ...documentValues(document));
        }),
      remove: (keys) =>
        this.connection.write(() => {
          this.statement('DELETE FROM keyv WHERE key IN (SELECT value FROM json_each(?))').run(JSON.stringify(keys));
        }),
      removeCounters: () =>
        this.connection.write(() => {
          this.statement(
            "DELETE FROM dossier_counters WHERE name GLOB 'documents:*:length' OR name GLOB 'documents:*:version'",
          ).run();
        }),
    };
  }
}
