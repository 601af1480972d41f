import { SetUpOnce } from '../shared/set-up-once.js';
import { placeholders, type SqlDialect } from './counters.js';

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

/** How the SQL records reach their database: statements with the backend's placeholders already. */
export interface SqlRecordTables {
  dialect: SqlDialect;
  /** Runs one statement outside a transaction. */
  read(sql: string, values: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs `work`'s statements in one transaction, committed if it returns. */
  transaction<T>(work: () => SqlWork<T>): Promise<T>;
}

/**
 * The tables of a store of SQL records behind its set-up ({@link SetUpOnce}): each read and transaction
 * waits for the set-up first, and has the placeholders of its statements (written with `?`) written as
 * the backend's.
 */
export class TablesSetUpOnce {
  /** Writes the placeholders of a statement as the backend's. */
  readonly placed: (sql: string) => string;
  private readonly once: SetUpOnce;

  /** @param setUp the store's set-up (its tables made, what older releases wrote moved). */
  constructor(
    private readonly tables: SqlRecordTables,
    setUp: () => Promise<void>,
  ) {
    this.placed = placeholders(tables.dialect);
    this.once = new SetUpOnce(setUp);
  }

  /** True once the set-up has ended well. */
  get done(): boolean {
    return this.once.done;
  }

  /** Runs the set-up, if it has not ended well yet; one that failed is tried again. */
  ready(): Promise<void> {
    return this.once.run();
  }

  /** Runs one statement outside a transaction, once set up. */
  async read(sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    if (!this.once.done) await this.once.run();
    return this.tables.read(this.placed(sql), values);
  }

  /** Runs `work` as one transaction, once set up. */
  async transaction<T>(work: () => SqlWork<T>): Promise<T> {
    if (!this.once.done) await this.once.run();
    return this.run(work);
  }

  /** Runs `work` as one transaction without waiting for the set-up: for the set-up's own. */
  run<T>(work: () => SqlWork<T>): Promise<T> {
    const placed = this.placed;
    return this.tables.transaction(function* () {
      const statements = work();
      for (let next = statements.next(); ;) {
        if (next.done === true) return next.value;
        next = statements.next(yield step(placed(next.value.sql), next.value.values));
      }
    });
  }
}
