import type {
  StoredChanges,
  DocumentQuery,
  DocumentRows,
  NewStoredDocument,
  StoredDocument,
} from '../../ports/document-store.js';
import { nameSortKey, searchText } from '../../records/stored-document.js';
import { createTable, MYSQL_DIALECT } from '../sql/counters.js';
import { SetUpOnce } from '../shared/set-up-once.js';
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
  type SqlCondition,
} from '../sql/documents.js';
import type { MysqlConnection, MysqlStatement, MysqlWritten } from './connection.js';
import { everyTrigram } from './trigrams.js';
import {
  DOCUMENT_VOCABULARY,
  DOCUMENT_WORDS,
  LONG_WORD,
  oneWordSql,
  postingsSql,
  vocabularySql,
  wordNeedle,
  wordRows,
  wordsDeleted,
  wordsMatchingSql,
  wordsWritten,
} from './document-words.js';

/**
 * The tables of documents on MySQL and MariaDB. Owners, name keys and the searched forms are binary:
 * compared byte for byte (no text collation does; UTF-8 bytes order and contain as code points do), and
 * `LOCATE` on bytes is many times faster than on text. Ids are the table's `AUTO_INCREMENT`. Neither
 * server has a substring index (MySQL's n-gram parser is MySQL's alone, MariaDB has none): the trigrams
 * of each name and of each result are kept in tables of their own, as pg_trgm or FTS5 would, and a
 * search of three characters or more reads the documents that have all those of the needle; the words
 * of each too (lib/stores/mysql/document-words.ts), which answer a needle common enough that its trigrams
 * do not narrow it, when it is made of letters, marks and digits. The
 * searched results are kept in a table of their own too, apart from the rest of the row (a fraction of
 * a row's size to read), beside what a search filters and orders by.
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

/**
 * Each distinct trigram of each document's searched result, in the order of owner and template: a search
 * by result of three characters or more reads the documents that have those of the needle. No key on the
 * id alone (it would take more room than the table): a change or a delete finds a document's rows by the
 * primary key, from the trigrams of the searched result it had (see {@link deleteResultTrigrams}).
 */
const RESULT_TRIGRAMS = `dossier_document_result_trigrams (
  owner VARBINARY(512) NOT NULL, template_id INT NOT NULL, trigram VARBINARY(12) NOT NULL, id BIGINT NOT NULL,
  PRIMARY KEY (owner, template_id, trigram, id)
)${MYSQL_DIALECT.tableOptions}`;

/**
 * What is left to fill of a table that came after the documents it indexes: the documents whose ids are
 * above `done_through` and at most `last_id` (the highest when the table was made) have no rows in it yet.
 */
const FILLS = `dossier_document_fills (
  name VARBINARY(64) NOT NULL PRIMARY KEY, done_through BIGINT NOT NULL, last_id BIGINT NOT NULL
)${MYSQL_DIALECT.tableOptions}`;

/** The row of {@link FILLS} of {@link RESULT_TRIGRAMS}: the table's name. */
const RESULT_TRIGRAMS_FILL = 'dossier_document_result_trigrams';

/** The row of {@link FILLS} of the words ({@link DOCUMENT_WORDS}, with the vocabulary): the table's name. */
const WORDS_FILL = 'dossier_document_words';

/** A document as a fill reads it. */
interface FilledDocument {
  owner: string;
  template_id: number;
  id: number;
  name_lower: Buffer;
  result_lower: Buffer;
}

