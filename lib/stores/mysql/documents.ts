import type {
  StoredChanges,
  DocumentQuery,
  DocumentRows,
  NewStoredDocument,
  StoredDocument,
} from '../../ports/document-store.js';
import { nameSortKey, searchText } from '../../records/stored-document.js';
import { createTable, MYSQL_DIALECT, Setup } from '../sql/counters.js';
import {
  changesSql,
  DOCUMENT_COLUMNS,
  DOCUMENT_INDEXES,
  documentOf,
  FIELD_COLUMNS,
  fieldValues,
  orderOf,
  SqlDocumentStore,
  trigramsOf,
  whereOf,
  type DocumentRow,
} from '../sql/documents.js';
import type { MysqlConnection, MysqlStatement, MysqlWritten } from './connection.js';

/**
 * The tables of documents on MySQL and MariaDB. Owners, name keys and the searched forms are binary:
 * compared byte for byte (no text collation does; UTF-8 bytes order and contain as code points do), and
 * `LOCATE` on bytes is many times faster than on text. Ids are the table's `AUTO_INCREMENT`. Neither
 * server has a substring index (MySQL's n-gram parser is MySQL's alone, MariaDB has none): the name's
 * trigrams are kept in a table of their own, as pg_trgm or FTS5 would, and a search by result reads the
 * owner's searched results of the template, which a table of their own keeps together and apart from
 * the rest (a fraction of a row's size to read, and rows a cache of the usual size holds), beside what
 * such a search filters and orders by.
 */
const DOCUMENTS = `dossier_documents (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, owner VARBINARY(512) NOT NULL, name TEXT NOT NULL,
  name_lower VARBINARY(2048) NOT NULL, name_key VARBINARY(1200) NOT NULL, template_id INT NOT NULL,
  prompt TEXT NOT NULL, creativity DOUBLE NOT NULL, result MEDIUMTEXT NOT NULL, words DOUBLE NOT NULL,
  favorite TINYINT NOT NULL, created_at VARCHAR(32) NOT NULL, updated_at VARCHAR(32) NOT NULL,
  ${DOCUMENT_INDEXES.map(([name, columns]) => `KEY ${name} (${columns})`).join(', ')}
)${MYSQL_DIALECT.tableOptions}`;

/** Each document's searched result, with its favorite flag and name key, stored in the order of owner and template. */
const RESULTS = `dossier_document_results (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, id BIGINT NOT NULL, favorite TINYINT NOT NULL,
  name_key VARBINARY(1200) NOT NULL, result_lower MEDIUMBLOB NOT NULL,
  PRIMARY KEY (owner, template_id, id), UNIQUE KEY dossier_document_results_of (id)
)${MYSQL_DIALECT.tableOptions}`;

const COUNTS = `dossier_document_counts (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, total BIGINT NOT NULL, favorites BIGINT NOT NULL,
  PRIMARY KEY (owner, template_id)
)${MYSQL_DIALECT.tableOptions}`;

/** Each distinct trigram of each document's searched name: a search of three characters or more reads those of the needle. */
const NAME_TRIGRAMS = `dossier_document_name_trigrams (
  owner VARBINARY(512) NOT NULL, trigram VARBINARY(12) NOT NULL, id BIGINT NOT NULL,
  PRIMARY KEY (owner, trigram, id), KEY dossier_document_name_trigrams_of (id)
)${MYSQL_DIALECT.tableOptions}`;

/** The id the document inserted last by the session got, as mysql2 writes a value into a statement. */
const LAST_INSERT_ID = { toSqlString: () => 'LAST_INSERT_ID()' };

/** The rows of {@link NAME_TRIGRAMS} of a document's name: all its trigrams (not only the first ones a search asks for). */
export function nameTrigramRows(owner: string, name: string, id: unknown): unknown[][] {
  const points = Array.from(searchText(name));
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i += 1) trigrams.add(points.slice(i, i + 3).join(''));
  return [...trigrams].map((trigram) => [owner, trigram, id]);
}

