import type Database from 'better-sqlite3';

// What the FTS5 trigram tables of documents and keys share: their queries, the trigger that keeps a row's
// text in them, and remaking a table that a release before defined otherwise.

/** `text` as an FTS5 string: a phrase, which in a trigram table is the substring itself. */
export function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** The FTS5 query of the rows that hold every trigram of `trigrams`, wherever. */
export function everyTrigramOf(trigrams: string[]): string {
  return trigrams.map(ftsPhrase).join(' AND ');
}

/**
 * Whether a phrase query of `needle` in a case-sensitive `detail=full` trigram table answers exactly what
 * `instr` does: a needle whose UTF-16 is well formed (half a surrogate pair, or U+FFFD, reaches SQLite as
 * U+FFFD, which `instr` then checks on the row).
 */
export function exactPhrase(needle: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/.test(needle);
}

/**
 * Makes the FTS table `name` again as `create` (a `CREATE VIRTUAL TABLE IF NOT EXISTS`) defines it, filled
 * by `fill`, when a release before made it otherwise; a table not there yet is left to the schema. Read
 * first, so that a store made by this release takes no lock; then in a transaction of its own (a savepoint
 * within the caller's), so that the processes of the release before, whose triggers write into the table of
 * the same name, never see it missing or half filled.
 */
export function remakeFts(db: Database.Database, name: string, create: string, fill: string): void {
  const flat = (sql: string): string => sql.replace('IF NOT EXISTS ', '').replace(/\s+/g, ' ');
  const stale = (): boolean => {
    const table = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(name) as { sql: string } | undefined;
    return table !== undefined && flat(table.sql) !== flat(create);
  };
  if (!stale()) return;
  db.transaction(() => {
    if (!stale()) return;
    db.exec(`DROP TABLE ${name}`);
    db.exec(create);
    db.exec(fill);
  }).immediate();
}

/**
 * The trigger `name` that keeps the row of `fts` of each row of `table` (its rowid the row's `id`) the text
 * of `column`, as it changes.
 */
export function ftsFollowing(name: string, table: string, id: string, column: string, fts: string): string {
  return `CREATE TRIGGER IF NOT EXISTS ${name} AFTER UPDATE OF ${column} ON ${table}
    WHEN new.${column} IS NOT old.${column} BEGIN
    DELETE FROM ${fts} WHERE rowid = old.${id};
    INSERT INTO ${fts} (rowid, text) VALUES (new.${id}, new.${column});
  END`;
}