/** What each fill writes of a document: the rows, and the statements that write them (a row there already kept). */
const FILLED: Record<string, { rows(document: FilledDocument): unknown[][]; written(rows: unknown[][]): SqlCondition[] }> = {
  [RESULT_TRIGRAMS_FILL]: {
    rows: ({ owner, template_id, id, result_lower }) =>
      resultTrigramRows(owner, Number(template_id), result_lower.toString('utf8'), Number(id)),
    written: (rows) => [
      { sql: 'INSERT IGNORE INTO dossier_document_result_trigrams (owner, template_id, trigram, id) VALUES ?', values: [rows] },
    ],
  },
  [WORDS_FILL]: {
    rows: ({ owner, template_id, id, name_lower, result_lower }) => [
      ...wordRows(owner, Number(template_id), 'name', name_lower.toString('utf8'), Number(id)),
      ...wordRows(owner, Number(template_id), 'result', result_lower.toString('utf8'), Number(id)),
    ],
    written: wordsWritten,
  },
};

/** Documents read by one step of a fill, which stops earlier at {@link FILL_ROWS} rows. */
const FILL_DOCUMENTS = 100;

/** Rows written by one step of a fill, at the most (and a document's whole, past it). */
const FILL_ROWS = 5000;

/**
 * A trigram in this many documents of a template or more does not narrow a search by result: reading its
 * documents one by one through the trigram table costs more than reading the results in order.
 */
const RARE = 2000;

/**
 * Below what share of the owner's documents of a listing the rarest trigram of a needle narrows a search by
 * name. Measured on MariaDB with 30,000 documents of one owner: a needle in a fifth of the names took
 * 114 ms through the trigrams (grouping three trigrams' rows, then reading each document) and 64 ms read
 * in order; through the trigrams a document costs some three times what a scan pays for one.
 */
const NAMES_INDEXED_SHARE = 1 / 8;

/** The id the document inserted last by the session got, as mysql2 writes a value into a statement. */
const LAST_INSERT_ID = { toSqlString: () => 'LAST_INSERT_ID()' };

/** The rows of {@link NAME_TRIGRAMS} of a document's name. */
export function nameTrigramRows(owner: string, name: string, id: unknown): unknown[][] {
  return everyTrigram(searchText(name)).map((trigram) => [owner, trigram, id]);
}

/** The rows of {@link RESULT_TRIGRAMS} of a document's result, given in its searched form (`searchText`). */
export function resultTrigramRows(owner: string, templateId: number, searchedResult: string, id: unknown): unknown[][] {
  return everyTrigram(searchedResult).map((trigram) => [owner, templateId, trigram, id]);
}

/**
 * The statements that delete a document's rows of {@link RESULT_TRIGRAMS}, given the searched result it
 * has until then (read `FOR UPDATE` in the transaction that deletes them): none when it has no trigram.
 */
function deleteResultTrigrams(owner: string, templateId: number, searchedResult: Buffer, id: number): SqlCondition[] {
  const trigrams = everyTrigram(searchedResult.toString('utf8'));
  return trigrams.length === 0
    ? []
    : [
        {
          sql: 'DELETE FROM dossier_document_result_trigrams WHERE owner = ? AND template_id = ? AND trigram IN (?) AND id = ?',
          values: [owner, templateId, trigrams, id],
        },
      ];
}

/** Changes the counts of the document's owner and template first: every write locks the counts row before the document's. */
const COUNTED = `UPDATE dossier_document_counts c JOIN dossier_documents d ON c.owner = d.owner AND c.template_id = d.template_id`;

/**
 * Documents as rows of MySQL or MariaDB. Each write is a transaction (see {@link MysqlConnection}) that
 * keeps the counts and the name's trigrams too, MySQL having no `RETURNING`, and its triggers needing a
 * privilege where the binary log is on.
 */
export class MysqlDocumentStore extends SqlDocumentStore {
  private readonly ready: SetUpOnce;
  /** The fills ({@link FILLED}) done: every document has its rows there (never undone). */
  private readonly filled = new Set<string>();
  /** The fills this process runs, while they run. */
  private readonly filling = new Map<string, Promise<void>>();