/** Changes the counts of the document's owner and template first: every write locks the counts row before the document's. */
const COUNTED = `UPDATE dossier_document_counts c JOIN dossier_documents d ON c.owner = d.owner AND c.template_id = d.template_id`;

/**
 * Documents as rows of MySQL or MariaDB. Each write is a transaction (see {@link MysqlConnection}) that
 * keeps the counts and the name's trigrams too, MySQL having no `RETURNING`, and its triggers needing a
 * privilege where the binary log is on.
 */
export class MysqlDocumentStore extends SqlDocumentStore {
  private readonly ready: Setup;

  constructor(private readonly connection: MysqlConnection) {
    super(async (sql, values) => {
      if (!this.ready.done) await this.ready.run();
      return connection.query(sql, values);
    });
    const query = (sql: string, values: unknown[]): Promise<unknown[]> => connection.query(sql, values);
    this.ready = new Setup(async () => {
      for (const table of [DOCUMENTS, RESULTS, COUNTS, NAME_TRIGRAMS]) await createTable(query, table);
    });
  }

  /**
   * A search in two steps: the ids of every match, in order, from one table (no join, and no wide row or
   * window function in a temporary table), which give the page and the total; then the page's rows.
   */
  protected override async searched(owner: string, query: DocumentQuery & { search: string }): Promise<DocumentRows> {
    const matching = query.searchBy === 'result' ? resultsMatching(owner, query) : namesMatching(owner, query);
    const ids = ((await this.read(matching.sql, matching.values)) as { id: number }[]).map((row) => Number(row.id));
    const start = (query.page - 1) * query.perPage;
    const page = ids.slice(start, start + query.perPage);
    if (page.length === 0) return { documents: [], total: ids.length };
    const rows = (await this.read(`SELECT ${DOCUMENT_COLUMNS} FROM dossier_documents WHERE owner = ? AND id IN (?)`, [
      owner,
      page,
    ])) as DocumentRow[];
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    // A document deleted between the two steps is left out.
    return { documents: page.flatMap((id) => (byId.has(id) ? [documentOf(byId.get(id)!)] : [])), total: ids.length };
  }

  async create(document: NewStoredDocument): Promise<StoredDocument> {
    const trigrams = nameTrigramRows(document.owner, document.name, LAST_INSERT_ID);
    const [inserted] = (await this.transaction((run) =>
      run(
        `INSERT INTO dossier_documents (${FIELD_COLUMNS}) VALUES (?);
         INSERT INTO dossier_document_results (owner, template_id, id, favorite, name_key, result_lower)
           VALUES (?, ?, LAST_INSERT_ID(), ?, ?, ?);
         INSERT INTO dossier_document_counts (owner, template_id, total, favorites) VALUES (?, ?, 1, ?)
           ON DUPLICATE KEY UPDATE total = total + 1, favorites = favorites + VALUES(favorites)${
             trigrams.length === 0 ? '' : ';\nINSERT INTO dossier_document_name_trigrams (owner, trigram, id) VALUES ?'
           }`,
        [
          fieldValues(document),
          document.owner,
          document.template_id,
          document.favorite ? 1 : 0,
          nameSortKey(document.name),
          searchText(document.result),
          document.owner,
          document.template_id,
          document.favorite ? 1 : 0,
          ...(trigrams.length === 0 ? [] : [trigrams]),
        ],
      ),
    )) as MysqlWritten[];
    return { id: inserted!.insertId, ...document };
  }

  async update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined> {
    const { set, values } = changesSql(changes, false);
    const favored =
      changes.favorite === undefined
        ? { sql: '', values: [] }
        : {
            sql: `${COUNTED} SET c.favorites = c.favorites + ? - d.favorite WHERE d.owner = ? AND d.id = ?;\n`,
            values: [changes.favorite ? 1 : 0, owner, id],
          };
    return this.transaction(async (run) => {
      const results = (await run(
        `${favored.sql}UPDATE dossier_documents SET ${set} WHERE owner = ? AND id = ?;
         SELECT ${DOCUMENT_COLUMNS} FROM dossier_documents WHERE owner = ? AND id = ?`,
        [...favored.values, ...values, owner, id, owner, id],
      )) as unknown[];
      const [row] = results[results.length - 1] as DocumentRow[];
      if (row === undefined) return undefined;
      await this.searchedAnew(run, owner, id, changes);
      return documentOf(row);
    });
  }

