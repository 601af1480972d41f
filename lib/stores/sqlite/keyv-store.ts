import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { SqliteConnection, statementCache } from './connection.js';

/** Settings of {@link BetterSqliteKeyvStore}. */
export interface BetterSqliteKeyvStoreOptions {
  /** The table of the values: `key` and `value` columns, the layout `@keyv/sqlite` used. @default 'keyv' */
  table?: string;
  /** Rows read per step of `iterator()`. @default 100 */
  iterationLimit?: number;
}

interface Row {
  key: string;
  value: string;
}

/**
 * A Keyv store on better-sqlite3: every statement is prepared once and runs synchronously on the
 * connection it is given (see {@link SqliteConnection}: WAL, busy timeout, retried open). It keeps
 * `@keyv/sqlite`'s table layout, so existing files are read as they are. Keyv keeps the expiry inside
 * the serialized value, as with every store without `ttlSupport`.
 */
export class BetterSqliteKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  /** Keyv reads `opts.dialect` to know that this store can iterate. */
  readonly opts: { dialect: 'sqlite'; url: string; table: string; iterationLimit: number };
  /** Set by Keyv: the prefix of this instance's keys, which `clear()` and `iterator()` stay inside. */
  namespace?: string;
  readonly ttlSupport = false;
  private statement!: (sql: string) => import('better-sqlite3').Statement;

  constructor(
    private readonly connection: SqliteConnection,
    options: BetterSqliteKeyvStoreOptions = {},
  ) {
    super();
    const table = options.table ?? 'keyv';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`Invalid table name "${table}".`);
    this.opts = { dialect: 'sqlite', url: 'sqlite://', table, iterationLimit: options.iterationLimit ?? 100 };
    connection.onOpen((db) => {
      db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR(255) PRIMARY KEY, value TEXT)`);
      this.statement = statementCache(db);
    });
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.connection.run(() => {
      const row = this.statement(`SELECT value FROM ${this.opts.table} WHERE key = ?`).get(key) as Row | undefined;
      return row?.value as StoredData<Value> | undefined;
    });
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return this.connection.run(() => {
      const rows = this.statement(`SELECT key, value FROM ${this.opts.table} WHERE key IN (SELECT value FROM json_each(?))`).all(
        JSON.stringify(keys),
      ) as Row[];
      const byKey = new Map(rows.map((row) => [row.key, row.value]));
      return keys.map((key) => byKey.get(key) as StoredData<Value | undefined>);
    });
  }

  async set(key: string, value: unknown): Promise<boolean> {
    return this.connection.write(() => {
      this.statement(
        `INSERT INTO ${this.opts.table} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ).run(key, value as string);
      return true;
    });
  }

  async delete(key: string): Promise<boolean> {
    return this.connection.write(() => this.statement(`DELETE FROM ${this.opts.table} WHERE key = ?`).run(key).changes > 0);
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return this.connection.write(
      () =>
        this.statement(`DELETE FROM ${this.opts.table} WHERE key IN (SELECT value FROM json_each(?))`).run(JSON.stringify(keys))
          .changes > 0,
    );
  }

  async has(key: string): Promise<boolean> {
    return this.connection.run(() => this.statement(`SELECT 1 FROM ${this.opts.table} WHERE key = ?`).get(key) !== undefined);
  }

  async clear(): Promise<void> {
    await this.connection.write(() => {
      if (this.namespace) {
        this.statement(`DELETE FROM ${this.opts.table} WHERE key >= ? AND key < ?`).run(...prefixRange(`${this.namespace}:`));
      } else {
        this.statement(`DELETE FROM ${this.opts.table}`).run();
      }
    });
  }

  /** Every `[key, value]` of `namespace` (every key without one), in key order, a page at a time. */
  async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
    const [from, to] = namespace ? prefixRange(`${namespace}:`) : ['', '\u{10FFFF}'];
    let after: string | null = null;
    for (;;) {
      const cursor: string | null = after;
      const rows: Row[] = await this.connection.run(
        (): Row[] =>
          this.statement(
            `SELECT key, value FROM ${this.opts.table} WHERE key >= ? AND key < ? AND (? IS NULL OR key > ?) ORDER BY key LIMIT ?`,
          ).all(from, to, cursor, cursor, this.opts.iterationLimit) as Row[],
      );
      for (const row of rows) yield [row.key, row.value];
      if (rows.length < this.opts.iterationLimit) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  async disconnect(): Promise<void> {
    this.connection.close();
  }
}

/**
 * The keys that start with `prefix`, as a half-open range `[prefix, next)`: exact where `LIKE` would
 * read `_` and `%` in a namespace as wildcards, and it uses the primary key's index.
 */
function prefixRange(prefix: string): [string, string] {
  const last = prefix.codePointAt(prefix.length - 1)!;
  return [prefix, prefix.slice(0, -1) + String.fromCodePoint(last + 1)];
}