  constructor(private readonly connection: MysqlConnection) {
    super(async (sql, values) => {
      if (!this.ready.done) await this.ready.run();
      return connection.query(sql, values);
    });
    const query = (sql: string, values: unknown[]): Promise<unknown[]> => connection.query(sql, values);
    this.ready = new SetUpOnce(async () => {
      for (const table of [DOCUMENTS, RESULTS, COUNTS, NAME_TRIGRAMS, FILLS, DOCUMENT_VOCABULARY])
        await createTable(query, table);
      // The documents of a store made before the results' trigrams (or the words) were kept have none:
      // those up to the highest id when the table is made are filled in (see fill). The row is written
      // before the table is made, once (a row there already stays), so that no process sees the table
      // without its row; a new store's row says that nothing is left.
      for (const [name, table] of [
        [RESULT_TRIGRAMS_FILL, RESULT_TRIGRAMS],
        [WORDS_FILL, DOCUMENT_WORDS],
      ] as const) {
        await connection.write(
          `INSERT IGNORE INTO dossier_document_fills (name, done_through, last_id)
           SELECT ?, 0, highest FROM (SELECT COALESCE(MAX(id), 0) AS highest FROM dossier_document_results) r
           WHERE NOT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?)`,
          [name, name],
        );
        await createTable(query, table);
        this.fill(name);
      }
    });
  }

  /**
   * A search in two steps: the ids of every match, in order, from the search tables (no wide row or
   * window function in a temporary table), which give the page and the total, or, where the matches are
   * put in the listing's order from its index (see {@link inListingOrder}), the page's ids and the count
   * apart; then the page's rows.
   */
  protected override async searched(owner: string, query: DocumentQuery & { search: string }): Promise<DocumentRows> {
    const matching =
      query.searchBy === 'result' ? await this.resultsMatching(owner, query) : await this.namesMatching(owner, query);
    const start = (query.page - 1) * query.perPage;
    let page: number[];
    let total: number;
    if (!Array.isArray(matching) && 'counted' in matching) {
      // The page alone, and the count apart: the listing's index is read only to the page's end.
      const [rows, counted] = await Promise.all([
        this.read(`${matching.sql} LIMIT ? OFFSET ?`, [...matching.values, query.perPage, start]),
        this.read(matching.counted.sql, matching.counted.values),
      ]);
      page = (rows as { id: number }[]).map((row) => Number(row.id));
      total = Number((counted as { total: number | string }[])[0]!.total);
    } else {
      const ids = Array.isArray(matching)
        ? matching
        : ((await this.read(matching.sql, matching.values)) as { id: number }[]).map((row) => Number(row.id));
      page = ids.slice(start, start + query.perPage);
      total = ids.length;
    }
    if (page.length === 0) return { documents: [], total };
    const rows = (await this.read(`SELECT ${DOCUMENT_COLUMNS} FROM dossier_documents WHERE owner = ? AND id IN (?)`, [
      owner,
      page,
    ])) as DocumentRow[];
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    // A document deleted between the two steps is left out.
    return { documents: page.flatMap((id) => (byId.has(id) ? [documentOf(byId.get(id)!)] : [])), total };
  }

  /**
   * The ids of the documents whose name holds the search, in the listing's order: through the name
   * trigrams when they narrow it (see {@link namesNarrow}), else from the words when they answer it (see
   * {@link wordsMatching}), else every name of the listing read.
   */
  private async namesMatching(owner: string, query: DocumentQuery & { search: string }): Promise<Matches> {
    const narrowed = await this.namesNarrow(owner, query);
    return (narrowed ? undefined : await this.wordsMatching(owner, query)) ?? namesMatching(owner, query, narrowed);
  }

