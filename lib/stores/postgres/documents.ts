import type { StoredChanges, NewStoredDocument, StoredDocument } from '../../ports/document-store.js';
import type { Logger } from '../../ports/logger.js';
import { DOCUMENT_ID_COUNTER } from '../../records/stored-document.js';
import { CREATE_TRIGRAMS, TRIGRAM_SCHEMA } from './trigrams.js';
import { createTable, placeholders, POSTGRES_DIALECT, type SqlCounterStore, type SqlQuery } from '../sql/counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';
import {
  changesSql,
  DOCUMENT_COLUMNS,
  DOCUMENT_INDEXES,
  documentOf,
  documentRecord,
  documentValues,
  INSERTED_COLUMNS,
  likeLiteral,
  migrateKeyvDocuments,
  SqlDocumentStore,
  type DocumentRow,
  type KeyvDocumentRecords,
} from '../sql/documents.js';

/**
 * The index a count of a common needle's matches by name reads instead of the rows (an index-only scan of
 * the owner's names, which the planner takes when its statistics say the trigram index would visit more).
 */
const NAMES_INDEX = ['dossier_documents_searched_names', 'owner, template_id, favorite, name_lower'] as const;

/** The trigram indexes of the searched columns: for `LIKE '%…%'` on them. */
const TRIGRAM_INDEXES = [
  ['dossier_documents_name_trigrams', 'name_lower'],
  ['dossier_documents_result_trigrams', 'result_lower'],
] as const;

/**
 * The tables of documents on PostgreSQL, made in one statement under a lock of the whole database, so
 * that processes starting together make them once. The counts table is kept by a trigger. pg_trgm is
 * created when the role may ({@link CREATE_TRIGRAMS}); without it, searches read the owner's rows of the
 * template one by one.
 */
const SCHEMA = `DO $setup$
DECLARE
  trigrams text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('dossier_documents'));
  CREATE TABLE IF NOT EXISTS dossier_documents (
    id BIGINT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, name_lower TEXT NOT NULL,
    name_key TEXT COLLATE "C" NOT NULL, template_id INTEGER NOT NULL, prompt TEXT NOT NULL,
    creativity DOUBLE PRECISION NOT NULL, result TEXT NOT NULL, result_lower TEXT NOT NULL,
    words DOUBLE PRECISION NOT NULL, favorite SMALLINT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  ${DOCUMENT_INDEXES.map(([name, columns]) => `CREATE INDEX IF NOT EXISTS ${name} ON dossier_documents (${columns});`).join('\n  ')}
  CREATE TABLE IF NOT EXISTS dossier_document_counts (
    owner TEXT NOT NULL, template_id INTEGER NOT NULL, total BIGINT NOT NULL, favorites BIGINT NOT NULL,
    PRIMARY KEY (owner, template_id));
  CREATE OR REPLACE FUNCTION dossier_documents_counted() RETURNS trigger LANGUAGE plpgsql AS $counted$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO dossier_document_counts AS c (owner, template_id, total, favorites)
        VALUES (NEW.owner, NEW.template_id, 1, NEW.favorite)
        ON CONFLICT (owner, template_id) DO UPDATE SET total = c.total + 1, favorites = c.favorites + NEW.favorite;
    ELSIF TG_OP = 'DELETE' THEN
      UPDATE dossier_document_counts SET total = total - 1, favorites = favorites - OLD.favorite
        WHERE owner = OLD.owner AND template_id = OLD.template_id;
    ELSIF NEW.favorite <> OLD.favorite THEN
      UPDATE dossier_document_counts SET favorites = favorites + NEW.favorite - OLD.favorite
        WHERE owner = OLD.owner AND template_id = OLD.template_id;
    END IF;
    RETURN NULL;
  END
  $counted$;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'dossier_documents_counted'
      AND tgrelid = 'dossier_documents'::regclass) THEN
    CREATE TRIGGER dossier_documents_counted AFTER INSERT OR DELETE OR UPDATE OF favorite ON dossier_documents
      FOR EACH ROW EXECUTE FUNCTION dossier_documents_counted();
  END IF;
  -- How many of the owner's documents of the listing hold a search's needle (pattern, a LIKE pattern on
  -- searched, name_lower or result_lower), planned without a sequential scan of the table: the planner
  -- prices the LIKE of a result of hundreds of characters as one comparison, and so took a scan that
  -- checks every row of every owner over the trigram index's candidates, whose pages cost it about the
  -- same (at 100,000 documents, a word in 20,000 results: 100,000 LIKEs against 20,000). Without the scan
  -- it still chooses by its statistics between the trigram index's candidates, the owner's rows through
  -- their index, or both at once (BitmapAnd). A function, so that the setting holds for this statement
  -- alone; EXECUTE plans it with the values each time, as a statement of the client is.
  CREATE OR REPLACE FUNCTION dossier_documents_matches(
    of_owner text, of_template integer, of_favorite smallint, searched text, pattern text)
    RETURNS bigint LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $matches$
  DECLARE
    counted bigint;
  BEGIN
    EXECUTE format('SELECT count(*) FROM dossier_documents WHERE owner = $1 AND template_id = $2%s AND %I LIKE $4',
        CASE WHEN of_favorite IS NULL THEN '' ELSE ' AND favorite = $3' END, searched)
      INTO counted USING of_owner, of_template, of_favorite, pattern;
    RETURN counted;
  END
  $matches$;
  ${CREATE_TRIGRAMS}
  -- On an empty table the search indexes take no time; on a table with rows, they are built apart.
  IF NOT EXISTS (SELECT 1 FROM dossier_documents) THEN
    CREATE INDEX IF NOT EXISTS ${NAMES_INDEX[0]} ON dossier_documents (${NAMES_INDEX[1]});
  END IF;
  SELECT schema INTO trigrams FROM (${TRIGRAM_SCHEMA}) t;
  IF trigrams IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dossier_documents) THEN
    ${TRIGRAM_INDEXES.map(([name, column]) => `EXECUTE format('CREATE INDEX IF NOT EXISTS ${name} ON dossier_documents USING gin (${column} %I.gin_trgm_ops)', trigrams);`).join('\n    ')}
  END IF;
END
$setup$`;

