import type {
  StoredChanges,
  DocumentQuery,
  DocumentRows,
  DocumentStore,
  NewStoredDocument,
  StoredDocument,
} from '../../ports/document-store.js';
import type { Logger } from '../../ports/logger.js';
import { isStoredDocument, nameSortKey, searchText } from '../../records/stored-document.js';
import { deserialize } from '../shared/serialize.js';
import type { SqlQuery } from './counters.js';

// Documents as rows, on SQLite, PostgreSQL and MySQL/MariaDB alike: `dossier_documents` holds each
// document with the forms its queries compare (the name and result as searched, the name's sort key),
// indexed for each list query of docs/contract.md §3; `dossier_document_counts` holds, per owner and
// template, how many documents there are and how many are favorites, kept by each write in the same
// transaction, so that a listing's `meta.total` never counts rows. Statements are written with `?`;
// each backend turns them into its own placeholders.

/** The columns a document is read from. */
export const DOCUMENT_COLUMNS =
  'id, owner, name, template_id, prompt, creativity, result, words, favorite, created_at, updated_at';

/** The columns of a document's fields and the name's searched and sorted forms, in the order of {@link fieldValues}. */
export const FIELD_COLUMNS =
  'owner, name, name_lower, name_key, template_id, prompt, creativity, result, words, favorite, created_at, updated_at';

/** The columns a document is written to where its searched result is in the same row, in the order of {@link documentValues}. */
export const INSERTED_COLUMNS = `${FIELD_COLUMNS}, result_lower`;

/**
 * The indexes of `dossier_documents` beside its primary key (id): one per order a listing asks for,
 * with and without the favorite filter, so that a page is read in index order and stops at its end.
 */
export const DOCUMENT_INDEXES: [name: string, columns: string][] = [
  ['dossier_documents_by_id', 'owner, template_id, id'],
  ['dossier_documents_favorites_by_id', 'owner, template_id, favorite, id'],
  ['dossier_documents_by_name', 'owner, template_id, name_key, id'],
  ['dossier_documents_favorites_by_name', 'owner, template_id, favorite, name_key, id'],
];

/** A row as the drivers read it: numbers may come as strings (PostgreSQL's BIGINT), flags as 0/1. */
export interface DocumentRow {
  id: number | string;
  owner: string;
  name: string;
  template_id: number | string;
  prompt: string;
  creativity: number | string;
  result: string;
  words: number | string;
  favorite: number | string | boolean;
  created_at: string;
  updated_at: string;
}