  /**
   * The ids of the documents whose name or result holds the search, in the listing's order, read from the
   * words ({@link DOCUMENT_WORDS}), for a needle the trigrams do not narrow: when it is made of word
   * characters, every document has its words, and the words of the vocabulary that hold the needle list
   * fewer documents than the template has (each counted once per word; past that, reading each text
   * costs less). Otherwise `undefined`. Not the first choice for a rare needle: the vocabulary read grows
   * with the distinct words of the owner (a name's code of its own, a word of one document), where a rare
   * trigram reads its few documents.
   */
  private async wordsMatching(owner: string, query: DocumentQuery & { search: string }): Promise<Matches | undefined> {
    if (!wordNeedle(query.search) || !(await this.fillDone(WORDS_FILL))) return undefined;
    const field = query.searchBy === 'result' ? 'result' : 'name';
    const vocabulary = vocabularySql(owner, query.templateId, field, query.search);
    const words = ((await this.read(vocabulary.sql, vocabulary.values)) as { word: Buffer }[]).map(({ word }) =>
      word.toString('utf8'),
    );
    if (words.length === 0) return [];
    const most = await this.countOf(owner, { ...query, favorite: undefined });
    const postings = postingsSql(owner, query.templateId, field, words, most);
    const [{ found }] = (await this.read(postings.sql, postings.values)) as [{ found: number }];
    if (Number(found) >= most) return undefined;
    const matched = wordsMatchingSql(owner, query.templateId, field, words, query.search);
    const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
    if (query.sortBy !== 'name' && query.favorite === undefined) {
      if (words.length === 1 && words[0] !== LONG_WORD) return oneWordSql(owner, query.templateId, field, words[0]!, direction);
      return { sql: `SELECT m.id FROM (${matched.sql}) m ORDER BY m.id ${direction}`, values: matched.values };
    }
    return inListingOrder(owner, query, matched);
  }

  /**
   * Whether the name trigrams narrow a search by name: when the needle's rarest trigram is in fewer of the
   * owner's documents than {@link NAMES_INDEXED_SHARE} of those of the listing (the counts table's), each
   * trigram's documents counted that far at the most. Otherwise the owner's names of the listing are read
   * in order, which costs less than grouping the trigrams' rows of so many documents.
   */
  private async namesNarrow(owner: string, query: DocumentQuery & { search: string }): Promise<boolean> {
    const trigrams = trigramsOf(query.search);
    if (trigrams.length === 0) return false;
    const most = Math.ceil((await this.countOf(owner, query)) * NAMES_INDEXED_SHARE);
    if (most === 0) return false;
    const found = (await this.read(
      trigrams
        .map(
          () => `SELECT COUNT(*) AS documents FROM (SELECT 1 FROM dossier_document_name_trigrams
            WHERE owner = ? AND trigram = ? LIMIT ${most}) t`,
        )
        .join(' UNION ALL '),
      trigrams.flatMap((trigram) => [owner, trigram]),
    )) as { documents: number | string }[];
    return Math.min(...found.map(({ documents }) => Number(documents))) < most;
  }