/** Settings of a {@link PostgresDocumentStore}. */
export interface PostgresDocumentStoreOptions {
  /** The Keyv namespace the key-value documents of older releases are under. */
  namespace: string;
  /**
   * Runs a statement with no deadline, on a connection of its own: for building the trigram indexes of
   * a table that has rows already, in the background (`CREATE INDEX CONCURRENTLY`).
   */
  maintain: SqlQuery;
  /** Where the store says what it could not do (no pg_trgm, documents it could not move). @default nothing */
  logger?: Logger;
}

/**
 * Documents as rows of PostgreSQL, each write one statement (a create takes its id from the
 * `documents:id` counter in the same statement). Searches are `LIKE` on the searched columns, which
 * pg_trgm's GIN indexes answer; a search's count is `dossier_documents_matches`, which never scans the
 * whole table (see the schema). Before its first call, the documents that older releases kept as
 * key-value records are moved into the table.
 */
export class PostgresDocumentStore extends SqlDocumentStore {
  private readonly ready: SetUpOnce;
  private readonly run: SqlQuery;

  /** @param query runs one statement (with `$n` placeholders) under the backend's deadline. */
  constructor(query: SqlQuery, counters: SqlCounterStore, options: PostgresDocumentStoreOptions) {
    const placed = placeholders(POSTGRES_DIALECT);
    const run: SqlQuery = async (sql, values) => {
      if (!this.ready.done) await this.ready.run();
      return query(placed(sql), values);
    };
    super(run, {
      contains: (column, needle) => ({ sql: `d.${column} LIKE ?`, values: [`%${likeLiteral(needle)}%`] }),
      matches: (column, needle, owner, query) => ({
        sql: '(SELECT dossier_documents_matches(?, ?::integer, ?::smallint, ?, ?))',
        values: [
          owner,
          query.templateId,
          query.favorite === undefined ? null : query.favorite ? 1 : 0,
          column,
          `%${likeLiteral(needle)}%`,
        ],
      }),
    });
    this.run = run;
    this.ready = new SetUpOnce(async () => {
      await counters.tablesExist();
      await createTable(query, 'keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
      await query(SCHEMA, []);
      this.indexSearches(query, options).catch((error: unknown) =>
        options.logger?.warn('The search indexes of documents could not be built; searches read every row.', {
          error: String(error),
        }),
      );
      await migrateKeyvDocuments(
        this.keyvRecords((sql, values) => query(placed(sql), values)),
        options.namespace,
        options.logger,
      );
    });
  }

  async create(document: NewStoredDocument): Promise<StoredDocument> {
    const rows = (await this.run(
      `WITH next AS (
         INSERT INTO dossier_counters AS c (name, value, expires_at) VALUES (?, 1, NULL)
         ON CONFLICT (name) DO UPDATE SET value = c.value + 1 RETURNING value)
       INSERT INTO dossier_documents (id, ${INSERTED_COLUMNS})
         SELECT value, ?, ?, ?, ?, ?::integer, ?, ?::double precision, ?, ?::double precision, ?::smallint, ?, ?, ? FROM next
       RETURNING id`,
      [DOCUMENT_ID_COUNTER, ...documentValues(document)],
    )) as { id: string | number }[];
    return { id: Number(rows[0]!.id), ...document };
  }

  async update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined> {
    const { set, values } = changesSql(changes);
    const rows = (await this.run(`UPDATE dossier_documents SET ${set} WHERE owner = ? AND id = ? RETURNING ${DOCUMENT_COLUMNS}`, [
      ...values,
      owner,
      id,
    ])) as DocumentRow[];
    return rows[0] === undefined ? undefined : documentOf(rows[0]);
  }

  async delete(owner: string, id: number): Promise<boolean> {
    return (await this.run('DELETE FROM dossier_documents WHERE owner = ? AND id = ? RETURNING id', [owner, id])).length > 0;
  }

  /**
   * Builds the search indexes that are missing (or were left invalid by a build that stopped), without
   * locking the table; searches are right meanwhile, only slower. Says so when pg_trgm is not there.
   */
  private async indexSearches(query: SqlQuery, options: PostgresDocumentStoreOptions): Promise<void> {
    const existing = (await query(
      `SELECT c.relname AS name, i.indisvalid AS valid,
         EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.relid = i.indrelid) AS building
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = 'dossier_documents'::regclass`,
      [],
    )) as { name: string; valid: boolean; building: boolean }[];
    /** Builds index `name` with `definition` unless it is there and valid, or being built. */
    const build = async (name: string, definition: string): Promise<void> => {
      const found = existing.find((index) => index.name === name);
      if (found?.valid || found?.building) return;
      if (found) await options.maintain(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`, []);
      await options.maintain(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON dossier_documents ${definition}`, []);
    };
    await build(NAMES_INDEX[0], `(${NAMES_INDEX[1]})`);
    const [extension] = (await query(TRIGRAM_SCHEMA, [])) as { schema: string }[];
    if (extension === undefined) {
      options.logger?.warn(
        'PostgreSQL has no pg_trgm (CREATE EXTENSION pg_trgm needs a role that may create in the database): searches of documents read every row of the owner and template.',
      );
      return;
    }
    const schema = `"${extension.schema.replaceAll('"', '""')}"`;
    for (const [name, column] of TRIGRAM_INDEXES) await build(name, `USING gin (${column} ${schema}.gin_trgm_ops)`);
  }

  /** The key-value records of older releases, as {@link migrateKeyvDocuments} reads and deletes them. */
  private keyvRecords(query: SqlQuery): KeyvDocumentRecords {
    return {
      records: async (prefix, after, limit) =>
        (await query(
          'SELECT key, value FROM keyv WHERE starts_with(key, ?) AND key COLLATE "C" > ? ORDER BY key COLLATE "C" LIMIT ?',
          [prefix, after, limit],
        )) as { key: string; value: string }[],
      insert: async (documents) => {
        const rows = documents.map(({ id, ...document }) => ({ id, ...documentRecord(document) }));
        await query(
          `INSERT INTO dossier_documents (id, ${INSERTED_COLUMNS}) SELECT id, ${INSERTED_COLUMNS}
           FROM json_to_recordset(?::json) AS r(id BIGINT, owner TEXT, name TEXT, name_lower TEXT, name_key TEXT,
             template_id INTEGER, prompt TEXT, creativity DOUBLE PRECISION, result TEXT, result_lower TEXT,
             words DOUBLE PRECISION, favorite SMALLINT, created_at TEXT, updated_at TEXT)
           ON CONFLICT (id) DO NOTHING`,
          [JSON.stringify(rows)],
        );
      },
      remove: async (keys) => {
        await query('DELETE FROM keyv WHERE key = ANY(?)', [keys]);
      },
      removeCounters: async () => {
        await query("DELETE FROM dossier_counters WHERE name LIKE 'documents:%:length' OR name LIKE 'documents:%:version'", []);
      },
    };
  }
}
