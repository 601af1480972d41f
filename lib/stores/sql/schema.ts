// What the SQL records' schemas (keys, sessions, watches) share: their column types by backend, and where
// their indexes are written (inside each table's statement on MySQL, as statements of their own after the
// tables on SQLite and PostgreSQL).

/** The column types of the records' tables, by backend; each schema uses those it needs. */
export interface ColumnTypes {
  /** An ever-growing row number, the primary key. */
  seq: string;
  /** An id. */
  id: string;
  /** A name, an owner, a key's id. */
  name: string;
  /** An ISO 8601 instant, the scopes. */
  short: string;
  /** The lower-cased text a search looks in. */
  searched: string;
  /** A record as JSON. */
  text: string;
  /** A whole number. */
  count: string;
}

/** An index of a table: the table, the index's name, its columns. */
export type TableIndex = [table: string, name: string, columns: string];

/**
 * Where `indexes` are written: `within(table)` is what a table's statement ends with (MySQL's inline
 * `INDEX`es, else nothing), `after` the statements that follow the tables (SQLite's and PostgreSQL's
 * `CREATE INDEX`, else none).
 */
export function placeIndexes(indexes: TableIndex[], inline: boolean): { within(table: string): string; after: string[] } {
  return {
    within: (table) =>
      inline
        ? indexes
            .filter(([of]) => of === table)
            .map(([, name, columns]) => `, INDEX ${name} (${columns})`)
            .join('')
        : '',
    after: inline ? [] : indexes.map(([table, name, columns]) => `CREATE INDEX IF NOT EXISTS ${name} ON ${table} (${columns})`),
  };
}