  async create(document: NewStoredDocument): Promise<StoredDocument> {
    const trigrams = nameTrigramRows(document.owner, document.name, LAST_INSERT_ID);
    const resultTrigrams = resultTrigramRows(document.owner, document.template_id, searchText(document.result), LAST_INSERT_ID);
    const words = wordsWritten([
      ...wordRows(document.owner, document.template_id, 'name', searchText(document.name), LAST_INSERT_ID),
      ...wordRows(document.owner, document.template_id, 'result', searchText(document.result), LAST_INSERT_ID),
    ]);
    const [inserted] = (await this.transaction((run) =>
      run(
        `INSERT INTO dossier_documents (${FIELD_COLUMNS}) VALUES (?);
         INSERT INTO dossier_document_results (owner, template_id, id, favorite, name_key, result_lower)
           VALUES (?, ?, LAST_INSERT_ID(), ?, ?, ?);
         INSERT INTO dossier_document_counts (owner, template_id, total, favorites) VALUES (?, ?, 1, ?)
           ON DUPLICATE KEY UPDATE total = total + 1, favorites = favorites + VALUES(favorites)${
             trigrams.length === 0 ? '' : ';\nINSERT INTO dossier_document_name_trigrams (owner, trigram, id) VALUES ?'
           }${
             resultTrigrams.length === 0
               ? ''
               : ';\nINSERT INTO dossier_document_result_trigrams (owner, template_id, trigram, id) VALUES ?'
           }${words.map(({ sql }) => `;\n${sql}`).join('')}`,
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
          ...(resultTrigrams.length === 0 ? [] : [resultTrigrams]),
          ...words.flatMap(({ values }) => values),
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
      // The name it had, for its words (after the counts row, locked first by every write).
      const results = (await run(
        `${favored.sql}SELECT name_lower FROM dossier_documents WHERE owner = ? AND id = ? FOR UPDATE;
         UPDATE dossier_documents SET ${set} WHERE owner = ? AND id = ?;
         SELECT ${DOCUMENT_COLUMNS} FROM dossier_documents WHERE owner = ? AND id = ?`,
        [...favored.values, owner, id, ...values, owner, id, owner, id],
      )) as unknown[];
      const [row] = results[results.length - 1] as DocumentRow[];
      if (row === undefined) return undefined;
      const [named] = results[results.length - 3] as { name_lower: Buffer }[];
      await this.searchedAnew(run, owner, Number(row.template_id), id, changes, named!.name_lower.toString('utf8'));
      return documentOf(row);
    });
  }

  async delete(owner: string, id: number): Promise<boolean> {
    return this.transaction(async (run) => {
      const [, [named], deleted, [searched]] = (await run(
        `${COUNTED} SET c.total = c.total - 1, c.favorites = c.favorites - d.favorite WHERE d.owner = ? AND d.id = ?;
         SELECT name_lower FROM dossier_documents WHERE owner = ? AND id = ? FOR UPDATE;
         DELETE FROM dossier_documents WHERE owner = ? AND id = ?;
         SELECT template_id, result_lower FROM dossier_document_results WHERE id = ? FOR UPDATE`,
        [owner, id, owner, id, owner, id, id],
      )) as [MysqlWritten, { name_lower: Buffer }[], MysqlWritten, { template_id: number; result_lower: Buffer }[]];
      // Another owner's document keeps its rows.
      if (deleted.affectedRows === 0) return false;
      const statements: SqlCondition[] = [
        { sql: 'DELETE FROM dossier_document_results WHERE id = ?', values: [id] },
        { sql: 'DELETE FROM dossier_document_name_trigrams WHERE id = ?', values: [id] },
        ...(searched === undefined
          ? []
          : [
              ...deleteResultTrigrams(owner, Number(searched.template_id), searched.result_lower, id),
              ...wordsDeleted(owner, Number(searched.template_id), 'result', searched.result_lower.toString('utf8'), id),
              ...wordsDeleted(owner, Number(searched.template_id), 'name', named!.name_lower.toString('utf8'), id),
            ]),
      ];
      await run(
        statements.map(({ sql }) => sql).join(';\n'),
        statements.flatMap(({ values }) => values),
      );
      return true;
    });
  }

  /**
   * Writes what the search tables hold of a changed document anew (inside the transaction that changed
   * it): its searched result, favorite flag and name key, and the trigrams and words of its name and result.
   */
  private async searchedAnew(
    run: MysqlStatement,
    owner: string,
    templateId: number,
    id: number,
    { name, result, favorite }: StoredChanges,
    nameBefore: string,
  ): Promise<void> {
    if (name === undefined && result === undefined && favorite === undefined) return;
    /** The statements of the words, after the others. */
    const written: SqlCondition[] = [];
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
      written.push(
        ...wordsDeleted(owner, templateId, 'name', nameBefore, id),
        ...wordsWritten(wordRows(owner, templateId, 'name', searchText(name), id)),
      );
    }
    if (result !== undefined) {
      const [before] = (await run('SELECT result_lower FROM dossier_document_results WHERE id = ? FOR UPDATE', [id])) as {
        result_lower: Buffer;
      }[];
      for (const deleted of before === undefined ? [] : deleteResultTrigrams(owner, templateId, before.result_lower, id)) {
        statements.push(deleted.sql);
        values.push(...deleted.values);
      }
      const trigrams = resultTrigramRows(owner, templateId, searchText(result), id);
      if (trigrams.length > 0) {
        statements.push('INSERT INTO dossier_document_result_trigrams (owner, template_id, trigram, id) VALUES ?');
        values.push(trigrams);
      }
      written.push(
        ...(before === undefined ? [] : wordsDeleted(owner, templateId, 'result', before.result_lower.toString('utf8'), id)),
        ...wordsWritten(wordRows(owner, templateId, 'result', searchText(result), id)),
      );
    }
    await run([...statements, ...written.map(({ sql }) => sql)].join(';\n'), [...values, ...written.flatMap((w) => w.values)]);
  }