  async delete(owner: string, id: number): Promise<boolean> {
    const [, deleted] = (await this.transaction((run) =>
      run(
        `${COUNTED} SET c.total = c.total - 1, c.favorites = c.favorites - d.favorite WHERE d.owner = ? AND d.id = ?;
         DELETE FROM dossier_documents WHERE owner = ? AND id = ?;
         DELETE FROM dossier_document_results WHERE id = ?;
         DELETE FROM dossier_document_name_trigrams WHERE id = ?`,
        [owner, id, owner, id, id, id],
      ),
    )) as MysqlWritten[];
    return deleted!.affectedRows > 0;
  }

  /**
   * Writes what the search tables hold of a changed document anew (inside the transaction that changed
   * it): its searched result, favorite flag and name key, and its name's trigrams.
   */
  private async searchedAnew(
    run: MysqlStatement,
    owner: string,
    id: number,
    { name, result, favorite }: StoredChanges,
  ): Promise<void> {
    if (name === undefined && result === undefined && favorite === undefined) return;
    const statements = [
      `UPDATE dossier_document_results SET favorite = COALESCE(?, favorite), name_key = COALESCE(?, name_key),
         result_lower = COALESCE(?, result_lower) WHERE id = ?`,
    ];
    const values: unknown[] = [
      favorite === undefined ? null : favorite ? 1 : 0,
      name === undefined ? null : nameSortKey(name),
      result === undefined ? null : searchText(result),
      id,
    ];
    if (name !== undefined) {
      const trigrams = nameTrigramRows(owner, name, id);
      statements.push('DELETE FROM dossier_document_name_trigrams WHERE id = ?');
      values.push(id);
      if (trigrams.length > 0) {
        statements.push('INSERT INTO dossier_document_name_trigrams (owner, trigram, id) VALUES ?');
        values.push(trigrams);
      }
    }
    await run(statements.join(';\n'), values);
  }

  private async transaction<T>(work: (run: MysqlStatement) => Promise<T>): Promise<T> {
    if (!this.ready.done) await this.ready.run();
    return this.connection.transaction(work);
  }
}

/** The ids of the documents whose result holds the search, in the listing's order, from the results table alone. */
function resultsMatching(owner: string, query: DocumentQuery & { search: string }): { sql: string; values: unknown[] } {
  const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
  const order = query.sortBy === 'name' ? `name_key ${direction}, id ${direction}` : `id ${direction}`;
  return {
    sql: `SELECT id FROM dossier_document_results WHERE owner = ? AND template_id = ?${query.favorite === undefined ? '' : ' AND favorite = ?'}
      AND LOCATE(?, result_lower) > 0 ORDER BY ${order}`,
    values: [owner, query.templateId, ...(query.favorite === undefined ? [] : [query.favorite ? 1 : 0]), query.search],
  };
}

/**
 * The ids of the documents whose name holds the search, in the listing's order: those with every
 * trigram of it (three characters or more), checked.
 */
function namesMatching(owner: string, query: DocumentQuery & { search: string }): { sql: string; values: unknown[] } {
  const where = whereOf(owner, query);
  const trigrams = trigramsOf(query.search);
  if (trigrams.length > 0) {
    where.sql += ` AND d.id IN (SELECT id FROM dossier_document_name_trigrams WHERE owner = ? AND trigram IN (?)
      GROUP BY id HAVING COUNT(*) = ?)`;
    where.values.push(owner, trigrams, trigrams.length);
  }
  return {
    sql: `SELECT d.id FROM dossier_documents d WHERE ${where.sql} AND LOCATE(?, d.name_lower) > 0 ORDER BY ${orderOf(query)}`,
    values: [...where.values, query.search],
  };
}