/** The document a row holds. */
export function documentOf(row: DocumentRow): StoredDocument {
  return {
    id: Number(row.id),
    owner: row.owner,
    name: row.name,
    template_id: Number(row.template_id),
    prompt: row.prompt,
    creativity: Number(row.creativity),
    result: row.result,
    words: Number(row.words),
    favorite: row.favorite === true || Number(row.favorite) === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The values of {@link FIELD_COLUMNS} for a document. */
export function fieldValues(document: NewStoredDocument): unknown[] {
  return [
    document.owner,
    document.name,
    searchText(document.name),
    nameSortKey(document.name),
    document.template_id,
    document.prompt,
    document.creativity,
    document.result,
    document.words,
    document.favorite ? 1 : 0,
    document.created_at,
    document.updated_at,
  ];
}

/** The values of {@link INSERTED_COLUMNS} for a document: its fields and the forms its queries compare. */
export function documentValues(document: NewStoredDocument): unknown[] {
  return [...fieldValues(document), searchText(document.result)];
}

/** {@link documentValues} by column name. */
export function documentRecord(document: NewStoredDocument): Record<string, unknown> {
  const values = documentValues(document);
  return Object.fromEntries(INSERTED_COLUMNS.split(', ').map((column, n) => [column, values[n]]));
}

/**
 * `UPDATE … SET` of {@link StoredChanges}, each field kept when its value is null, and its values
 * (followed by the owner and the id the caller puts in its `WHERE`); the searched result too unless
 * `searchedResult` is false (a backend that keeps it in a table of its own).
 */
export function changesSql(changes: StoredChanges, searchedResult = true): { set: string; values: unknown[] } {
  const { name, result, words, favorite } = changes;
  return {
    set: `name = COALESCE(?, name), name_lower = COALESCE(?, name_lower), name_key = COALESCE(?, name_key),
      result = COALESCE(?, result),${searchedResult ? ' result_lower = COALESCE(?, result_lower),' : ''}
      words = COALESCE(?, words), favorite = COALESCE(?, favorite), updated_at = ?`,
    values: [
      name ?? null,
      name === undefined ? null : searchText(name),
      name === undefined ? null : nameSortKey(name),
      result ?? null,
      ...(searchedResult ? [result === undefined ? null : searchText(result)] : []),
      words ?? null,
      favorite === undefined ? null : favorite ? 1 : 0,
      changes.updated_at,
    ],
  };
}

/** A condition of a statement and the values of its `?`. */
export interface SqlCondition {
  sql: string;
  values: unknown[];
}

/** The columns of {@link DOCUMENT_COLUMNS} of the listing's `dossier_documents d`. */
const LISTED_COLUMNS = DOCUMENT_COLUMNS.split(', ')
  .map((column) => `d.${column}`)
  .join(', ');

/** How a database searches documents. */
export interface DocumentDialect {
  /**
   * The condition that the searched form of `column` (`name_lower` or `result_lower`) of the documents
   * `d` holds `needle` (in its searched form already) as a substring, as exactly as
   * `String.prototype.includes` says, and the check itself on the column: narrowed by the substring index
   * the database has as `use` says (see {@link IndexUse}). `favorite` is the listing's favorite filter,
   * whose index an exact substring index may read the owner's documents from.
   */
  contains(column: SearchedColumn, needle: string, use: IndexUse, favorite: boolean | undefined): SearchCondition;
  /**
   * How many documents (of any owner) the substring index gives as candidates for `needle` in `column`,
   * counted up to `most` (the count stops there, so that it costs no more than what it decides against),
   * or `Infinity` when the index cannot narrow the needle (too short). Absent: the database's planner
   * decides from its statistics whether to use the index.
   */
  candidates?(read: SqlQuery, column: SearchedColumn, needle: string, most: number): Promise<number>;
  /**
   * Per column, below what share of the owner's documents of the listing the index's candidates are
   * counted through the index rather than by a scan of them (measured: checking a candidate reached
   * through the index costs more than checking a row a scan reads in order).
   */
  readonly indexedShare?: Record<SearchedColumn, number>;
  /**
   * The number of the owner's documents of the listing whose `column` holds `needle`, as an expression of
   * the page's statement. Absent: a `count(*)` of the documents that {@link contains} holds.
   */
  matches?(column: SearchedColumn, needle: string, owner: string, query: DocumentQuery): SqlCondition;
}

/**
 * A search's condition on the documents `d`, and what it reads them from: `dossier_documents d` unless
 * `from` says otherwise (a substring index joined to them first, which its values come before).
 */
export interface SearchCondition extends SqlCondition {
  from?: SqlCondition;
}

/** A column that a search reads. */
export type SearchedColumn = 'name_lower' | 'result_lower';

/**
 * How a part of a search (its count, its page) uses the substring index: `lead`, the index's candidates
 * are read first and then ordered; `filter`, the listing's index is read in its order and each entry kept
 * if it is among the index's matches (where the index's answer is exact, no row is read: a common needle's
 * page in an order its matches do not follow); `none`, each document of the listing is checked on its row.
 */
export type IndexUse = 'lead' | 'filter' | 'none';

/**
 * The documents of a SQL database: reads are the same on each but searches (see {@link searched}); each
 * backend writes in its own way, keeping the counts table with every write.
 */
export abstract class SqlDocumentStore implements DocumentStore {
  /**
   * @param read runs one reading statement (written with `?`) after the tables are made, under the
   *   backend's deadline; @param dialect says how the database searches, unless the backend has a
   *   {@link searched} of its own.
   */
  constructor(
    protected readonly read: SqlQuery,
    private readonly dialect?: DocumentDialect,
  ) {}

  abstract create(document: NewStoredDocument): Promise<StoredDocument>;
  abstract update(owner: string, id: number, changes: StoredChanges): Promise<StoredDocument | undefined>;
  abstract delete(owner: string, id: number): Promise<boolean>;

  async get(owner: string, id: number): Promise<StoredDocument | undefined> {
    const rows = (await this.read(`SELECT ${DOCUMENT_COLUMNS} FROM dossier_documents WHERE owner = ? AND id = ?`, [
      owner,
      id,
    ])) as DocumentRow[];
    return rows[0] === undefined ? undefined : documentOf(rows[0]);
  }

  /**
   * Without a search, one statement: the page's ids from the index of its order (which holds them: no row
   * is read before the page's), then the page's rows, each carrying the total, which comes from the counts
   * table (a page past the end has no row to carry it: then a second statement reads it). A page past the
   * first reads the total first: one in the second half of the listing is read from its end, in the
   * opposite order (the last page costs what the first does; the middle one is the deepest).
   */
  async list(owner: string, query: DocumentQuery): Promise<DocumentRows> {
    if (query.search !== undefined) return this.searched(owner, { ...query, search: query.search });
    const where = whereOf(owner, query);
    const total = this.counted(owner, query);
    const start = (query.page - 1) * query.perPage;
    if (start === 0) return this.page(query, where, total);
    const count = await this.countOf(owner, query);
    const end = Math.min(start + query.perPage, count);
    if (start >= count || start < count - end) return this.page(query, where, total);
    const reversed = await this.page({ ...query, sort: query.sort === 'asc' ? 'desc' : 'asc' }, where, total, {
      limit: end - start,
      offset: count - end,
    });
    return { documents: reversed.documents.reverse(), total: reversed.total };
  }

  /**
   * A search, in one statement: the page of the matches, its ids first, and with each row their number, a
   * query of its own. Where the database says how many candidates its substring index gives (see
   * {@link DocumentDialect.candidates}), each part takes the index or a scan of the owner's documents of
   * the listing, whichever visits fewer (see {@link searchPlan}), and a page in name order whose candidates
   * are too many to order, where the count takes the index, reads the names' order filtered by the index's
   * matches (`filter`, see {@link IndexUse}); otherwise the database's planner chooses,
   * and the count is the database's own where it has one (see {@link DocumentDialect.matches}).
   */
  protected async searched(owner: string, query: DocumentQuery & { search: string }): Promise<DocumentRows> {
    const dialect = this.dialect!;
    const column = query.searchBy === 'name' ? 'name_lower' : 'result_lower';
    let countUse: IndexUse = 'lead';
    let pageUse: IndexUse = 'lead';
    if (dialect.candidates !== undefined && dialect.indexedShare !== undefined) {
      const plan = searchPlan(await this.countOf(owner, query), dialect.indexedShare[column], query.page * query.perPage);
      const candidates = await dialect.candidates(this.read, column, query.search, plan.most);
      const { countIndexed, pageIndexed } = plan.given(candidates);
      countUse = countIndexed ? 'lead' : 'none';
      // Where the index is worth reading for the count but too wide to order, a page in name order reads the
      // names' index filtered by it: names gather by their words (a needle's matches may all sort last),
      // where ids follow creation, so that a walk of the ids checking each row meets the matches as often
      // as they are (a page of 50 in a fifth: 250 rows).
      pageUse = pageIndexed ? 'lead' : countIndexed && query.sortBy === 'name' ? 'filter' : 'none';
    }
    const where = (use: IndexUse): SearchCondition => {
      const condition = whereOf(owner, query);
      const contains = dialect.contains(column, query.search, use, query.favorite);
      return {
        sql: `${condition.sql} AND ${contains.sql}`,
        values: [...condition.values, ...contains.values],
        ...(contains.from === undefined ? {} : { from: contains.from }),
      };
    };
    if (dialect.matches !== undefined)
      return this.page(query, where(pageUse), dialect.matches(column, query.search, owner, query));
    const counting = where(countUse);
    const from = counting.from ?? { sql: 'dossier_documents d', values: [] };
    return this.page(query, where(pageUse), {
      sql: `(SELECT count(*) FROM ${from.sql} WHERE ${counting.sql})`,
      values: [...from.values, ...counting.values],
    });
  }

  /** The number of the owner's documents of the listing (all, favorites or others), read from the counts table. */
  protected async countOf(owner: string, query: DocumentQuery): Promise<number> {
    const total = this.counted(owner, query);
    const [read] = (await this.read(`SELECT ${total.sql} AS total`, total.values)) as { total: number | string }[];
    return Number(read?.total ?? 0);
  }

  /** The number of the owner's documents of the listing (all, favorites or others), from the counts table. */
  private counted(owner: string, query: DocumentQuery): SqlCondition {
    return {
      sql: `COALESCE((SELECT ${countedColumn(query.favorite)} FROM dossier_document_counts WHERE owner = ? AND template_id = ?), 0)`,
      values: [owner, query.templateId],
    };
  }

  /**
   * The page of the documents `d` that `where` holds, in the listing's order: its ids from the index of
   * that order, then their rows, each carrying `total`; with none, the total read alone.
   */
  private async page(
    query: DocumentQuery,
    where: SearchCondition,
    total: SqlCondition,
    { limit, offset } = { limit: query.perPage, offset: (query.page - 1) * query.perPage },
  ): Promise<DocumentRows> {
    const order = orderOf(query);
    const from = where.from ?? { sql: 'dossier_documents d', values: [] };
    const rows = (await this.read(
      `SELECT ${LISTED_COLUMNS}, ${total.sql} AS total
       FROM (SELECT d.id FROM ${from.sql} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?) p
       JOIN dossier_documents d ON d.id = p.id ORDER BY ${order}`,
      [...total.values, ...from.values, ...where.values, limit, offset],
    )) as (DocumentRow & { total: number | string })[];
    if (rows[0] !== undefined) return { documents: rows.map(documentOf), total: Number(rows[0].total) };
    const alone = (await this.read(`SELECT ${total.sql} AS total`, total.values)) as { total: number | string }[];
    return { documents: [], total: Number(alone[0]?.total ?? 0) };
  }
}

/**
 * How a search takes its count and its page, given that a scan reads `rows` documents (the owner's of the
 * listing), that the index is worth it for the count below `share` of them, and that the page ends at the
 * `reach`-th match: the count through the index when its candidates are fewer than `rows × share`; the
 * page through the index when sorting its candidates costs less than reading the listing's index in order
 * up to the page's end, which meets `candidates / rows` matches a row (`candidates² < reach × rows`).
 * `most` is how far the candidates need counting to tell.
 */
export function searchPlan(
  rows: number,
  share: number,
  reach: number,
): { most: number; given(candidates: number): { countIndexed: boolean; pageIndexed: boolean } } {
  const counted = rows * share;
  return {
    most: Math.ceil(Math.max(counted, Math.sqrt(reach * rows))),
    given: (candidates) => ({ countIndexed: candidates < counted, pageIndexed: candidates * candidates < reach * rows }),
  };
}

/** The owner, template and favorite filter of a listing, on the documents `d`. */
export function whereOf(owner: string, query: DocumentQuery): SqlCondition {
  return {
    sql: `d.owner = ? AND d.template_id = ?${query.favorite === undefined ? '' : ' AND d.favorite = ?'}`,
    values: [owner, query.templateId, ...(query.favorite === undefined ? [] : [query.favorite ? 1 : 0])],
  };
}

/** The order of a listing, on the documents `d`: ties of names broken by id, in the same direction. */
export function orderOf(query: DocumentQuery): string {
  const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
  return query.sortBy === 'name' ? `d.name_key ${direction}, d.id ${direction}` : `d.id ${direction}`;
}

/** The column (or difference) of the counts table that a favorite filter reads. */
function countedColumn(favorite: boolean | undefined): string {
  if (favorite === undefined) return 'total';
  return favorite ? 'favorites' : 'total - favorites';
}

/** How many distinct trigrams of a needle a trigram index is asked for at the most (any of them narrow the search). */
const TRIGRAMS_ASKED = 16;

/** The distinct trigrams (three code points each) of `text`, at most {@link TRIGRAMS_ASKED}; none below three code points. */
export function trigramsOf(text: string): string[] {
  const points = Array.from(text);
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= points.length && trigrams.size < TRIGRAMS_ASKED; i += 1) trigrams.add(points.slice(i, i + 3).join(''));
  return [...trigrams];
}

/** `text` as a `LIKE` pattern of itself: `%`, `_` and `\` escaped with `\`. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Records moved per statement by {@link migrateKeyvDocuments}. */
const MIGRATION_BATCH = 500;

/** What {@link migrateKeyvDocuments} reads and writes on a backend. */
export interface KeyvDocumentRecords {
  /** Up to `limit` `[key, value]` of the `keyv` table whose key starts with `prefix` and follows `after`, in key order. */
  records(prefix: string, after: string, limit: number): Promise<{ key: string; value: string }[]>;
  /** Stores documents with the ids they have, skipping any id already stored. */
  insert(documents: StoredDocument[]): Promise<void>;
  /** Deletes records of the `keyv` table. */
  remove(keys: string[]): Promise<void>;
  /** Deletes the per-owner counters of the key-value documents (`documents:<owner>:length` and `:version`). */
  removeCounters(): Promise<void>;
}

/**
 * Moves the documents that releases before the tables kept as key-value records (`<namespace>:doc:<id>`
 * in `keyv`, with per-owner indexes of ids and counters) into `dossier_documents`, keeping each id,
 * owner, field and date; new ids go on from the counter those releases used (`documents:id`). A batch
 * at a time: the documents are inserted (an id already there is skipped), then their records deleted,
 * so that an interrupted move goes on where it stopped, and two processes moving at once insert each
 * document once. A record that is not a document is left where it is, and said. Then the indexes and
 * counters, which nothing reads any more, are deleted.
 * @throws the backend's error; the next call goes on from there.
 */
export async function migrateKeyvDocuments(records: KeyvDocumentRecords, namespace: string, logger?: Logger): Promise<void> {
  const prefix = `${namespace}:doc:`;
  let skipped = 0;
  for (let after = ''; ;) {
    const batch = await records.records(prefix, after, MIGRATION_BATCH);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.key;
    const moved: { key: string; document: StoredDocument }[] = [];
    for (const { key, value } of batch) {
      const document = keyvDocument(value);
      if (document === undefined) skipped += 1;
      else moved.push({ key, document });
    }
    if (moved.length === 0) continue;
    await records.insert(moved.map(({ document }) => document));
    await records.remove(moved.map(({ key }) => key));
  }
  if (skipped > 0) {
    logger?.warn('Some key-value records of documents could not be read, and were left where they are.', {
      records: skipped,
      prefix,
    });
  }
  for (;;) {
    const slots = await records.records(`${namespace}:documents:`, '', MIGRATION_BATCH * 10);
    if (slots.length === 0) break;
    await records.remove(slots.map(({ key }) => key));
  }
  await records.removeCounters();
}

/** The document of a record as Keyv wrote it (`{"value":…,"expires":…}`), or `undefined` for anything else. */
function keyvDocument(text: string): StoredDocument | undefined {
  let value: unknown;
  try {
    value = deserialize<{ value?: unknown }>(text).value;
  } catch {
    return undefined;
  }
  if (!isStoredDocument(value)) return undefined;
  const { id, owner, name, template_id, prompt, creativity, result, words, favorite, created_at, updated_at } = value;
  const typed =
    Number.isSafeInteger(id) &&
    id > 0 &&
    Number.isInteger(template_id) &&
    typeof prompt === 'string' &&
    typeof creativity === 'number' &&
    typeof result === 'string' &&
    typeof words === 'number' &&
    typeof favorite === 'boolean' &&
    typeof created_at === 'string' &&
    typeof updated_at === 'string';
  return typed
    ? { id, owner, name, template_id, prompt, creativity, result, words, favorite, created_at, updated_at }
    : undefined;
}