  /**
   * The ids of the documents whose result holds the search, in the listing's order, each checked on its
   * searched result. Those that have the two rarest trigrams of the needle, when it has three code points
   * or more, every document has its result's trigrams, and one of the needle's trigrams is in fewer than
   * {@link RARE} documents of the template; otherwise those the words list, when they answer it (see
   * {@link wordsMatching}: no text read); otherwise the owner's searched results of the template, each
   * read (a needle of one or two code points has no trigram; before the fill is done, a document without
   * its trigrams would be missed; and when every trigram is in that many documents, reading them one by
   * one through the trigram table costs more than reading the results in order).
   */
  private async resultsMatching(owner: string, query: DocumentQuery & { search: string }): Promise<Matches> {
    const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
    const order = query.sortBy === 'name' ? `r.name_key ${direction}, r.id ${direction}` : `r.id ${direction}`;
    const favorite = query.favorite === undefined ? '' : ` AND r.favorite = ${query.favorite ? 1 : 0}`;
    const trigrams = trigramsOf(query.search);
    const rarest =
      trigrams.length > 0 && (await this.fillDone(RESULT_TRIGRAMS_FILL))
        ? await this.rarest(owner, query.templateId, trigrams)
        : [];
    if (rarest.length === 0) {
      const words = await this.wordsMatching(owner, query);
      if (words !== undefined) return words;
      // In name order, the results read in the order they are stored, then put in the listing's order
      // (measured with 6,000 matches of 30,000 documents: the matches sorted, spilling to disk, 113 ms of
      // the server's; so, 75 ms; the scan alone, 70 ms). DISTINCT keeps them a table of their own: merged
      // into the join, each result was read by its id in the order of names (355 ms).
      // Every id at once: a count apart would read the results again.
      if (query.sortBy === 'name') {
        const { sql, values } = inListingOrder(owner, query, {
          sql: `SELECT DISTINCT r.id FROM dossier_document_results r WHERE r.owner = ? AND r.template_id = ?
            AND LOCATE(?, r.result_lower) > 0`,
          values: [owner, query.templateId, query.search],
        });
        return { sql, values };
      }
      return {
        sql: `SELECT r.id FROM dossier_document_results r WHERE r.owner = ? AND r.template_id = ?${favorite}
          AND LOCATE(?, r.result_lower) > 0 ORDER BY ${order}`,
        values: [owner, query.templateId, query.search],
      };
    }
    // From the rarest trigram's rows, in the order written (the database might start elsewhere).
    const [first, ...others] = rarest;
    const joins = others.map(
      (_, n) => `
        STRAIGHT_JOIN dossier_document_result_trigrams t${n + 1} ON t${n + 1}.owner = t0.owner
          AND t${n + 1}.template_id = t0.template_id AND t${n + 1}.trigram = ? AND t${n + 1}.id = t0.id`,
    );
    return {
      sql: `SELECT r.id FROM dossier_document_result_trigrams t0${joins.join('')}
        STRAIGHT_JOIN dossier_document_results r ON r.owner = t0.owner AND r.template_id = t0.template_id AND r.id = t0.id
        WHERE t0.owner = ? AND t0.template_id = ? AND t0.trigram = ?${favorite} AND LOCATE(?, r.result_lower) > 0
        ORDER BY ${order}`,
      values: [...others, owner, query.templateId, first, query.search],
    };
  }

