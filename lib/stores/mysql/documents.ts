import type { DocumentChanges, NewDocument, StoredDocument } from '../../ports/document-store.js';
import { createTable, MYSQL_DIALECT, Setup } from '../sql/counters.js';
import {
  changesSql,
  DOCUMENT_COLUMNS,
  DOCUMENT_INDEXES,
  documentOf,
  documentValues,
  INSERTED_COLUMNS,
  SqlDocumentStore,
  type DocumentRow,
} from '../sql/documents.js';
import type { MysqlConnection, MysqlWritten } from './connection.js';

/**
 * The tables of documents on MySQL and MariaDB. Owners and name keys are binary (compared byte for
 * byte, as no text collation does), the searched forms text in a binary collation, which `LOCATE`
 * compares code point by code point. Ids are the table's `AUTO_INCREMENT`.
 */
const DOCUMENTS = `dossier_documents (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, owner VARBINARY(512) NOT NULL, name TEXT NOT NULL,
  name_lower TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, name_key VARBINARY(1200) NOT NULL,
  template_id INT NOT NULL, prompt TEXT NOT NULL, creativity DOUBLE NOT NULL, result MEDIUMTEXT NOT NULL,
  result_lower MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, words DOUBLE NOT NULL,
  favorite TINYINT NOT NULL, created_at VARCHAR(32) NOT NULL, updated_at VARCHAR(32) NOT NULL,
  ${DOCUMENT_INDEXES.map(([name, columns]) => `KEY ${name} (${columns})`).join(', ')}
)${MYSQL_DIALECT.tableOptions}`;

const COUNTS = `dossier_document_counts (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, total BIGINT NOT NULL, favorites BIGINT NOT NULL,
  PRIMARY KEY (owner, template_id)
)${MYSQL_DIALECT.tableOptions}`;

/** Changes the counts of the document's owner and template first: every write locks the counts row before the document's. */
const COUNTED = `UPDATE dossier_document_counts c JOIN dossier_documents d ON c.owner = d.owner AND c.template_id = d.template_id`;

/**
 * Documents as rows of MySQL or MariaDB. Each write is one round trip of statements in a transaction
 * (see {@link MysqlConnection}) that keeps the counts table too, MySQL having no `RETURNING` and its
 * triggers needing a privilege where the binary log is on. No substring index: a search reads the
 * owner's rows of the template (neither server has a trigram index: MySQL's n-gram parser gives words,
 * and MariaDB has none).
 */
export class MysqlDocumentStore extends SqlDocumentStore {
  private readonly ready: Setup;

  constructor(private readonly connection: MysqlConnection) {
    super(
      async (sql, values) => {
        if (!this.ready.done) await this.ready.run();
        return connection.query(sql, values);
      },
      { contains: (column, needle) => ({ sql: `LOCATE(?, ${column}) > 0`, values: [needle] }) },
    );
    const query = (sql: string, values: unknown[]): Promise<unknown[]> => connection.query(sql, values);
    this.ready = new Setup(async () => {
      await createTable(query, DOCUMENTS);
      await createTable(query, COUNTS);
    });
  }

  async create(document: NewDocument): Promise<StoredDocument> {
    const [inserted] = (await this.write(
      `INSERT INTO dossier_documents (${INSERTED_COLUMNS}) VALUES (?);
       INSERT INTO dossier_document_counts (owner, template_id, total, favorites) VALUES (?, ?, 1, ?)
         ON DUPLICATE KEY UPDATE total = total + 1, favorites = favorites + VALUES(favorites)`,
      [documentValues(document), document.owner, document.template_id, document.favorite ? 1 : 0],
    )) as MysqlWritten[];
    return { id: inserted!.insertId, ...document };
  }

  async update(owner: string, id: number, changes: DocumentChanges): Promise<StoredDocument | undefined> {
    const { set, values } = changesSql(changes);
    const favored =
      changes.favorite === undefined
        ? { sql: '', values: [] }
        : {
            sql: `${COUNTED} SET c.favorites = c.favorites + ? - d.favorite WHERE d.owner = ? AND d.id = ?;\n`,
            values: [changes.favorite ? 1 : 0, owner, id],
          };
    const results = (await this.write(
      `${favored.sql}UPDATE dossier_documents SET ${set} WHERE owner = ? AND id = ?;
       SELECT ${DOCUMENT_COLUMNS} FROM dossier_documents WHERE owner = ? AND id = ?`,
      [...favored.values, ...values, owner, id, owner, id],
    )) as unknown[];
    const [row] = results[results.length - 1] as DocumentRow[];
    return row === undefined ? undefined : documentOf(row);
  }

  async delete(owner: string, id: number): Promise<boolean> {
    const [, deleted] = (await this.write(
      `${COUNTED} SET c.total = c.total - 1, c.favorites = c.favorites - d.favorite WHERE d.owner = ? AND d.id = ?;
       DELETE FROM dossier_documents WHERE owner = ? AND id = ?`,
      [owner, id, owner, id],
    )) as MysqlWritten[];
    return deleted!.affectedRows > 0;
  }

  private async write(sql: string, values: unknown[]): Promise<unknown> {
    if (!this.ready.done) await this.ready.run();
    return this.connection.write(sql, values);
  }
}
