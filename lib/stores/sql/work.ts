// The transactions of the SQL records (keys, sessions, watches): each is a generator of statements, so that
// one piece of logic runs synchronously in a SQLite write and across round trips on PostgreSQL and MySQL.

/** One statement of a transaction. */
export interface SqlStep {
  sql: string;
  values: unknown[];
}

/** What a statement answered: its rows (a read), how many rows it changed (a write). */
export interface SqlAnswer {
  rows: Record<string, unknown>[];
  changes: number;
}

/**
 * The statements of one transaction, as a generator: each `yield` is a statement, answered with its
 * {@link SqlAnswer}; its return value is the transaction's. So one piece of logic runs synchronously in a
 * SQLite write and across round trips on PostgreSQL and MySQL.
 */
export type SqlWork<T> = Generator<SqlStep, T, SqlAnswer>;

/** One statement of a transaction: `sql` and its values. */
export function step(sql: string, values: unknown[]): SqlStep {
  return { sql, values };
}

/**
 * Runs `work` as one transaction of `tables`, each statement's placeholders written by `placed` (the
 * statements are written with `?`).
 */
export function runPlaced<T>(
  tables: { transaction<R>(work: () => SqlWork<R>): Promise<R> },
  placed: (sql: string) => string,
  work: () => SqlWork<T>,
): Promise<T> {
  return tables.transaction(function* () {
    const statements = work();
    for (let next = statements.next(); ;) {
      if (next.done === true) return next.value;
      next = statements.next(yield step(placed(next.value.sql), next.value.values));
    }
  });
}