  /**
   * The two trigrams of `trigrams` in the fewest documents of the template, rarest first, when one is in
   * fewer than {@link RARE}; none otherwise. Each trigram's documents are counted up to {@link RARE}.
   * Measured on MariaDB 10.11 with 100,000 documents: a join on every trigram of the needle (the
   * optimizer's order) answered a rare needle as fast, but a needle of common words in seconds; grouping
   * the rows of every trigram (`IN (…) GROUP BY id HAVING COUNT(*) = k`) was slower still on those.
   */
  private async rarest(owner: string, templateId: number, trigrams: string[]): Promise<string[]> {
    const counted = (await this.read(
      trigrams
        .map(
          () => `SELECT ? AS trigram, COUNT(*) AS documents FROM (SELECT 1 FROM dossier_document_result_trigrams
            WHERE owner = ? AND template_id = ? AND trigram = ? LIMIT ${RARE}) t`,
        )
        .join(' UNION ALL '),
      trigrams.flatMap((trigram) => [trigram, owner, templateId, trigram]),
    )) as { trigram: string; documents: number }[];
    const sorted = counted
      .map(({ trigram, documents }) => ({ trigram: String(trigram), documents: Number(documents) }))
      .sort((a, b) => a.documents - b.documents);
    return sorted[0]!.documents >= RARE ? [] : sorted.slice(0, 2).map(({ trigram }) => trigram);
  }

  /** True once the fill `name` ({@link FILLED}) is done; until then, makes sure it runs. */
  private async fillDone(name: string): Promise<boolean> {
    if (this.filled.has(name)) return true;
    const [progress] = (await this.read('SELECT done_through, last_id FROM dossier_document_fills WHERE name = ?', [name])) as {
      done_through: number;
      last_id: number;
    }[];
    // No row: one removed by hand (the table is made after it), read as what fillStep reads it as.
    if (progress === undefined || Number(progress.done_through) >= Number(progress.last_id)) this.filled.add(name);
    else this.fill(name);
    return this.filled.has(name);
  }

  /**
   * Writes the rows of the fill `name` ({@link FILLED}: the results' trigrams, the words) of the documents
   * that a store made before the table has, a step at a time in the background, until none is left or a
   * step fails (the next search starts it again). Each step is a transaction that takes the fill's row
   * (two processes take turns), reads the next documents' searched forms (locked until it commits, so
   * that an update waits and writes its own rows after), writes their rows and moves the row on: a
   * process stopped halfway leaves the row where its last step put it.
   */
  private fill(name: string): void {
    if (this.filled.has(name) || this.filling.has(name)) return;
    this.filling.set(
      name,
      (async () => {
        while (!(await this.fillStep(name))) {
          // Each step commits on its own: go on with the next.
        }
        this.filled.add(name);
      })()
        // A step that failed (the store down, a lock waited for too long) is tried again by the next search.
        .catch(() => {})
        .finally(() => this.filling.delete(name)),
    );
  }

