import Database from 'better-sqlite3';

/**
 * Makes the FTS5 table `table` of the SQLite file at `path` again as releases before made the trigram
 * tables (case-insensitive, which trigrams a row has but not where), filled by `fill` (an `INSERT … SELECT`).
 */
export function makeFtsAsBefore(path: string, table: string, fill: string): void {
  const db = new Database(path);
  try {
    db.exec(`DROP TABLE ${table};
      CREATE VIRTUAL TABLE ${table} USING fts5(
        text, content = '', contentless_delete = 1, tokenize = 'trigram', detail = 'none');
      ${fill};`);
  } finally {
    db.close();
  }
}

/** The `CREATE` statement the SQLite file at `path` keeps of the table `table`. */
export function tableSql(path: string, table: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string }).sql;
  } finally {
    db.close();
  }
}