  /** One step of {@link fill}. @returns true when nothing is left. */
  private fillStep(name: string): Promise<boolean> {
    const filled = FILLED[name]!;
    return this.connection.transaction(async (run) => {
      const [progress] = (await run('SELECT done_through, last_id FROM dossier_document_fills WHERE name = ? FOR UPDATE', [
        name,
      ])) as { done_through: number; last_id: number }[];
      if (progress === undefined) return true;
      const [after, last] = [Number(progress.done_through), Number(progress.last_id)];
      if (after >= last) return true;
      const documents = (await run(
        `SELECT r.owner, r.template_id, r.id, d.name_lower, r.result_lower FROM dossier_document_results r
         JOIN dossier_documents d ON d.id = r.id WHERE r.id > ? AND r.id <= ?
         ORDER BY r.id LIMIT ? LOCK IN SHARE MODE`,
        [after, last, FILL_DOCUMENTS],
      )) as FilledDocument[];
      const rows: unknown[][] = [];
      let written = 0;
      for (const document of documents) {
        if (rows.length >= FILL_ROWS) break;
        rows.push(...filled.rows(document));
        written += 1;
      }
      // Fewer documents than asked for, each written: none is left up to the last id.
      const through = written === documents.length && written < FILL_DOCUMENTS ? last : Number(documents[written - 1]!.id);
      const statements = [
        ...(rows.length === 0 ? [] : filled.written(rows)),
        { sql: 'UPDATE dossier_document_fills SET done_through = ? WHERE name = ?', values: [through, name] },
      ];
      await run(
        statements.map(({ sql }) => sql).join(';\n'),
        statements.flatMap(({ values }) => values),
      );
      return through >= last;
    });
  }

  private async transaction<T>(work: (run: MysqlStatement) => Promise<T>): Promise<T> {
    if (!this.ready.done) await this.ready.run();
    return this.connection.transaction(work);
  }
}

/**
 * The ids of `matched` (of documents of the owner and template, each once) in the listing's order, from
 * the documents' index that has it (by name or id, the favorites' when filtered): the matches made into a
 * table once, then that index read in order (to the page's end, when paged), each of its documents looked
 * up there, or the matches sorted when they are few, as the optimizer weighs it; and their count. Not from the results' table: it has no such index, and
 * its rows hold the searched result. Measured on MariaDB 10.11 with 30,000 documents of an owner, 6,000 of
 * them matches, by name: the results of the template read (84,528 pages), all 27,000 sorted (spilling to
 * disk) and read again, 360-560 ms of the server's; the index by name read (147 pages), no sort, 21-51 ms.
 */
function inListingOrder(owner: string, query: DocumentQuery, matched: SqlCondition): PagedMatches {
  const where = whereOf(owner, query);
  const joined = `FROM (${matched.sql}) m JOIN dossier_documents d ON d.id = m.id WHERE ${where.sql}`;
  const values = [...matched.values, ...where.values];
  return {
    sql: `SELECT d.id ${joined} ORDER BY ${orderOf(query)}`,
    values,
    // Without a favorite filter every match is the listing's: counted without the documents.
    counted:
      query.favorite === undefined
        ? { sql: `SELECT COUNT(*) AS total FROM (${matched.sql}) m`, values: matched.values }
        : { sql: `SELECT COUNT(*) AS total ${joined}`, values },
  };
}

/**
 * The ids of a search's matches, in the listing's order: found already, or a statement that reads them
 * all, or one to page (`LIMIT … OFFSET …` added) with their count apart.
 */
type Matches = number[] | SqlCondition | PagedMatches;

/** A statement of a search's matches in the listing's order, to page, and one that counts them. */
interface PagedMatches extends SqlCondition {
  counted: SqlCondition;
}

/**
 * The ids of the documents whose name holds the search, in the listing's order, each checked with
 * `LOCATE`: of those with every trigram of it (three characters or more) when `narrowed`, else of all the
 * owner's documents of the listing (a scan in the order of its index).
 */
function namesMatching(owner: string, query: DocumentQuery & { search: string }, narrowed: boolean): SqlCondition {
  const where = whereOf(owner, query);
  const trigrams = trigramsOf(query.search);
  if (narrowed && trigrams.length > 0) {
    where.sql += ` AND d.id IN (SELECT id FROM dossier_document_name_trigrams WHERE owner = ? AND trigram IN (?)
      GROUP BY id HAVING COUNT(*) = ?)`;
    where.values.push(owner, trigrams, trigrams.length);
  }
  return {
    sql: `SELECT d.id FROM dossier_documents d WHERE ${where.sql} AND LOCATE(?, d.name_lower) > 0 ORDER BY ${orderOf(query)}`,
    values: [...where.values, query.search],
  };
}
